// What several routes declare alike: the create's Idempotency-Key, an event stream's resume point,
// keyset paging, and the answers every create gives.
import { type Static, Type } from '@sinclair/typebox';
import type { Response } from 'express';
import { isUuid } from '../shared/ids.ts';
import { HttpProblem } from './problem.ts';
import type { Reply } from './route.ts';

export const problem = (description: string): Reply => ({ description, problem: true });

export const IdempotencyHeaders = Type.Object({
  'Idempotency-Key': Type.Optional(
    Type.String({
      pattern: '^[\\x21-\\x7e]{1,255}$',
      description: 'Repeat a create safely: the same key and body return the first answer.',
      errorMessage: 'must be 1–255 visible ASCII characters',
    }),
  ),
});

/** The answers of a create (POST with a JSON body and an Idempotency-Key): 201 with Location, and its problems. */
export const createReplies = (created: Reply, invalid: string): Record<number, Reply> => ({
  201: { ...created, headers: { Location: 'The new resource.', 'Idempotent-Replayed': 'true when replayed.' } },
  400: problem(invalid),
  409: problem(
    'The Idempotency-Key was used with a different body, or a library resource it references was deleted while it was created.',
  ),
  413: problem('The body is over the limit.'),
  415: problem('The body is not JSON.'),
});

// Browsers resend the id of the last event they saw; `?last_event_id=` serves clients that cannot set headers.
export const ResumeQuery = Type.Object({
  last_event_id: Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: 999_999_999,
      description: 'Resume after this event (for clients that cannot set headers).',
      errorMessage: 'must be a non-negative integer (an event id)',
    }),
  ),
});
export const ResumeHeaders = Type.Object({
  'Last-Event-ID': Type.Optional(
    Type.String({
      pattern: '^\\d{1,9}$',
      description: 'Resume after this event.',
      errorMessage: 'must be a non-negative integer (an event id)',
    }),
  ),
});

/** The event id a stream resumes after, and which part of the request gave it. */
export function resumePoint(
  query: Static<typeof ResumeQuery>,
  headers: Static<typeof ResumeHeaders>,
): { from: number; fromPath: string } {
  const header = headers['Last-Event-ID'];
  if (header !== undefined) return { from: Number(header), fromPath: 'header:Last-Event-ID' };
  return { from: query.last_event_id ?? 0, fromPath: '?last_event_id' };
}

export const streamReplies = (what: string): Record<number, Reply> => ({
  200: { description: 'An event stream.', media: ['text/event-stream'] },
  204: {
    description: `The ${what} is finished and Last-Event-ID is its last event: nothing to send (an EventSource stops reconnecting).`,
  },
  400: problem('Last-Event-ID is not a number, or is after the last event.'),
  404: problem(`No such ${what}.`),
  503: problem('Too many open streams on this server.'),
});

// Keyset paging, newest first: the cursor is the base64url of the last id sent, so a page starts
// strictly after it whatever was created or finished meanwhile; pages neither skip nor repeat a row.

export const pageLimit = (max: number, description = 'Page size.') =>
  Type.Integer({ minimum: 1, maximum: max, description, errorMessage: `must be an integer from 1 to ${max}` });
export const Cursor = Type.String({ description: "The previous page's next_cursor.", maxLength: 64 });

const encodeCursor = (id: string) => Buffer.from(id, 'latin1').toString('base64url');

/** The id a cursor names (exclusive start of the page); a cursor this server did not give is a 400. */
export function decodeCursor(cursor: string): string {
  const id = /^[\w-]{1,64}$/.test(cursor) ? Buffer.from(cursor, 'base64url').toString('latin1') : '';
  if (!isUuid(id)) {
    throw new HttpProblem('bad_request', '?cursor is not a cursor this server gave', {
      errors: [{ path: '?cursor', message: 'is not a cursor this server gave (use next_cursor as it is)' }],
    });
  }
  return id.toLowerCase();
}

/**
 * A page from `limit + 1` rows (newest first): the page, its next cursor (null on the last page),
 * and a `Link: <…>; rel="next"` header repeating the query with the new cursor.
 */
export function keysetPage<Row extends { id: string }>(
  res: Response,
  rows: readonly Row[],
  link: { path: string; limit: number; params?: Record<string, string | undefined> },
): { page: Row[]; next: string | null } {
  const more = rows.length > link.limit;
  const page = more ? rows.slice(0, link.limit) : [...rows];
  const next = more ? encodeCursor(page[page.length - 1].id) : null;
  if (next) {
    const params = new URLSearchParams();
    params.set('limit', String(link.limit));
    for (const [k, v] of Object.entries(link.params ?? {})) if (v !== undefined) params.set(k, v);
    params.set('cursor', next);
    res.setHeader('Link', `<${link.path}?${params.toString()}>; rel="next"`);
  }
  return { page, next };
}

/** One CSV cell: empty for null, JSON for a non-string, quoted when it holds a comma, quote or line break. */
const csvCell = (v: unknown): string => {
  if (v === null || v === undefined) return '';
  const text = typeof v === 'string' ? v : JSON.stringify(v);
  return /[",\n\r]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
};

/** Sends a table as a CSV attachment named `filename`: a header row, then one row per item. */
export function sendCsv(
  res: Response,
  filename: string,
  header: readonly unknown[],
  rows: Iterable<readonly unknown[]>,
): void {
  const lines = [header.map(csvCell).join(',')];
  for (const cells of rows) lines.push(cells.map(csvCell).join(','));
  res.type('text/csv').setHeader('Content-Disposition', `attachment; filename="${filename}"`);
  res.send(`${lines.join('\n')}\n`);
}

/** A results route's `?format`: `json` or `csv` (what the CSV holds, said in `csv`). */
export const FormatQuery = (csv: string) =>
  Type.Optional(
    Type.Union([Type.Literal('json'), Type.Literal('csv')], {
      description: `csv: ${csv}`,
      errorMessage: 'must be "json" or "csv"',
    }),
  );

/** Whether a results route answers CSV: ?format=csv, or no format and an Accept that prefers text/csv. */
export const wantsCsv = (format: string | undefined, accepts: (types: string[]) => string | false) =>
  format === 'csv' || (format === undefined && accepts(['application/json', 'text/csv']) === 'text/csv');
