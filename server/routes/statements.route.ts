// GET /api/scenarios/{id}/statements: the stored result.
// Without the hourly arrays it is stored as gzip JSON: a client that accepts gzip gets those bytes
// untouched. With them it is stored in a smaller binary form (shared/result/stored.form.ts) that the
// full answer is made from as it is sent, a row at a time: the same gzip JSON as the stored gzip of
// a result written before that form, which is still read as it was (the two are told apart by
// their first bytes).

import { promisify } from 'node:util';
import { createGunzip, createGzip, gunzip, gzip as gzipCallback } from 'node:zlib';
import { type Static, Type } from '@sinclair/typebox';
import type { Request, Response } from 'express';
import { HOURS_PER_YEAR } from '../../shared/calendar.ts';
import { HOURLY_NAMES } from '../../shared/hourly.series.ts';
import { HEAD_BYTES, isStoredForm, parseStoredForm, type StoredForm } from '../../shared/result/stored.form.ts';
import { gzipPieces, storedHourly } from '../../shared/result/stored.gzip.ts';
import { HourlyYear, ScenarioResult, YEARS } from '../../shared/schemas/result.ts';
import type { WorkspaceDb } from '../../shared/workspace.ts';
import { AnswerCache, type Lookup, SERIES_PIECE } from '../answer.cache.ts';
import { acceptsGzip, etagMatches } from '../http.ts';
import { HttpProblem } from '../problem.ts';
import { findResultEtag, findStatements, type ResultPart } from '../results.repository.ts';
import { FormatQuery, problem, wantsCsv } from '../route.common.ts';
import { type AnyRoute, defineRoute, IdParams } from '../route.ts';
import { csvChunks, type StoredHourly } from '../statements.csv.ts';

const gunzipAsync = promisify(gunzip);
const gzipAsync = promisify(gzipCallback);

type Variant = { part: ResultPart; suffix: string; type: string; year?: number };
const FULL: Variant = { part: 'statements_gzip', suffix: '', type: 'application/json' };
const LITE: Variant = { part: 'statements_lite_gzip', suffix: '-lite', type: 'application/json' };
const CSV: Variant = { part: 'statements_gzip', suffix: '-csv', type: 'text/csv; charset=utf-8' };

const StatementsQuery = Type.Object({
  hourly: Type.Optional(
    Type.Boolean({
      default: true,
      description: 'false: without the hourly arrays.',
      errorMessage: 'must be "true" or "false"',
    }),
  ),
  year: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: YEARS,
      description:
        'One operating year (1–25) of the hourly arrays only, as an HourlyYear object (~30 kB gzip instead of ~0.85 MB): what a chart of one year needs.',
      errorMessage: `must be an integer from 1 to ${YEARS}`,
    }),
  ),
  format: FormatQuery('the hourly data as CSV (year,hour,timestamp,solar_mwh,wind_mwh).'),
});

function chooseVariant(req: Request, query: Static<typeof StatementsQuery>): Variant {
  const { format, hourly, year } = query;
  if (year !== undefined) {
    if (hourly === false || format === 'csv') {
      throw new HttpProblem('bad_request', '?year is one year of the hourly arrays, as JSON', {
        errors: [{ path: '?year', message: 'cannot be combined with hourly=false or format=csv' }],
      });
    }
    return { part: 'statements_gzip', suffix: `-y${year}`, type: 'application/json', year };
  }
  if (wantsCsv(format, (types) => req.accepts(types))) return CSV;
  return hourly === false ? LITE : FULL;
}

// Finished statements never change (invariant 5): a client may keep them for good. private: with
// API_KEYS, a shared cache must not hand one client's answer to another.
const IMMUTABLE = 'private, max-age=31536000, immutable';

/** The stored result of a finished scenario, or the problem that says why there is none to send. */
async function storedStatements(ws: WorkspaceDb, id: string, variant: Variant, headBytes?: number) {
  const state = await findStatements(ws, id, variant.part, headBytes);
  if (!state) throw new HttpProblem('not_found', 'no scenario has this id');
  if (state.status === 'failed') {
    throw new HttpProblem('not_ready', 'the calculation failed; there are no statements', {
      extra: { scenario_status: state.status, error: state.error },
    });
  }
  if (state.status !== 'succeeded') {
    throw new HttpProblem('not_ready', `the scenario is ${state.status}; follow its events to know when it is done`, {
      extra: { scenario_status: state.status },
    });
  }
  if (state.etag && !state.bytes && variant !== LITE) {
    // A sweep's variant keeps no hourly data unless the sweep asked for it (keep_hourly).
    throw new HttpProblem(
      'conflict',
      'this scenario kept no hourly data (a sweep variant without keep_hourly): ?hourly=false gives its statements; to get its hourly data, POST its inputs to /api/scenarios, which recomputes the same result',
      {
        extra: {
          hourly: 'not_kept',
          statements_without_hourly: `/api/scenarios/${id}/statements?hourly=false`,
          recompute: { method: 'POST', href: '/api/scenarios', body: `the inputs of GET /api/scenarios/${id}` },
        },
      },
    );
  }
  if (!state.etag || !state.bytes) throw new HttpProblem('not_ready', 'the statements are not stored yet');
  return { ...state, etag: state.etag, bytes: state.bytes };
}

