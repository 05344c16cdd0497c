// Small HTTP helpers shared by the routes.
import type { Request, RequestHandler, Response } from 'express';
import { isUuid } from '../shared/uuid.ts';
import { HttpProblem } from './problem.ts';

/** The trailing `.all()` of a route: 405 with the methods the path does allow. */
export function methodNotAllowed(...methods: string[]): RequestHandler {
  const allow = [...methods, ...(methods.includes('GET') ? ['HEAD'] : [])].join(', ');
  return (req, _res, next) => {
    if (req.method === 'OPTIONS') {
      _res.setHeader('Allow', allow);
      _res.status(204).end();
      return;
    }
    next(new HttpProblem('method_not_allowed', `${req.method} is not allowed here`, { headers: { Allow: allow } }));
  };
}

/** Unknown and malformed ids are both "no such scenario". */
export function scenarioId(raw: unknown): string {
  if (typeof raw !== 'string' || !isUuid(raw)) throw new HttpProblem('not_found', 'no scenario has this id');
  return raw.toLowerCase();
}

/** Rejects query parameters a route does not know, naming them. */
export function allowQuery(query: Record<string, unknown>, allowed: readonly string[]): void {
  const unknown = Object.keys(query).filter((k) => !allowed.includes(k));
  if (unknown.length > 0) {
    throw new HttpProblem('bad_request', 'unknown query parameter', {
      errors: unknown.map((k) => ({
        path: `?${k}`,
        message: allowed.length
          ? `unknown parameter; allowed: ${allowed.join(', ')}`
          : 'this route takes no parameters',
      })),
    });
  }
}

/** Does an If-None-Match header match this (strong) ETag? Weak comparison, as RFC 9110 asks for GET. */
export function etagMatches(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === '*') return true;
  return header.split(',').some((t) => t.trim().replace(/^W\//, '') === etag);
}

export function acceptsGzip(header: string | undefined): boolean {
  if (!header) return false;
  return header.split(',').some((part) => {
    const [coding, ...params] = part.trim().split(';');
    if (coding.trim().toLowerCase() !== 'gzip' && coding.trim() !== '*') return false;
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    return !q || Number(q.slice(2)) > 0;
  });
}

/** The event id a stream resumes after: `Last-Event-ID`, or `?last_event_id=` for clients that cannot set it. */
export function lastEventId(req: Request): number {
  const raw = req.get('Last-Event-ID') ?? (req.query.last_event_id as string | undefined);
  if (raw === undefined || raw === '') return 0;
  if (!/^\d{1,9}$/.test(raw)) {
    throw new HttpProblem('bad_request', 'Last-Event-ID must be a non-negative integer', {
      errors: [{ path: lastEventIdPath(req), message: 'must be a non-negative integer (an event id)' }],
    });
  }
  return Number(raw);
}

export const lastEventIdPath = (req: Request) =>
  req.get('Last-Event-ID') !== undefined ? 'header:Last-Event-ID' : '?last_event_id';

export function requireJson(req: Request): void {
  const type = req.headers['content-type'];
  if (!type || !req.is(['application/json', 'application/*+json'])) {
    throw new HttpProblem('unsupported_media_type', 'send the body as Content-Type: application/json', {
      headers: { 'Accept-Post': 'application/json' },
    });
  }
}

export function idempotencyKey(req: Request): string | null {
  const key = req.get('Idempotency-Key');
  if (key === undefined) return null;
  if (key.length < 1 || key.length > 255 || !/^[\x21-\x7e]+$/.test(key)) {
    throw new HttpProblem('bad_request', 'Idempotency-Key must be 1–255 visible ASCII characters', {
      errors: [{ path: 'header:Idempotency-Key', message: 'must be 1–255 visible ASCII characters' }],
    });
  }
  return key;
}

/** Before an event stream opens: the server's stream limit, then the resume point against the newest event. */
export function checkStreamStart(
  req: Request,
  o: { open: number; max: number; from: number; lastSeq: number; what: string },
): void {
  if (o.open >= o.max) {
    throw new HttpProblem('unavailable', 'too many open event streams on this server; retry shortly', {
      headers: { 'Retry-After': '5' },
    });
  }
  if (o.from > o.lastSeq) {
    throw new HttpProblem('bad_request', `Last-Event-ID is after the last event of this ${o.what}`, {
      errors: [{ path: lastEventIdPath(req), message: `this ${o.what}'s last event is ${o.lastSeq}` }],
    });
  }
}

/** The headers of an event stream (docs/api.md, "Events"), sent at once, and its reconnection delay. */
export function openEventStream(res: Response): void {
  res.status(200);
  res.setHeader('Content-Type', 'text/event-stream; charset=utf-8');
  res.setHeader('Cache-Control', 'no-cache');
  res.setHeader('Connection', 'keep-alive');
  res.setHeader('X-Accel-Buffering', 'no');
  res.flushHeaders();
  res.write('retry: 3000\n\n');
}

/**
 * A create repeated with its Idempotency-Key: the first one's answer (201, Idempotent-Replayed) when
 * the body is the same, a 409 when it is not. False when the key is new.
 */
export function replayCreate<Row extends { id: string; request_hash: string | null }>(
  res: Response,
  existing: Row | undefined,
  hash: string,
  answer: (row: Row) => { location: string; body: unknown },
): boolean {
  if (!existing) return false;
  if (existing.request_hash !== hash) {
    throw new HttpProblem('conflict', 'this Idempotency-Key was used with a different request body', {
      errors: [{ path: 'header:Idempotency-Key', message: 'already used with a different body' }],
    });
  }
  const { location, body } = answer(existing);
  res.status(201).location(location).setHeader('Idempotent-Replayed', 'true');
  res.json(body);
  return true;
}
