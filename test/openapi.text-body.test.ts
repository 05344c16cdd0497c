// A route that reads a text body (a file) is described as such in the OpenAPI document: each of
// its text media types a string, its JSON form beside them, its size limit said, and its 413 and
// 415 among the answers; the document lints clean. Built in process, and the declaration's route
// served by mountRoutes on a bare express app: the bytes reach the handler, over the limit a 413,
// another type a 415 (test/resources.api.test.ts sends such bodies to the real server).
import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import express from 'express';
import t from 'tap';
import { buildOpenApi } from '../server/openapi.ts';
import { problemMiddleware } from '../server/problem.ts';
import { defineRoute, mountRoutes, type RouteDeps } from '../server/route.ts';
import { API_ROUTES, PUBLIC_ROUTES } from '../server/routes/index.ts';

const run = promisify(execFile);
const bin = (name: string) => new URL(`../node_modules/.bin/${name}`, import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), 'hourglass-textbody-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));

// A route with a text body only, and a smaller limit of its own.
const textOnly = defineRoute({
  method: 'post',
  path: '/api/notes',
  operationId: 'createNote',
  summary: 'A note',
  tags: ['notes'],
  text: { media: ['text/markdown'], description: 'The note as Markdown.', maxBytes: 4096 },
  responses: { 204: { description: 'Kept.' }, 400: { description: 'Bad.', problem: true } },
  handle({ text, res }) {
    res.status(204).setHeader('X-Bytes', String(text?.length)).end();
  },
});
const doc = buildOpenApi({
  auth: true,
  bodyLimitBytes: 1_000_000,
  routes: [...PUBLIC_ROUTES, ...API_ROUTES, textOnly],
});

t.test('the upload: its text media types and its JSON form, with the limit', async (t) => {
  const op = doc.paths?.['/api/resources']?.post;
  const body = op?.requestBody as { required: boolean; description: string; content: Record<string, unknown> };
  t.equal(body.required, true);
  t.same(Object.keys(body.content).sort(), ['application/json', 'text/csv', 'text/plain']);
  t.same(body.content['text/csv'], { schema: { type: 'string' } });
  t.same(body.content['application/json'], { schema: { $ref: '#/components/schemas/SeriesUpload' } });
  t.match(body.description, /At most 1000000 bytes \(BODY_LIMIT_BYTES\); over it, 413/);
  const series = doc.components?.schemas?.SeriesUpload as { properties: Record<string, unknown>; required: string[] };
  t.same(Object.keys(series.properties).sort(), ['hourly_mw', 'kind', 'name', 'values']);
  t.same(series.required, ['name']);
  t.ok(op?.responses?.['413'] && op?.responses?.['415'], '413 and 415 described');
});

t.test('a text-only route: no JSON form, its own limit, 413 and 415 added', async (t) => {
  const op = doc.paths?.['/api/notes']?.post;
  const body = op?.requestBody as { description: string; content: Record<string, unknown> };
  t.same(Object.keys(body.content), ['text/markdown']);
  t.match(body.description, /^The note as Markdown\. At most 4096 bytes/);
  t.match(op?.responses?.['413'], { content: { 'application/problem+json': {} } });
  t.match(op?.responses?.['415'], { description: /Accept-Post/ });
  t.ok(op?.responses?.['400'], 'its own answers kept');
});

t.test('the document lints clean with @redocly/cli', async (t) => {
  const file = join(dir, 'openapi.json');
  writeFileSync(file, JSON.stringify(doc));
  const lint = await run(process.execPath, [bin('redocly'), 'lint', file, '--format=json'], { cwd: dir }).catch(
    (err: { stdout?: string }) => ({ stdout: err.stdout ?? '' }),
  );
  const report = JSON.parse(lint.stdout.slice(lint.stdout.indexOf('{'))) as {
    totals: { errors: number };
    problems: Array<{ ruleId: string; message: string }>;
  };
  t.equal(report.totals.errors, 0, JSON.stringify(report.problems.slice(0, 3)));
  t.same(
    [...new Set(report.problems.map((p) => p.ruleId))].filter((r) => r !== 'operation-4xx-response'),
    [],
    'no warning but "health probes have no 4xx"',
  );
});

t.test('served: the bytes reach the handler; over the limit 413; another type 415 naming the accepted', async (t) => {
  const app = express();
  app.use(mountRoutes([textOnly], { config: { bodyLimitBytes: 1_000_000 } } as unknown as RouteDeps));
  app.use(problemMiddleware);
  const server = app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.teardown(() => new Promise((resolve) => server.close(resolve)));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/notes`;
  const post = (body: string, type?: string) =>
    fetch(url, { method: 'POST', body, headers: type ? { 'content-type': type } : {} });
  const ok = await post('# A note\n\nmore', 'text/markdown; charset=utf-8');
  t.equal(ok.status, 204);
  t.equal(ok.headers.get('x-bytes'), '14', 'the bytes, as sent');
  const big = await post('x'.repeat(4097), 'text/markdown');
  t.equal(big.status, 413, 'over its own limit of 4096 bytes');
  t.equal(big.headers.get('content-type'), 'application/problem+json; charset=utf-8');
  t.equal((await post('x'.repeat(4096), 'text/markdown')).status, 204, 'at the limit');
  for (const type of ['application/json', 'text/plain', undefined]) {
    const refused = await post('{}', type);
    t.equal(refused.status, 415, `${type ?? 'no content type'}: 415`);
    t.equal(refused.headers.get('accept-post'), 'text/markdown');
    t.match(((await refused.json()) as { detail: string }).detail, /text\/markdown/);
  }
});
