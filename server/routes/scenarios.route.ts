// POST /api/scenarios, GET /api/scenarios, GET /api/scenarios/{id}.
import { createHash } from 'node:crypto';
import express, { type Router as ExpressRouter, type Request, type Response, Router } from 'express';
import type { ScenarioRow } from '../../shared/db.ts';
import { resolveInputs } from '../../shared/inputs.resolve.ts';
import { copyOut } from '../../shared/pg.copy.ts';
import { findByIdempotencyKey, findScenario, LIST_JSON_QUERY } from '../../shared/scenarios.repository.ts';
import { uuidv7 } from '../../shared/uuid.ts';
import type { AppDeps } from '../deps.ts';
import { allowQuery, methodNotAllowed, scenarioId } from '../http.ts';
import { HttpProblem } from '../problem.ts';
import { scenarioPath, toScenario } from '../scenario.view.ts';
import { createQueuedScenario } from '../scenarios.create.ts';
import { validateScenario } from '../validate.ts';

/** Bytes per write of the list. */
const LIST_CHUNK = 64 * 1024;
/** Bytes the list may queue for a slow client before the COPY is paused. */
const LIST_BUFFER_LIMIT = 1024 * 1024;
/** The longest a list may take, for clients that read slowly. */
const LIST_TIMEOUT_MS = 5 * 60 * 1000;

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

  /**
   * Streams every scenario, newest first, from one binary COPY (one snapshot): row bytes are copied
   * into 64 kB chunks and written as they come, and the COPY pauses while the client is behind, so
   * memory stays flat whatever the number of scenarios.
   */
  async function list(req: Request, res: Response): Promise<void> {
    allowQuery(req.query, []);
    const client = await pool.connect();
    let released = false;
    const release = (err?: Error) => {
      if (released) return;
      released = true;
      client.release(err);
    };
    try {
      // A slow client holds the COPY open: it gets LIST_TIMEOUT_MS, not the pool's statement timeout.
      await client.query('BEGIN READ ONLY');
      await client.query(`SET LOCAL statement_timeout = ${LIST_TIMEOUT_MS}`);
      res.status(200).type('application/json');
      // Chunks are reused once the socket has taken them, so a list allocates a bounded few.
      const spare: Buffer[] = [];
      const take = () => spare.pop() ?? Buffer.allocUnsafe(LIST_CHUNK);
      let chunk = take();
      chunk.write('{"items":[');
      let used = 10;
      let total = 0;
      let dropped = false;
      const flush = () => {
        if (used === 0 || dropped) return;
        const written = chunk;
        res.write(written.subarray(0, used), () => {
          if (written.length === LIST_CHUNK) spare.push(written);
        });
        chunk = take();
        used = 0;
        // Pausing at every full 16 kB socket buffer would stall Postgres on each chunk: allow a little more.
        if (res.writableLength >= LIST_BUFFER_LIMIT) {
          copy.pause();
          res.once('drain', () => copy.resume());
        }
      };
      // A client that went away: read the rest of the COPY and drop it (the connection stays usable).
      res.once('close', () => {
        if (!res.writableFinished) {
          dropped = true;
          copy.resume();
        }
      });
      const copy = copyOut(
        client,
        LIST_JSON_QUERY,
        ([json]) => {
          if (dropped || !json) return;
          const need = json.length + 1;
          if (used + need > chunk.length) flush();
          if (need > chunk.length) chunk = Buffer.allocUnsafe(need);
          if (total++ > 0) chunk[used++] = 0x2c; // ','
          used += json.copy(chunk, used);
        },
        { timeoutMs: LIST_TIMEOUT_MS + 1000 },
      );
      await copy.done;
      await client.query('COMMIT');
      release();
      if (dropped) return;
      flush();
      res.end(`],"total":${total}}`);
    } catch (err) {
      release(err as Error);
      // Once the body has started, a failure can only cut the response short.
      if (res.headersSent) res.destroy(err as Error);
      else throw err;
    } finally {
      release();
    }
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