const getStatements = defineRoute({
  method: 'get',
  path: '/api/scenarios/{id}/statements',
  operationId: 'getStatements',
  summary: 'Read the calculated statements',
  description:
    'JSON with hourly arrays (25 × 8,760 per technology), `?hourly=false` without them, or the hourly data as CSV (`Accept: text/csv` or `?format=csv`). Strong ETag; honors If-None-Match; gzip when asked. Statements never change once calculated: `Cache-Control: immutable`.',
  tags: ['scenarios'],
  params: IdParams('scenario'),
  notFound: 'no scenario has this id',
  query: StatementsQuery,
  headers: Type.Object({
    'If-None-Match': Type.Optional(Type.String({ description: 'An ETag from an earlier answer: 304 if unchanged.' })),
  }),
  responses: {
    200: {
      description: 'The statements, or one year of their hourly arrays (`?year`).',
      json: [ScenarioResult, HourlyYear],
      media: ['text/csv'],
      headers: { ETag: 'A strong validator of this representation.' },
    },
    304: { description: 'Not modified (If-None-Match matched the ETag).' },
    400: problem('An unknown query parameter or a bad value.'),
    404: problem('No such scenario.'),
    409: problem(
      'Not calculated yet (queued or running), the calculation failed (the error is included), or a sweep variant kept no hourly data (`hourly: "not_kept"`; `?hourly=false` works, and re-posting its inputs recomputes the same hourly data).',
    ),
  },
  async handle({ params, query, headers, ws, req, res }, { answers }) {
    const id = params.id;
    const variant = chooseVariant(req, query);
    const gzip = acceptsGzip(req.get('Accept-Encoding'));
    // The ETag names the representation: which variant, and whether it is gzip-encoded.
    const tag = (etag: string) => `"${etag}${variant.suffix}${gzip ? '-gz' : ''}"`;
    res.setHeader('Vary', 'Accept, Accept-Encoding');
    const ifNoneMatch = headers['If-None-Match'];
    if (ifNoneMatch) {
      const etag = await findResultEtag(ws, id);
      if (etag && etagMatches(ifNoneMatch, tag(etag))) {
        res.setHeader('ETag', tag(etag));
        res.setHeader('Cache-Control', IMMUTABLE);
        res.status(304).end();
        return;
      }
    }
    const ok = (etag: string) => {
      res.status(200);
      res.setHeader('ETag', tag(etag));
      res.setHeader('Cache-Control', IMMUTABLE);
      res.type(variant.type);
    };
    let stored: Awaited<ReturnType<typeof storedStatements>> | undefined;
    if (variant === FULL && answers.enabled) {
      // The row's state and the stored form's first bytes: a kept answer needs no more of it. The
      // scenario's row is read first whatever the cache holds, so a deleted one is a 404 here.
      const head = await storedStatements(ws, id, variant, HEAD_BYTES);
      if (isStoredForm(head.bytes)) {
        const found = answers.find(AnswerCache.key(id, head.etag));
        if (found) {
          ok(head.etag);
          await sendAnswer(res, found, gzip);
          return;
        }
        stored = await storedStatements(ws, id, variant);
        if (isStoredForm(stored.bytes)) {
          const form = parseStoredForm(stored.bytes);
          ok(stored.etag);
          await sendAnswer(
            res,
            answers.obtain(AnswerCache.key(id, stored.etag), () => gzipPieces(form)),
            gzip,
          );
          return;
        }
      }
    }
    stored ??= await storedStatements(ws, id, variant);
    ok(stored.etag);
    if (variant.year !== undefined) {
      const body = Buffer.from(JSON.stringify(await hourlyYear(stored.bytes, id, stored.start_year, variant.year)));
      await sendMaybeGzip(res, body, gzip);
    } else if (variant === CSV) {
      res.setHeader('Content-Disposition', `attachment; filename="scenario-${id}-hourly.csv"`);
      await sendCsv(res, stored.bytes, stored.start_year, stored.timezone_offset_hours, gzip);
    } else if (variant === FULL && isStoredForm(stored.bytes)) {
      await sendStoredForm(res, parseStoredForm(stored.bytes), gzip);
    } else if (gzip) {
      res.setHeader('Content-Encoding', 'gzip');
      res.end(stored.bytes);
    } else {
      res.end(await gunzipAsync(stored.bytes));
    }
  },
});

