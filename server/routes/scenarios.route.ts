// POST /api/scenarios, GET /api/scenarios (server/scenarios.list.ts), GET /api/scenarios/{id}.
import { createHash } from 'node:crypto';
import express, { type Router as ExpressRouter, type Request, type Response, Router } from 'express';
import type { ScenarioRow } from '../../shared/db.ts';
import { uuidv7 } from '../../shared/ids.ts';
import { resolveInputs } from '../../shared/inputs.resolve.ts';
import { SCENARIO_STATUSES as STATUSES } from '../../shared/lifecycle.ts';
import { findScenario } from '../../shared/scenarios.repository.ts';
import { ScenarioInputs } from '../../shared/schemas/inputs.ts';
import { Scenario, ScenarioList, ScenarioPage } from '../../shared/schemas/scenario.ts';
import type { AppDeps } from '../deps.ts';
import {
  allowQuery,
  etagMatches,
  idempotencyKey,
  methodNotAllowed,
  replayCreate,
  requireJson,
  scenarioId,
} from '../http.ts';
import { created, createResponses, idParam, json, oneOfJson, problem, type RouteDoc } from '../openapi.parts.ts';
import { HttpProblem } from '../problem.ts';
import { scenarioPath, toScenario } from '../scenario.view.ts';
import { createQueuedScenario } from '../scenarios.create.ts';
import { LIST_PARAMS, MAX_PAGE, parseListQuery, sendPage, streamAll } from '../scenarios.list.ts';
import { cancelQueued, findByIdempotencyKey } from '../scenarios.repository.ts';
import { validateScenario } from '../validate.ts';

const query = (name: string, description: string, schema: Record<string, unknown>) => ({
  name,
  in: 'query' as const,
  required: false,
  description,
  schema,
});

export const scenariosDoc: RouteDoc = {
  schemas: { ScenarioInputs, Scenario, ScenarioList, ScenarioPage },
  requestSchemas: { ScenarioRequest: ScenarioInputs },
  paths: {
    '/api/scenarios': {
      post: {
        operationId: 'createScenario',
        summary: 'Create a scenario and queue its calculation',
        tags: ['scenarios'],
        parameters: [
          {
            name: 'Idempotency-Key',
            in: 'header',
            required: false,
            description: 'Repeat a create safely: the same key and body return the first scenario.',
            schema: { type: 'string', minLength: 1, maxLength: 255 },
          },
        ],
        requestBody: {
          required: true,
          description: 'The inputs; every field with a default may be left out (the answer shows them filled in).',
          content: {
            'application/json': {
              schema: { $ref: '#/components/schemas/ScenarioRequest' },
              example: { name: 'Amarillo hybrid', site: { latitude: 35.2, longitude: -101.8 } },
            },
          },
        },
        responses: createResponses(
          created('Created and queued. `Location` names the scenario.', 'The new scenario.', 'Scenario'),
          'Malformed JSON, or the body does not match the schema (every failing field is listed).',
        ),
      },
      get: {
        operationId: 'listScenarios',
        summary: 'List scenarios, newest first: all of them (streamed), or a page',
        description:
          'Without `limit`: every matching scenario, streamed, with `total`. With `limit`: one page and `next_cursor` (also as a `Link: <…>; rel="next"` header); pages are keyset pages on the id, so they neither skip nor repeat a row while the list changes.',
        tags: ['scenarios'],
        parameters: [
          query('limit', 'Page size.', { type: 'integer', minimum: 1, maximum: MAX_PAGE }),
          query('cursor', "The previous page's next_cursor (needs limit).", { type: 'string' }),
          query('status', 'Only these statuses, comma-separated.', {
            type: 'string',
            pattern: `^(${STATUSES.join('|')})(,(${STATUSES.join('|')}))*$`,
          }),
          query('sweep_id', "Only this sweep's variants; `none`: only scenarios outside any sweep.", {
            anyOf: [
              { type: 'string', format: 'uuid' },
              { type: 'string', enum: ['none'] },
            ],
          }),
          query('q', 'Only names containing this text (case-insensitive).', {
            type: 'string',
            minLength: 1,
            maxLength: 200,
          }),
        ],
        responses: {
          200: oneOfJson(
            'Scenarios without their inputs: a ScenarioList without `limit`, a ScenarioPage with it.',
            { name: 'Link', description: 'rel="next": the next page (paged answers only).' },
            ['ScenarioList', 'ScenarioPage'],
          ),
          400: problem('A bad or unknown query parameter (named in errors).'),
        },
      },
    },
    '/api/scenarios/{id}/cancel': {
      post: {
        operationId: 'cancelScenario',
        summary: 'Cancel a queued scenario (a running one is let finish)',
        tags: ['scenarios'],
        parameters: [idParam('The scenario id (UUID).')],
        responses: {
          200: json('The scenario, now cancelled.', 'Scenario'),
          404: problem('No such scenario.'),
          409: problem('The scenario is running (it will finish) or has finished: nothing to cancel.'),
        },
      },
    },
    '/api/scenarios/{id}': {
      get: {
        operationId: 'getScenario',
        summary: 'Read a scenario',
        tags: ['scenarios'],
        parameters: [
          idParam('The scenario id (UUID).'),
          {
            name: 'If-None-Match',
            in: 'header',
            required: false,
            description: 'An ETag from an earlier answer: 304 if unchanged.',
            schema: { type: 'string' },
          },
        ],
        responses: {
          200: {
            ...json('The scenario.', 'Scenario'),
            headers: { ETag: { description: 'Changes whenever the scenario does.', schema: { type: 'string' } } },
          },
          304: { description: 'Not modified.' },
          404: problem('No such scenario.'),
        },
      },
    },
  },
};

