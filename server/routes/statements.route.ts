// GET /api/scenarios/{id}/statements: the stored result, served as stored bytes.
// JSON is stored gzip-compressed; a client that accepts gzip gets those bytes untouched.

import { promisify } from 'node:util';
import { createGzip, gunzip, gzip as gzipCallback } from 'node:zlib';
import { type Router as ExpressRouter, type Request, type Response, Router } from 'express';
import { findResultEtag, findStatements, type ResultPart } from '../../shared/results.repository.ts';
import { HourlyYear, ScenarioResult, YEARS } from '../../shared/schemas/result.ts';
import type { AppDeps } from '../deps.ts';
import { acceptsGzip, allowQuery, etagMatches, methodNotAllowed, scenarioId } from '../http.ts';
import { idParam, oneOfJson, problem, type RouteDoc } from '../openapi.parts.ts';
import { HttpProblem } from '../problem.ts';
import { csvChunks, type StorageSeries } from '../statements.csv.ts';

const gunzipAsync = promisify(gunzip);
const gzipAsync = promisify(gzipCallback);

type Variant = { part: ResultPart; suffix: string; type: string; year?: number };
const FULL: Variant = { part: 'statements_gzip', suffix: '', type: 'application/json' };
const LITE: Variant = { part: 'statements_lite_gzip', suffix: '-lite', type: 'application/json' };
const CSV: Variant = { part: 'statements_gzip', suffix: '-csv', type: 'text/csv; charset=utf-8' };

function chooseVariant(req: Request): Variant {
  const { format, hourly, year } = req.query;
  if (year !== undefined) {
    if (typeof year !== 'string' || !/^\d{1,2}$/.test(year) || Number(year) < 1 || Number(year) > YEARS) {
      throw new HttpProblem('bad_request', `year must be an operating year from 1 to ${YEARS}`, {
        errors: [{ path: '?year', message: `must be an integer from 1 to ${YEARS}` }],
      });
    }
    if (hourly === 'false' || format === 'csv') {
      throw new HttpProblem('bad_request', '?year is one year of the hourly arrays, as JSON', {
        errors: [{ path: '?year', message: 'cannot be combined with hourly=false or format=csv' }],
      });
    }
    return { part: 'statements_gzip', suffix: `-y${Number(year)}`, type: 'application/json', year: Number(year) };
  }
  if (format !== undefined && format !== 'json' && format !== 'csv') {
    throw new HttpProblem('bad_request', 'format must be json or csv', {
      errors: [{ path: '?format', message: 'must be "json" or "csv"' }],
    });
  }
  if (hourly !== undefined && hourly !== 'true' && hourly !== 'false') {
    throw new HttpProblem('bad_request', 'hourly must be true or false', {
      errors: [{ path: '?hourly', message: 'must be "true" or "false"' }],
    });
  }
  const wantsCsv =
    format === 'csv' || (format === undefined && req.accepts(['application/json', 'text/csv']) === 'text/csv');
  if (wantsCsv) return CSV;
  return hourly === 'false' ? LITE : FULL;
}

// Finished statements never change (invariant 5): a client may keep them for good. private: with
// API_KEYS, a shared cache must not hand one client's answer to another.
const IMMUTABLE = 'private, max-age=31536000, immutable';

export const statementsDoc: RouteDoc = {
  schemas: { ScenarioResult, HourlyYear },
  paths: {
    '/api/scenarios/{id}/statements': {
      get: {
        operationId: 'getStatements',
        summary: 'Read the calculated statements',
        description:
          'JSON with hourly arrays (25 × 8760 per technology), `?hourly=false` without them, or the hourly data as CSV (`Accept: text/csv` or `?format=csv`). Strong ETag; honors If-None-Match; gzip when asked. Statements never change once calculated: `Cache-Control: immutable`.',
        tags: ['scenarios'],
        parameters: [
          idParam('The scenario id (UUID).'),
          {
            name: 'hourly',
            in: 'query',
            required: false,
            description: 'false: without the hourly arrays.',
            schema: { type: 'boolean', default: true },
          },
          {
            name: 'year',
            in: 'query',
            required: false,
            description:
              'One operating year (1–25) of the hourly arrays only, as an HourlyYear object (~30 kB gzip instead of ~0.85 MB): what a chart of one year needs.',
            schema: { type: 'integer', minimum: 1, maximum: YEARS },
          },
          {
            name: 'format',
            in: 'query',
            required: false,
            description: 'csv: the hourly data as CSV (year,hour,timestamp,solar_mwh,wind_mwh).',
            schema: { type: 'string', enum: ['json', 'csv'] },
          },
        ],
        responses: {
          200: oneOfJson(
            'The statements, or one year of their hourly arrays (`?year`).',
            { name: 'ETag', description: 'A strong validator of this representation.' },
            ['ScenarioResult', 'HourlyYear'],
            { 'text/csv': { schema: { type: 'string' } } },
          ),
          304: { description: 'Not modified (If-None-Match matched the ETag).' },
          400: problem('An unknown query parameter or a bad value.'),
          404: problem('No such scenario.'),
          409: problem(
            'Not calculated yet (queued or running), the calculation failed (the error is included), or a sweep variant kept no hourly data (`hourly: "not_kept"`; `?hourly=false` works, and re-posting its inputs recomputes the same hourly data).',
          ),
        },
      },
    },
  },
};

