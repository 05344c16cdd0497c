// The web process with #4's baseline route added: the same JSON body through the same middleware
// into one INSERT transaction on the bench's scratch table (bench_scratch, made by the bench).
import { randomUUID } from 'node:crypto';
import express, { Router } from 'express';
import { sql } from 'kysely';
import type { AppDeps } from '../server/deps.ts';
import { runWebProcess } from '../server/web.process.ts';
import { transaction } from '../shared/transaction.ts';

export const BASELINE_PATH = '/__bench/insert';

function baselineRoutes(deps: AppDeps): Router {
  const router = Router();
  router.post(BASELINE_PATH, express.json({ limit: deps.config.bodyLimitBytes }), async (req, res) => {
    const id = randomUUID();
    await transaction(deps.db, (trx) =>
      sql`INSERT INTO bench_scratch (id, body) VALUES (${id}, ${JSON.stringify(req.body)})`.execute(trx),
    );
    res.status(201).json({ id });
  });
  return router;
}

if (import.meta.main) await runWebProcess({ routes: (deps) => [baselineRoutes(deps)] });
