import { type Router as ExpressRouter, Router } from 'express';
import { latestMigrationId } from '../../shared/migrate.ts';
import type { AppDeps } from '../deps.ts';
import { methodNotAllowed } from '../http.ts';

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
