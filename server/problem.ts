// The one error type a route throws, and the one middleware that turns any error into
// application/problem+json (RFC 9457). Unknown errors become a 500 with no stack and no SQL.
import type { ErrorRequestHandler, Response } from 'express';
import type { FieldError } from '../shared/schemas/problem.ts';

export type ProblemCode =
  | 'bad_request'
  | 'validation'
  | 'malformed_json'
  | 'unauthorized'
  | 'not_found'
  | 'method_not_allowed'
  | 'not_acceptable'
  | 'conflict'
  | 'not_ready'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'quota_exceeded'
  | 'unavailable'
  | 'internal';

export const TITLES: Record<ProblemCode, [number, string]> = {
  bad_request: [400, 'Bad request'],
  validation: [400, 'The request does not match the schema'],
  malformed_json: [400, 'The body is not valid JSON'],
  unauthorized: [401, 'Authentication required'],
  not_found: [404, 'Not found'],
  method_not_allowed: [405, 'Method not allowed'],
  not_acceptable: [406, 'Not acceptable'],
  conflict: [409, 'Conflict'],
  not_ready: [409, 'The scenario has no statements yet'],
  payload_too_large: [413, 'The body is too large'],
  unsupported_media_type: [415, 'Unsupported media type'],
  quota_exceeded: [429, "Over the workspace's quota"],
  unavailable: [503, 'Service unavailable'],
  internal: [500, 'Internal server error'],
};

export class HttpProblem extends Error {
  readonly code: ProblemCode;
  readonly status: number;
  readonly detail: string | undefined;
  readonly errors: FieldError[] | undefined;
  readonly headers: Record<string, string>;
  readonly extra: Record<string, unknown>;

  constructor(
    code: ProblemCode,
    detail?: string,
    opts: { errors?: FieldError[]; headers?: Record<string, string>; extra?: Record<string, unknown> } = {},
  ) {
    super(detail ?? TITLES[code][1]);
    this.code = code;
    this.status = TITLES[code][0];
    this.detail = detail;
    this.errors = opts.errors;
    this.headers = opts.headers ?? {};
    this.extra = opts.extra ?? {};
  }
}

/** A request refused by the rules after its schema: a 400 listing every field named. */
export const invalidRequest = (what: string, errors: FieldError[]) =>
  new HttpProblem('validation', `${errors.length} problem(s) with the ${what}`, { errors });

/** The problem's `type`: a page of this server that explains it (server/routes/problems.route.ts). */
export const problemType = (code: ProblemCode) => `/problems/${code.replaceAll('_', '-')}`;

function sendProblem(res: Response, p: HttpProblem): void {
  for (const [k, v] of Object.entries(p.headers)) res.setHeader(k, v);
  res
    .status(p.status)
    .type('application/problem+json')
    .send(
      JSON.stringify({
        type: problemType(p.code),
        title: TITLES[p.code][1],
        status: p.status,
        ...(p.detail ? { detail: p.detail } : {}),
        instance: res.req.originalUrl,
        ...(p.errors ? { errors: p.errors } : {}),
        ...p.extra,
      }),
    );
}

/** body-parser's errors carry a `type`; map each to the problem a client can act on. */
function fromBodyParser(err: { type?: string; status?: number; limit?: number }): HttpProblem | undefined {
  switch (err.type) {
    case 'entity.parse.failed':
      return new HttpProblem('malformed_json', 'the body is not valid JSON');
    case 'entity.too.large':
      return new HttpProblem(
        'payload_too_large',
        `the body is larger than the limit of ${err.limit ?? 'BODY_LIMIT_BYTES'} bytes (BODY_LIMIT_BYTES)`,
      );
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return new HttpProblem('unsupported_media_type', 'unsupported body encoding or charset');
    case 'request.aborted':
      return new HttpProblem('bad_request', 'the request was aborted');
    default:
      return err.status && err.status >= 400 && err.status < 500
        ? new HttpProblem('bad_request', 'the request could not be read')
        : undefined;
  }
}

/** A database that cannot be reached is a 503 the client can retry, not a 500. */
function isDatabaseDown(err: unknown): boolean {
  const e = err as { code?: string; message?: string };
  if (
    typeof e?.code === 'string' &&
    /^(57P0[1-3]|08\d\d[0-9A-Z]?|53300|ECONNREFUSED|ECONNRESET|ETIMEDOUT)$/.test(e.code)
  ) {
    return true;
  }
  return /timeout exceeded when trying to connect|Connection terminated|connect ECONNREFUSED|Query read timeout/i.test(
    e?.message ?? '',
  );
}

export const problemMiddleware: ErrorRequestHandler = (err, req, res, _next) => {
  let problem: HttpProblem;
  if (err instanceof HttpProblem) problem = err;
  else if ((err as { code?: string })?.code === '57014') {
    // STATEMENT_TIMEOUT_MS ran out (a busy database): the request may be retried as it was.
    problem = new HttpProblem('unavailable', 'the database took too long to answer; try again shortly', {
      headers: { 'Retry-After': '5' },
    });
  } else if (isDatabaseDown(err)) {
    problem = new HttpProblem('unavailable', 'the database is unavailable; try again shortly', {
      headers: { 'Retry-After': '2' },
    });
  } else {
    const fromParser = fromBodyParser(err as { type?: string; status?: number });
    if (fromParser) problem = fromParser;
    else {
      req.log?.error({ err }, 'unhandled error');
      problem = new HttpProblem('internal', 'an unexpected error occurred; it has been logged');
    }
  }
  if (res.headersSent) {
    res.end();
    return;
  }
  sendProblem(res, problem);
};
