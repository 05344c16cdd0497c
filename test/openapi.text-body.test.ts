// A route that reads a text body (a file) is described as such in the OpenAPI document: each of
// its text media types a string, its JSON form beside them, its size limit said, and its 413 and
// 415 among the answers; the document lints clean. Built in process: no server is needed for it
// (test/resources.api.test.ts sends such bodies to a live one).
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import t from 'tap';
import { buildOpenApi } from '../server/openapi.ts';
import { defineRoute } from '../server/route.ts';
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
  handle() {},
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
