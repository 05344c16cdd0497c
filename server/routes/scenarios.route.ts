// POST /api/scenarios, GET /api/scenarios (server/scenarios.list.ts), GET /api/scenarios/{id},
// POST /api/scenarios/{id}/cancel.
import { createHash } from 'node:crypto';
import { Type } from '@sinclair/typebox';
import { deleteScenario } from '../../shared/deletion.repository.ts';
import { uuidv7 } from '../../shared/ids.ts';
import { resolveInputs } from '../../shared/inputs.resolve.ts';
import { SCENARIO_STATUSES as STATUSES } from '../../shared/lifecycle.ts';
import { slotsOf } from '../../shared/resources.refs.ts';
import { findScenario } from '../../shared/scenarios.repository.ts';
import { copyJson } from '../../shared/schema.defaults.ts';
import { ScenarioInputs } from '../../shared/schemas/inputs.ts';
import { Scenario, ScenarioList, ScenarioPage } from '../../shared/schemas/scenario.ts';
import { validateScenario } from '../../shared/validate.ts';
import { etagMatches, IdempotentCreate } from '../http.ts';
import { CreateLibrary, referencedIds, withResourcesKept } from '../library.inputs.ts';
import { HttpProblem, invalidRequest } from '../problem.ts';
import { Cursor, createReplies, decodeCursor, IdempotencyHeaders, pageLimit, problem } from '../route.common.ts';
import { type AnyRoute, defineRoute, IdParams, type RouteDeps } from '../route.ts';
import { scenarioPath, toScenario } from '../scenario.view.ts';
import { createQueuedScenario } from '../scenarios.create.ts';
import { MAX_PAGE, sendPage, streamAll } from '../scenarios.list.ts';
import { cancelQueued, findByIdempotencyKey, findStreamState } from '../scenarios.repository.ts';

const NO_SUCH_SCENARIO = 'no scenario has this id';
const statusList = `(${STATUSES.join('|')})`;

const createScenario = defineRoute({
  method: 'post',
  path: '/api/scenarios',
  operationId: 'createScenario',
  summary: 'Create a scenario and queue its calculation',
  tags: ['scenarios'],
  headers: IdempotencyHeaders,
  body: {
    schema: ScenarioInputs,
    name: 'ScenarioRequest',
    validator: validateScenario,
    description: 'The inputs; every field with a default may be left out (the answer shows them filled in).',
    example: { name: 'Amarillo hybrid', site: { latitude: 35.2, longitude: -101.8 } },
  },
  responses: createReplies(
    { description: 'Created and queued. `Location` names the scenario.', json: Scenario },
    'Malformed JSON, or the body does not match the schema (every failing field is listed).',
  ),
  async handle({ headers, body, ws, req, res }, deps) {
    const create = new IdempotentCreate(req, res, headers['Idempotency-Key'], {
      find: (key) => findByIdempotencyKey(ws, key),
      answer: (s) => ({ location: scenarioPath(s.id), body: toScenario(s) }),
    });
    if (await create.replay()) return;
    // Inline files become library references; references are checked in the caller's workspace
    // (the request validated again as it came, with the library: a rule may ask what the client wrote).
    let inputsOf = body;
    let library: CreateLibrary | null = null;
    if (slotsOf(body).length > 0) {
      const raw = copyJson(req.body);
      library = await CreateLibrary.prepare(ws, [raw]);
      const checked = validateScenario(raw, library);
      if (!checked.ok) throw invalidRequest('inputs', checked.errors);
      inputsOf = checked.value;
    }
    await deps.quotas.admit(ws.workspace, 1);
    const id = uuidv7();
    const inputs = resolveInputs(inputsOf, { scenarioId: id, now: new Date() });
    const resources = library ? referencedIds(inputs, await library.commit(ws)) : [];
    const created = await create.insert(() =>
      withResourcesKept(() =>
        createQueuedScenario(ws, deps.boss, deps.config, {
          id,
          name: inputs.name,
          inputs,
          idempotencyKey: create.key,
          requestHash: create.hash,
          resources,
        }),
      ),
    );
    if (created) res.status(201).location(scenarioPath(id)).json(toScenario(created.value));
  },
});

const ListQuery = Type.Object({
  limit: Type.Optional(pageLimit(MAX_PAGE)),
  cursor: Type.Optional(Type.String({ ...Cursor, description: "The previous page's next_cursor (needs limit)." })),
  status: Type.Optional(
    Type.String({
      pattern: `^${statusList}(,${statusList})*$`,
      description: 'Only these statuses, comma-separated.',
      errorMessage: `must be one or more of ${STATUSES.join(', ')}, separated by commas`,
    }),
  ),
  sweep_id: Type.Optional(
    Type.Union([Type.String({ format: 'uuid' }), Type.Literal('none')], {
      description: "Only this sweep's variants; `none`: only single scenarios (outside any sweep or optimization).",
      errorMessage: 'must be a UUID, or none (only single scenarios: no sweep variant, no optimization evaluation)',
    }),
  ),
  q: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 200,
      pattern: '^[^\\u0000]*$',
      description: 'Only names containing this text (case-insensitive).',
      errorMessage: 'must be 1–200 characters (no NUL)',
    }),
  ),
});

