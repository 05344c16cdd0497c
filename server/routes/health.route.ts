import { Type } from '@sinclair/typebox';
import { latestMigrationId } from '../../shared/migrate.ts';
import { type AnyRoute, defineRoute } from '../route.ts';

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

const getHealth = defineRoute({
  method: 'get',
  path: '/healthz',
  operationId: 'getHealth',
  summary: 'Liveness (no database call)',
  tags: ['health'],
  responses: { 200: { description: 'The process is alive.', json: Health } },
  handle({ res }) {
    res.json({ status: 'ok' });
  },
});

const EXPECTED_MIGRATION = latestMigrationId();

const getReady = defineRoute({
  method: 'get',
  path: '/readyz',
  operationId: 'getReady',
  summary: 'Readiness: the database answers and migrations are current',
  tags: ['health'],
  responses: {
    200: { description: 'Ready.', json: Ready },
    503: { description: 'Not ready: the database does not answer, or its migrations are behind.', json: Ready },
  },
  async handle({ res }, { db, streams, listener }) {
    let current = -1;
    try {
      // Raw on the pool: a probe must give up within 2 s (node-pg's query_timeout), which kysely cannot set per query.
      const { rows } = await db.pool.query<{ id: number | null }>({
        text: 'SELECT max(id) AS id FROM schema_migrations',
        query_timeout: 2000,
      } as { text: string });
      current = rows[0]?.id ?? 0;
    } catch {
      res.status(503).json({ status: 'unavailable', database: 'unreachable' });
      return;
    }
    const migrations = { current, expected: EXPECTED_MIGRATION };
    if (current < EXPECTED_MIGRATION) {
      res.status(503).json({ status: 'unavailable', database: 'ok', migrations });
      return;
    }
    // Operators' view of this process's event streams and its one listening connection.
    const sse = { streams: streams.open, channels: listener.channelCount, listening: listener.connected };
    res.json({ status: 'ok', database: 'ok', migrations, sse });
  },
});

export const healthRoutes: readonly AnyRoute[] = [getHealth, getReady];
