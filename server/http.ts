// Small HTTP helpers shared by the routes.
import { createHash } from 'node:crypto';
import type { Request, RequestHandler, Response } from 'express';
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

export function requireJson(req: Request): void {
  const type = req.headers['content-type'];
  if (!type || !req.is(['application/json', 'application/*+json'])) {
    throw new HttpProblem('unsupported_media_type', 'send the body as Content-Type: application/json', {
      headers: { 'Accept-Post': 'application/json' },
    });
  }
}

/**
 * A create's Idempotency-Key and its body's hash. A repeat with the key gets the first create's
 * answer (201, Idempotent-Replayed) when the body is the same, a 409 when it is not; two creates
 * that race with one key both insert, and the loser (a unique violation) answers with the winner's.
 */
export class IdempotentCreate<Row extends { id: string; request_hash: string | null }> {
  readonly key: string | null;
  readonly hash: string | null;
  readonly #res: Response;
  readonly #find: (key: string) => Promise<Row | undefined>;
  readonly #answer: (row: Row) => { location: string; body: unknown };

  constructor(
    req: Request,
    res: Response,
    key: string | undefined,
    lookup: {
      find: (key: string) => Promise<Row | undefined>;
      answer: (row: Row) => { location: string; body: unknown };
    },
  ) {
    this.key = key ?? null;
    // Only a validated body (never nested too deep to stringify) is hashed.
    this.hash = key === undefined ? null : createHash('sha256').update(JSON.stringify(req.body)).digest('hex');
    this.#res = res;
    this.#find = lookup.find;
    this.#answer = lookup.answer;
  }

  /** Answers a repeat with the first create's answer; false when the key is new (or there is none). */
  async replay(): Promise<boolean> {
    if (this.key === null) return false;
    const existing = await this.#find(this.key);
    if (!existing) return false;
    if (existing.request_hash !== this.hash) {
      throw new HttpProblem('conflict', 'this Idempotency-Key was used with a different request body', {
        errors: [{ path: 'header:Idempotency-Key', message: 'already used with a different body' }],
      });
    }
    const { location, body } = this.#answer(existing);
    this.#res.status(201).location(location).setHeader('Idempotent-Replayed', 'true');
    this.#res.json(body);
    return true;
  }

  /** After a failed insert: the winner's answer if the failure was a race on the key, else false. */
  async replayAfter(err: unknown): Promise<boolean> {
    return (err as { code?: string })?.code === '23505' && (await this.replay());
  }

  /** Runs the insert: what it returned, or null when it lost a race on the key and the winner's create was answered. */
  async insert<T>(write: () => Promise<T>): Promise<{ value: T } | null> {
    try {
      return { value: await write() };
    } catch (err) {
      if (await this.replayAfter(err)) return null;
      throw err;
    }
  }
}
