// GET /api/scenarios: every scenario streamed (no `limit`), or one page of them (`limit`, `cursor`),
// newest first, with the filters `status`, `sweep_id` and `q`. Both read the same list items
// (scenario_list_json, sql/0004) in the same order, the id's: ids are UUIDv7, so newest first.
//
// Pages are keyset pages on the id. The cursor is the last id sent, so a page starts strictly after
// it whatever was created or finished meanwhile: new scenarios sort before the first page and are
// never met, and no row moves across a cursor, so pages neither skip nor repeat a row.
import type { Request, Response } from 'express';
import type pg from 'pg';
import { isUuid } from '../shared/ids.ts';
import { isScenarioStatus, SCENARIO_STATUSES, type ScenarioStatus } from '../shared/lifecycle.ts';
import type { CopyRun } from '../shared/pg.copy.ts';
import { HttpProblem } from './problem.ts';
import { copyListItems, type ListQuery, listPage } from './scenarios.repository.ts';

export type { ListQuery };

/** Bytes per write of the list. */
const LIST_CHUNK = 64 * 1024;
/** Bytes the list may queue for a slow client before the COPY is paused. */
const LIST_BUFFER_LIMIT = 1024 * 1024;
/** The longest a list may take, for clients that read slowly. */
const LIST_TIMEOUT_MS = 5 * 60 * 1000;
export const MAX_PAGE = 1000;
export const LIST_PARAMS = ['limit', 'cursor', 'status', 'sweep_id', 'q'] as const;

const bad = (path: string, message: string) =>
  new HttpProblem('bad_request', `${path} ${message}`, { errors: [{ path, message }] });

function single(query: Record<string, unknown>, name: string): string | null {
  const v = query[name];
  if (v === undefined) return null;
  if (typeof v !== 'string') throw bad(`?${name}`, 'must be given once, as a plain value');
  return v;
}

/** The cursor is the base64url of the last id sent: opaque to clients, checked here. */
export const encodeCursor = (id: string) => Buffer.from(id, 'latin1').toString('base64url');

export function parseListQuery(query: Record<string, unknown>): ListQuery {
  const limitText = single(query, 'limit');
  let limit: number | null = null;
  if (limitText !== null) {
    if (!/^\d{1,7}$/.test(limitText) || Number(limitText) < 1 || Number(limitText) > MAX_PAGE) {
      throw bad('?limit', `must be an integer from 1 to ${MAX_PAGE}`);
    }
    limit = Number(limitText);
  }
  const cursorText = single(query, 'cursor');
  let after: string | null = null;
  if (cursorText !== null) {
    if (limit === null) throw bad('?cursor', 'needs ?limit (a cursor names a page)');
    const id = /^[\w-]{1,64}$/.test(cursorText) ? Buffer.from(cursorText, 'base64url').toString('latin1') : '';
    if (!isUuid(id)) throw bad('?cursor', 'is not a cursor this server gave (use next_cursor as it is)');
    after = id.toLowerCase();
  }
  const statusText = single(query, 'status');
  let statuses: ScenarioStatus[] | null = null;
  if (statusText !== null) {
    const words = statusText.split(',');
    if (!words.every(isScenarioStatus)) {
      throw bad('?status', `must be one or more of ${SCENARIO_STATUSES.join(', ')}, separated by commas`);
    }
    statuses = words;
  }
  const sweepText = single(query, 'sweep_id');
  if (sweepText !== null && sweepText !== 'none' && !isUuid(sweepText)) {
    throw bad('?sweep_id', 'must be a UUID, or none (only scenarios outside any sweep)');
  }
  const q = single(query, 'q');
  if (q !== null && (q.length < 1 || q.length > 200 || q.includes('\0'))) {
    throw bad('?q', 'must be 1–200 characters (no NUL)');
  }
  return { limit, after, statuses, sweepId: sweepText?.toLowerCase() ?? null, q };
}

/** One page: `{items, next_cursor}`, and a `Link: <…>; rel="next"` header when there is more. */
export async function sendPage(pool: pg.Pool, req: Request, res: Response, query: ListQuery): Promise<void> {
  const limit = query.limit ?? MAX_PAGE;
  const rows = await listPage(pool, { ...query, limit });
  const more = rows.length > limit;
  const page = more ? rows.slice(0, limit) : rows;
  const next = more ? encodeCursor(page[page.length - 1].id) : null;
  if (next) {
    const params = new URLSearchParams();
    for (const name of LIST_PARAMS) {
      const v = req.query[name];
      if (typeof v === 'string' && name !== 'cursor') params.set(name, v);
    }
    params.set('cursor', next);
    res.setHeader('Link', `</api/scenarios?${params.toString()}>; rel="next"`);
  }
  res
    .status(200)
    .type('application/json')
    .send(`{"items":[${page.map((r) => r.item).join(',')}],"next_cursor":${next ? JSON.stringify(next) : 'null'}}`);
}

/**
 * Streams every matching scenario, newest first, from one binary COPY (one snapshot): row bytes are
 * copied into 64 kB chunks and written as they come, and the COPY pauses while the client is behind,
 * so memory stays flat whatever the number of scenarios.
 */
export async function streamAll(pool: pg.Pool, res: Response, query: ListQuery): Promise<void> {
  // Chunks are reused once the socket has taken them, so a list allocates a bounded few.
  const spare: Buffer[] = [];
  const take = () => spare.pop() ?? Buffer.allocUnsafe(LIST_CHUNK);
  let chunk = take();
  chunk.write('{"items":[');
  let used = 10;
  let total = 0;
  let dropped = false;
  let copy: CopyRun | null = null;
  const flush = () => {
    if (used === 0 || dropped) return;
    const written = chunk;
    res.write(written.subarray(0, used), () => {
      if (written.length === LIST_CHUNK) spare.push(written);
    });
    chunk = take();
    used = 0;
    // Pausing at every full 16 kB socket buffer would stall Postgres on each chunk: allow a little more.
    if (res.writableLength >= LIST_BUFFER_LIMIT) {
      copy?.pause();
      res.once('drain', () => copy?.resume());
    }
  };
  // A client that went away: read the rest of the COPY and drop it (the connection stays usable).
  res.once('close', () => {
    if (!res.writableFinished) {
      dropped = true;
      copy?.resume();
    }
  });
  const onItem = ([json]: Array<Buffer | null>) => {
    if (dropped || !json) return;
    const need = json.length + 1;
    if (used + need > chunk.length) flush();
    if (need > chunk.length) chunk = Buffer.allocUnsafe(need);
    if (total++ > 0) chunk[used++] = 0x2c; // ','
    used += json.copy(chunk, used);
  };
  try {
    // A slow client holds the COPY open: it gets LIST_TIMEOUT_MS, not the pool's statement timeout.
    await copyListItems(
      pool,
      query,
      LIST_TIMEOUT_MS,
      (started) => {
        copy = started;
        res.status(200).type('application/json');
      },
      onItem,
    );
  } catch (err) {
    // Once the body has started, a failure can only cut the response short.
    if (res.headersSent) res.destroy(err as Error);
    else throw err;
    return;
  }
  if (dropped) return;
  flush();
  res.end(`],"total":${total}}`);
}