export function statementRoutes(deps: AppDeps): ExpressRouter {
  const { db, pool } = deps;
  const router = Router();

  async function statements(req: Request, res: Response): Promise<void> {
    allowQuery(req.query, ['hourly', 'format', 'year']);
    const id = scenarioId(req.params.id);
    const variant = chooseVariant(req);
    const gzip = acceptsGzip(req.get('Accept-Encoding'));
    // The ETag names the representation: which variant, and whether it is gzip-encoded.
    const tag = (etag: string) => `"${etag}${variant.suffix}${gzip ? '-gz' : ''}"`;
    res.setHeader('Vary', 'Accept, Accept-Encoding');

    const ifNoneMatch = req.get('If-None-Match');
    if (ifNoneMatch) {
      const etag = await findResultEtag(db, id);
      if (etag && etagMatches(ifNoneMatch, tag(etag))) {
        res.setHeader('ETag', tag(etag));
        res.setHeader('Cache-Control', IMMUTABLE);
        res.status(304).end();
        return;
      }
    }

    const state = await findStatements(pool, id, variant.part);
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
    const stored = { etag: state.etag, bytes: state.bytes };

    res.status(200);
    res.setHeader('ETag', tag(stored.etag));
    res.setHeader('Cache-Control', IMMUTABLE);
    res.type(variant.type);
    if (variant.year !== undefined) {
      const body = Buffer.from(JSON.stringify(await hourlyYear(stored.bytes, id, state.start_year, variant.year)));
      if (gzip) {
        res.setHeader('Content-Encoding', 'gzip');
        res.end(await gzipAsync(body, { level: 4 }));
      } else res.end(body);
      return;
    }
    if (variant === CSV) {
      res.setHeader('Content-Disposition', `attachment; filename="scenario-${id}-hourly.csv"`);
      await sendCsv(res, stored.bytes, state.start_year, state.timezone_offset_hours, gzip);
      return;
    }
    if (gzip) {
      res.setHeader('Content-Encoding', 'gzip');
      res.end(stored.bytes);
    } else {
      res.end(await gunzipAsync(stored.bytes));
    }
  }

  router.route('/api/scenarios/:id/statements').get(statements).all(methodNotAllowed('GET'));
  return router;
}

/** The stored statements' hourly arrays (year × hour); the battery's four only with a battery. */
interface StoredHourly {
  solar_hourly: number[][];
  wind_hourly: number[][];
  storage_charge_hourly?: number[][];
  storage_discharge_hourly?: number[][];
  storage_soc_hourly?: number[][];
  grid_hourly?: number[][];
}

async function hourlyArrays(statementsGzip: Buffer): Promise<StoredHourly> {
  return JSON.parse((await gunzipAsync(statementsGzip)).toString('utf8'));
}

/** The battery's series in the CSV's column order, or undefined without a battery. */
function storageSeries(h: StoredHourly): StorageSeries | undefined {
  const { storage_charge_hourly: c, storage_discharge_hourly: d, storage_soc_hourly: s, grid_hourly: g } = h;
  return c && d && s && g ? [c, d, s, g] : undefined;
}

async function sendCsv(
  res: Response,
  statementsGzip: Buffer,
  startYear: number,
  tz: number,
  gzip: boolean,
): Promise<void> {
  const hourly = await hourlyArrays(statementsGzip);
  const sink = gzip ? createGzip({ level: 4 }) : res;
  if (gzip) {
    res.setHeader('Content-Encoding', 'gzip');
    (sink as ReturnType<typeof createGzip>).pipe(res);
  }
  for (const chunk of csvChunks(hourly.solar_hourly, hourly.wind_hourly, startYear, tz, storageSeries(hourly))) {
    if (res.destroyed) return;
    if (!sink.write(chunk)) await new Promise((r) => sink.once('drain', r));
  }
  sink.end();
}

/** One year of the stored hourly arrays. */
async function hourlyYear(statementsGzip: Buffer, id: string, startYear: number, year: number): Promise<HourlyYear> {
  const hourly = await hourlyArrays(statementsGzip);
  const storage = storageSeries(hourly);
  return {
    scenario_id: id,
    year,
    calendar_year: startYear + year - 1,
    hours_per_year: 8760,
    solar_hourly: hourly.solar_hourly[year - 1],
    wind_hourly: hourly.wind_hourly[year - 1],
    ...(storage
      ? {
          storage_charge_hourly: storage[0][year - 1],
          storage_discharge_hourly: storage[1][year - 1],
          storage_soc_hourly: storage[2][year - 1],
          grid_hourly: storage[3][year - 1],
        }
      : {}),
  };
}
