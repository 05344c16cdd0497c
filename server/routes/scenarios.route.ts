// POST /api/scenarios, GET /api/scenarios (server/scenarios.list.ts), GET /api/scenarios/{id}.
import { createHash } from 'node:crypto';
import express, { type Router as ExpressRouter, type Request, type Response, Router } from 'express';
import type { ScenarioRow } from '../../shared/db.ts';
import { resolveInputs } from '../../shared/inputs.resolve.ts';
import { findByIdempotencyKey, findScenario } from '../../shared/scenarios.repository.ts';
import { uuidv7 } from '../../shared/uuid.ts';
import type { AppDeps } from '../deps.ts';
import { allowQuery, methodNotAllowed, scenarioId } from '../http.ts';
import { HttpProblem } from '../problem.ts';
import { scenarioPath, toScenario } from '../scenario.view.ts';
import { createQueuedScenario } from '../scenarios.create.ts';
import { LIST_PARAMS, parseListQuery, sendPage, streamAll } from '../scenarios.list.ts';
import { validateScenario } from '../validate.ts';

function requireJson(req: Request): void {
  const type = req.headers['content-type'];
  if (!type || !req.is(['application/json', 'application/*+json'])) {
    throw new HttpProblem('unsupported_media_type', 'send the scenario as Content-Type: application/json', {
      headers: { 'Accept-Post': 'application/json' },
    });
  }
}

function idempotencyKey(req: Request): string | null {
  const key = req.get('Idempotency-Key');
  if (key === undefined) return null;
  if (key.length < 1 || key.length > 255 || !/^[\x21-\x7e]+$/.test(key)) {
    throw new HttpProblem('bad_request', 'Idempotency-Key must be 1–255 visible ASCII characters', {
      errors: [{ path: 'header:Idempotency-Key', message: 'must be 1–255 visible ASCII characters' }],
    });
  }
  return key;
}

const isUniqueViolation = (err: unknown) => (err as { code?: string })?.code === '23505';

export function scenarioRoutes(deps: AppDeps): ExpressRouter {
  const { db, pool, createsPool, boss, config } = deps;
  const router = Router();
  const json = express.json({ limit: config.bodyLimitBytes, type: () => true, strict: false });

  async function replay(res: Response, key: string, hash: string): Promise<boolean> {
    const existing = await findByIdempotencyKey(db, key);
    if (!existing) return false;
    if (existing.request_hash !== hash) {
      throw new HttpProblem('conflict', 'this Idempotency-Key was used with a different request body', {
        errors: [{ path: 'header:Idempotency-Key', message: 'already used with a different body' }],
      });
    }
    res.status(201).location(scenarioPath(existing.id)).setHeader('Idempotent-Replayed', 'true');
    res.json(toScenario(existing));
    return true;
  }

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
    res.json(toScenario(row));
  }

  router.route('/api/scenarios').get(list).post(requireJsonMw, json, create).all(methodNotAllowed('GET', 'POST'));
  router.route('/api/scenarios/:id').get(show).all(methodNotAllowed('GET'));
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
