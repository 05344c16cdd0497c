// GET /problems/{type}: what each problem `type` means, so the URI in every problem+json answer
// names a page this server really has (RFC 9457 §3.1.1).
import { Type } from '@sinclair/typebox';
import { HttpProblem, type ProblemCode, problemType, TITLES } from '../problem.ts';
import { defineRoute } from '../route.ts';

const EXPLANATIONS: Record<ProblemCode, string> = {
  bad_request: 'A header or query parameter is malformed or unknown. `errors` names it (`?name` or `header:Name`).',
  validation:
    'The body does not match the schema. `errors` lists every failing field by JSON Pointer; fix them all and send again.',
  malformed_json: 'The body is not valid JSON.',
  unauthorized: 'Send `Authorization: Bearer <key>` with one of the keys in API_KEYS.',
  not_found: 'No such resource: an unknown or malformed id, or an unknown path.',
  method_not_allowed: 'The path exists but not with this method; `Allow` lists the methods it takes.',
  not_acceptable: 'None of the media types in `Accept` can be produced here.',
  conflict: "The request conflicts with the resource's state, e.g. an Idempotency-Key reused with another body.",
  not_ready:
    'The scenario has no statements: it is still queued or running (follow its events), or it failed (`error` says why).',
  payload_too_large: 'The body is over the limit (BODY_LIMIT_BYTES).',
  unsupported_media_type: 'Send the body as `Content-Type: application/json`.',
  quota_exceeded:
    "The workspace is at a quota (`quota` names it: queued_variants, stored_bytes or requests_per_minute; `limit` and `used` say where it stands). Nothing was written; retry after `Retry-After` seconds, or free some (cancel queued work, delete finished work). `GET /api/workspace` shows every quota's use.",
  unavailable: 'The database does not answer or the server is at a limit; retry after `Retry-After` seconds.',
  internal: 'An unexpected error; the server logged it with the request id (`X-Request-Id`).',
};

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
const PAGES = new Map<string, string>(
  (Object.keys(EXPLANATIONS) as ProblemCode[]).map((code) => {
    const [status, title] = TITLES[code];
    const page = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head><body><h1>${status} ${escapeHtml(title)}</h1><p>${escapeHtml(EXPLANATIONS[code])}</p><p>Every error of this API is <code>application/problem+json</code> (RFC 9457) with <code>type</code> = <code>${problemType(code)}</code>.</p></body></html>`;
    return [problemType(code), page];
  }),
);

export const getProblemType = defineRoute({
  method: 'get',
  path: '/problems/{type}',
  operationId: 'getProblemType',
  summary: 'What a problem type means',
  tags: ['problems'],
  params: Type.Object({
    type: Type.Union(
      (Object.keys(EXPLANATIONS) as string[]).map((c) => Type.Literal(c.replaceAll('_', '-'))),
      { description: 'The last part of a problem `type` URI.' },
    ),
  }),
  notFound: 'no such problem type',
  responses: {
    200: { description: 'A short explanation.', media: ['text/html'] },
    404: { description: 'No such problem type.', problem: true },
  },
  handle({ params, res }) {
    const page = PAGES.get(`/problems/${params.type}`);
    if (!page) throw new HttpProblem('not_found', 'no such problem type');
    res.setHeader('Cache-Control', 'public, max-age=86400');
    res.type('text/html').send(page);
  },
});
