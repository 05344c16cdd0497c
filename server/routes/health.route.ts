import { Type } from '@sinclair/typebox';
import { type Router as ExpressRouter, Router } from 'express';
import { latestMigrationId } from '../../shared/migrate.ts';
import type { AppDeps } from '../deps.ts';
import { methodNotAllowed } from '../http.ts';
import { json, type RouteDoc } from '../openapi.parts.ts';

const Health = Type.Object({ status: Type.Literal('ok') }, { $id: 'Health', description: 'The process is alive.' });
const Migrations = Type.Object({
  current: Type.Integer({ description: 'The latest migration applied to the database.' }),
  expected: Type.Integer({ description: 'The latest migration this process knows.' }),
});
const Ready = Type.Object(
  {
    status: Type.Union([Type.Literal('ok'), Type.Literal('unavailable')]),
    database: Type.Union([Type.Literal('ok'), Type.Literal('unreachable')]),
    migrations: Type.Optional(Migrations),
    sse: Type.Optional(
      Type.Object(
        {
          streams: Type.Integer({ description: 'Open event streams on this web process.' }),
          channels: Type.Integer({ description: 'Channels its listening connection LISTENs on.' }),
          listening: Type.Boolean({ description: 'Whether its one listening connection is up.' }),
        },
        { description: "This process's event streams (only when ready)." },
      ),
    ),
  },
  { $id: 'Ready', description: 'Readiness: the database answers and its migrations are current.' },
);

export const healthDoc: RouteDoc = {
  schemas: { Health, Ready },
  paths: {
    '/healthz': {
      get: {
        operationId: 'getHealth',
        summary: 'Liveness (no database call)',
        tags: ['health'],
        responses: { 200: json('The process is alive.', 'Health') },
      },
    },
    '/readyz': {
      get: {
        operationId: 'getReady',
        summary: 'Readiness: the database answers and migrations are current',
        tags: ['health'],
        responses: {
          200: json('Ready.', 'Ready'),
          503: json('Not ready: the database does not answer, or its migrations are behind.', 'Ready'),
        },
      },
    },
  },
};

export function healthRoutes({ pool, listener }: AppDeps): ExpressRouter {
  const router = Router();
  const expected = latestMigrationId();
  router
    .route('/healthz')
    .get((_req, res) => {
      res.json({ status: 'ok' });
    })
    .all(methodNotAllowed('GET'));
  router
    .route('/readyz')
    .get(async (_req, res) => {
      let current = -1;
      try {
        const { rows } = await pool.query<{ id: number | null }>({
          text: 'SELECT max(id) AS id FROM schema_migrations',
          query_timeout: 2000,
        } as { text: string });
        current = rows[0]?.id ?? 0;
      } catch {
        res.status(503).json({ status: 'unavailable', database: 'unreachable' });
        return;
      }
      if (current < expected) {
        res.status(503).json({ status: 'unavailable', database: 'ok', migrations: { current, expected } });
        return;
      }
      res.json({
        status: 'ok',
        database: 'ok',
        migrations: { current, expected },
        // Operators' view of this process's event streams and its one listening connection.
        sse: { streams: listener.subscriberCount, channels: listener.channelCount, listening: listener.connected },
      });
    })
    .all(methodNotAllowed('GET'));
  return router;
}