async function sendMaybeGzip(res: Response, body: Buffer, gzip: boolean): Promise<void> {
  if (!gzip) {
    res.end(body);
    return;
  }
  res.setHeader('Content-Encoding', 'gzip');
  res.end(await gzipAsync(body, { level: 4 }));
}

export const statementRoutes: readonly AnyRoute[] = [getStatements];

/**
 * The full answer made from the stored form as it is sent: a series at a time (~5–10 ms each, one
 * write), and the event loop gets a turn after each, so a 25-year result does not hold up other
 * requests for the whole of its making; a slow client pauses it (backpressure). A CPU profile of
 * the web found a write a row (160) costing more than a third of the making: 14 % in writev.
 */
async function sendStoredForm(res: Response, form: StoredForm, gzip: boolean): Promise<void> {
  const sink = fullAnswerSink(res, gzip);
  for (const piece of gzipPieces(form)) {
    if (res.destroyed) return;
    if (!sink.write(piece)) await drainedOrClosed(sink, res);
    else if (piece.length >= SERIES_PIECE) await new Promise(setImmediate);
  }
  sink.end();
}

/**
 * Where a full answer's gzip pieces go: the response, gzip-encoded; or, for a client that does not
 * accept gzip (rare: ~10–25 MB of JSON), an inflater on the way to it.
 */
function fullAnswerSink(res: Response, gzip: boolean): NodeJS.WritableStream {
  if (gzip) {
    res.setHeader('Content-Encoding', 'gzip');
    return res;
  }
  const gunzipper = createGunzip();
  gunzipper.pipe(res);
  return gunzipper;
}

/**
 * A full answer from the web's cache (server/answer.cache.ts): kept bytes, sent whole with their
 * length; or a build under way, its pieces sent as they are made, each reader at its own pace.
 */
async function sendAnswer(res: Response, found: Lookup, gzip: boolean): Promise<void> {
  if ('bytes' in found) {
    if (gzip) res.setHeader('Content-Length', found.bytes.length);
    fullAnswerSink(res, gzip).end(found.bytes);
    return;
  }
  const build = found.build;
  build.readers++;
  try {
    const sink = fullAnswerSink(res, gzip);
    let sent = 0;
    for (;;) {
      if (res.destroyed) return;
      if (sent < build.pieces.length) {
        if (!sink.write(build.pieces[sent++])) await drainedOrClosed(sink, res);
      } else if (build.done) break;
      else if (build.stopped) {
        // The making failed (a build stops for want of readers only when none is left): cut short.
        res.destroy(build.error instanceof Error ? build.error : new Error('the answer was not made'));
        return;
      } else await build.next();
    }
    sink.end();
  } finally {
    build.readers--;
  }
}

/** Until `sink` can take more, or the response is closed (a client gone never drains). */
function drainedOrClosed(sink: NodeJS.WritableStream, res: Response): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      sink.removeListener('drain', done);
      res.removeListener('close', done);
      resolve();
    };
    sink.once('drain', done);
    res.once('close', done);
  });
}

async function hourlyArrays(stored: Buffer, year?: number): Promise<StoredHourly> {
  if (isStoredForm(stored)) return storedHourly(parseStoredForm(stored), year);
  return JSON.parse((await gunzipAsync(stored)).toString('utf8'));
}

async function sendCsv(res: Response, stored: Buffer, startYear: number, tz: number, gzip: boolean): Promise<void> {
  const hourly = await hourlyArrays(stored);
  const sink = gzip ? createGzip({ level: 4 }) : res;
  if (gzip) {
    res.setHeader('Content-Encoding', 'gzip');
    (sink as ReturnType<typeof createGzip>).pipe(res);
  }
  for (const chunk of csvChunks(hourly, startYear, tz)) {
    if (res.destroyed) return;
    if (!sink.write(chunk)) await new Promise((r) => sink.once('drain', r));
  }
  sink.end();
}

/** One year of the stored hourly arrays. */
async function hourlyYear(stored: Buffer, id: string, startYear: number, year: number): Promise<HourlyYear> {
  const hourly = await hourlyArrays(stored, year);
  // Each stored series' year, in the registry's order (shared/hourly.series.ts).
  const series = HOURLY_NAMES.flatMap((n) => {
    const row = hourly[n]?.[year - 1];
    return hourly[n] ? [[n, row && Array.from(row)] as const] : [];
  });
  return {
    scenario_id: id,
    year,
    calendar_year: startYear + year - 1,
    hours_per_year: HOURS_PER_YEAR,
    ...(Object.fromEntries(series) as Omit<HourlyYear, 'scenario_id' | 'year' | 'calendar_year' | 'hours_per_year'>),
  };
}