const listScenarios = defineRoute({
  method: 'get',
  path: '/api/scenarios',
  operationId: 'listScenarios',
  summary: 'List scenarios, newest first: all of them (streamed), or a page',
  description:
    'Without `limit`: every matching scenario, streamed, with `total`. With `limit`: one page and `next_cursor` (also as a `Link: <…>; rel="next"` header); pages are keyset pages on the id, so they neither skip nor repeat a row while the list changes.',
  tags: ['scenarios'],
  query: ListQuery,
  responses: {
    200: {
      description: 'Scenarios without their inputs: a ScenarioList without `limit`, a ScenarioPage with it.',
      json: [ScenarioList, ScenarioPage],
      headers: { Link: 'rel="next": the next page (paged answers only).' },
    },
    400: problem('A bad or unknown query parameter (named in errors).'),
  },
  async handle({ query, ws, res }, _deps) {
    if (query.cursor !== undefined && query.limit === undefined) {
      throw new HttpProblem('bad_request', '?cursor needs ?limit', {
        errors: [{ path: '?cursor', message: 'needs ?limit (a cursor names a page)' }],
      });
    }
    const list = {
      limit: query.limit ?? null,
      after: query.cursor !== undefined ? decodeCursor(query.cursor) : null,
      statuses: query.status?.split(',') ?? null,
      sweepId: query.sweep_id?.toLowerCase() ?? null,
      q: query.q ?? null,
    };
    if (list.limit === null) await streamAll(ws, res, list);
    else await sendPage(ws, res, { ...list, limit: list.limit }, query);
  },
});

const getScenario = defineRoute({
  method: 'get',
  path: '/api/scenarios/{id}',
  operationId: 'getScenario',
  summary: 'Read a scenario',
  tags: ['scenarios'],
  params: IdParams('scenario'),
  notFound: NO_SUCH_SCENARIO,
  headers: Type.Object({
    'If-None-Match': Type.Optional(Type.String({ description: 'An ETag from an earlier answer: 304 if unchanged.' })),
  }),
  responses: {
    200: { description: 'The scenario.', json: Scenario, headers: { ETag: 'Changes whenever the scenario does.' } },
    304: { description: 'Not modified.' },
    404: problem('No such scenario.'),
  },
  async handle({ params, headers, ws, res }, _deps) {
    const row = await findScenario(ws, params.id);
    if (!row) throw new HttpProblem('not_found', NO_SUCH_SCENARIO);
    // A scenario changes while it runs: the ETag is the body's hash, and a client revalidates.
    const body = JSON.stringify(toScenario(row));
    const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
    res.setHeader('ETag', etag);
    res.setHeader('Cache-Control', 'private, no-cache');
    if (etagMatches(headers['If-None-Match'], etag)) {
      res.status(304).end();
      return;
    }
    res.type('application/json').send(body);
  },
});

const cancelScenario = defineRoute({
  method: 'post',
  path: '/api/scenarios/{id}/cancel',
  operationId: 'cancelScenario',
  summary: 'Cancel a queued scenario (a running one is let finish)',
  tags: ['scenarios'],
  params: IdParams('scenario'),
  notFound: NO_SUCH_SCENARIO,
  responses: {
    200: { description: 'The scenario, now cancelled.', json: Scenario },
    404: problem('No such scenario.'),
    409: problem('The scenario is running (it will finish) or has finished: nothing to cancel.'),
  },
  async handle({ params, ws, res }, deps: RouteDeps) {
    // Another workspace's scenario is not cancelled (the cancel is the workspace's), and not found.
    const cancelled = await cancelQueued(ws, deps.boss, { scenarioId: params.id });
    if (cancelled.length === 0) {
      // Why not: its status only, not its inputs.
      const state = await findStreamState(ws, params.id);
      if (!state) throw new HttpProblem('not_found', NO_SUCH_SCENARIO);
      throw new HttpProblem(
        'conflict',
        state.status === 'running'
          ? 'the scenario is running: it is let finish, not cancelled'
          : `the scenario is ${state.status}: nothing to cancel`,
        { extra: { scenario_status: state.status } },
      );
    }
    const row = await findScenario(ws, params.id);
    if (!row) throw new HttpProblem('not_found', NO_SUCH_SCENARIO);
    res.json(toScenario(row));
  },
});

const deleteScenarioRoute = defineRoute({
  method: 'delete',
  path: '/api/scenarios/{id}',
  operationId: 'deleteScenario',
  summary: 'Delete a scenario with its events, result and job',
  description:
    "Cancels it if queued; a worker calculating it writes nothing. In one transaction the scenario, its events, its result and its job are removed; open event streams end with a `deleted` event. Then the scenario is answered 404. A sweep's variant or an optimization's evaluation is deleted with its parent: 409 naming it.",
  tags: ['scenarios'],
  params: IdParams('scenario'),
  notFound: NO_SUCH_SCENARIO,
  responses: {
    204: { description: 'Deleted.' },
    404: problem('No such scenario.'),
    409: problem("A sweep's variant or an optimization's evaluation: delete its parent."),
  },
  async handle({ params, ws, res }, deps) {
    const outcome = await deleteScenario(ws, deps.boss, params.id);
    if (outcome.deleted) {
      res.status(204).end();
      return;
    }
    if (!outcome.variantOf) throw new HttpProblem('not_found', NO_SUCH_SCENARIO);
    const { kind, id } = outcome.variantOf;
    const noun = kind === 'sweep' ? 'a variant of sweep' : 'an evaluation of optimization';
    throw new HttpProblem('conflict', `this scenario is ${noun} ${id}: delete /api/${kind}s/${id} instead`, {
      extra: { [`${kind}_id`]: id },
    });
  },
});

export const scenarioRoutes: readonly AnyRoute[] = [
  createScenario,
  listScenarios,
  getScenario,
  cancelScenario,
  deleteScenarioRoute,
];