const isUniqueViolation = (err: unknown) => (err as { code?: string })?.code === '23505';

export function scenarioRoutes(deps: AppDeps): ExpressRouter {
  const { db, pool, createsPool, boss, config } = deps;
  const router = Router();
  const json = express.json({ limit: config.bodyLimitBytes, type: () => true, strict: false });

  const replay = async (res: Response, key: string, hash: string) =>
    replayCreate(res, await findByIdempotencyKey(db, key), hash, (s) => ({
      location: scenarioPath(s.id),
      body: toScenario(s),
    }));

  async function create(req: Request, res: Response): Promise<void> {
    allowQuery(req.query, []);
    const key = idempotencyKey(req);
    // Validation first: only a body known to be sane (not nested too deep to stringify) is hashed,
    // and a body that was never accepted has nothing to replay.
    const result = validateScenario(req.body);
    if (!result.ok) {
      throw new HttpProblem('validation', `${result.errors.length} field(s) failed validation`, {
        errors: result.errors,
      });
    }
    const hash = key
      ? createHash('sha256')
          .update(JSON.stringify(req.body ?? null))
          .digest('hex')
      : null;
    if (key && hash && (await replay(res, key, hash))) return;
    const id = uuidv7();
    const inputs = resolveInputs(result.value, { scenarioId: id, now: new Date() });
    let row: ScenarioRow;
    try {
      row = await createQueuedScenario(createsPool, boss, config, {
        id,
        name: inputs.name,
        inputs,
        idempotencyKey: key,
        requestHash: hash,
      });
    } catch (err) {
      // Two requests raced with one Idempotency-Key: the loser answers with the winner's scenario.
      if (key && hash && isUniqueViolation(err) && (await replay(res, key, hash))) return;
      throw err;
    }
    res.status(201).location(scenarioPath(id)).json(toScenario(row));
  }

  async function list(req: Request, res: Response): Promise<void> {
    allowQuery(req.query, LIST_PARAMS);
    const query = parseListQuery(req.query);
    if (query.limit === null) await streamAll(pool, res, query);
    else await sendPage(pool, req, res, query);
  }

  async function show(req: Request, res: Response): Promise<void> {
    allowQuery(req.query, []);
    const row = await findScenario(db, scenarioId(req.params.id));
    if (!row) throw new HttpProblem('not_found', 'no scenario has this id');
    // A scenario changes while it runs: the ETag is the body's hash, and a client revalidates.
    const body = JSON.stringify(toScenario(row));
    const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
    res.setHeader('ETag', etag);
    res.setHeader('Cache-Control', 'private, no-cache');
    if (etagMatches(req.get('If-None-Match'), etag)) {
      res.status(304).end();
      return;
    }
    res.type('application/json').send(body);
  }

  router.route('/api/scenarios').get(list).post(requireJsonMw, json, create).all(methodNotAllowed('GET', 'POST'));
  async function cancel(req: Request, res: Response): Promise<void> {
    allowQuery(req.query, []);
    const id = scenarioId(req.params.id);
    const cancelled = await cancelQueued(pool, boss, { scenarioId: id });
    const row = await findScenario(db, id);
    if (!row) throw new HttpProblem('not_found', 'no scenario has this id');
    if (cancelled.length === 0) {
      throw new HttpProblem(
        'conflict',
        row.status === 'running'
          ? 'the scenario is running: it is let finish, not cancelled'
          : `the scenario is ${row.status}: nothing to cancel`,
        { extra: { scenario_status: row.status } },
      );
    }
    res.json(toScenario(row));
  }

  router.route('/api/scenarios/:id').get(show).all(methodNotAllowed('GET'));
  router.route('/api/scenarios/:id/cancel').post(cancel).all(methodNotAllowed('POST'));
  return router;

  function requireJsonMw(req: Request, _res: Response, next: (err?: unknown) => void) {
    try {
      requireJson(req);
      next();
    } catch (err) {
      next(err);
    }
  }
}
