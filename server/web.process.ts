// The web process: waits for the database, listens, and stops cleanly on SIGTERM/SIGINT.
// server/main.ts runs it; a host that embeds it may add routes of its own.
import { createServer } from 'node:http';
import type { Router } from 'express';
import { openDb } from '../shared/db.ts';
import { processBasics, startOrExit, stopOnSignals } from '../shared/process.common.ts';
import { createBoss } from '../shared/queue.ts';
import { createApp } from './app.ts';
import type { AppDeps } from './deps.ts';
import type { ResponseCheck } from './route.ts';
import { ChannelListener } from './sse/listener.ts';

export interface WebProcessOptions {
  /** Routes mounted after the API's, before the 404. */
  routes?: (deps: AppDeps) => Router[];
  /** Tests: check every JSON answer against the schema its route declares (server/route.ts). */
  checkResponses?: ResponseCheck;
}

export async function runWebProcess(options: WebProcessOptions = {}): Promise<void> {
  const basics = processBasics('web');
  const { config, logger, databaseUrl } = basics;

  // The one database handle: kysely over the main pool, and a pool in node-pg's pipeline mode for
  // the create's pipelined transaction (server/scenarios.create.ts); the main pool stays in plain
  // mode, which binary COPY reads need.
  const db = openDb(databaseUrl, {
    max: config.poolMax,
    statementTimeoutMs: config.statementTimeoutMs,
    applicationName: 'hourglass-web',
    pipelined: true,
  });
  const listener = new ChannelListener(databaseUrl, logger);

  // pg-boss checks its schema on start (the release phase migrates it): wait until it can.
  const boss = await startOrExit(basics, async () => {
    const candidate = createBoss(config, databaseUrl, 'web');
    try {
      return await candidate.start();
    } catch (err) {
      await candidate.stop({ graceful: false, close: true }).catch(() => {});
      throw err;
    }
  });
  // The listening connection reconnects by itself from here on, outages included (start never throws).
  await listener.start();

  const deps: AppDeps = { config, db, boss, listener, logger };
  const app = createApp({ ...deps, routes: options.routes?.(deps), checkResponses: options.checkResponses });
  // Slow-loris guards: they bound receiving a request, never how long a response (an SSE stream) lasts.
  // Node enforces them only when it checks its connections (every 30 s by default), so check often.
  const server = createServer(
    {
      headersTimeout: config.headersTimeoutMs,
      requestTimeout: Math.max(60_000, config.headersTimeoutMs),
      connectionsCheckingInterval: Math.min(1_000, config.headersTimeoutMs),
      keepAliveTimeout: 5_000,
    },
    app,
  );
  server.listen(config.port, config.host, () => {
    const addr = server.address();
    const port = typeof addr === 'object' && addr ? addr.port : config.port;
    logger.info({ port }, `listening on http://localhost:${port}`);
  });

  async function shutdown(signal: string): Promise<void> {
    logger.info({ signal }, 'stopping');
    server.close();
    server.closeIdleConnections();
    // Event streams never end by themselves; give requests in flight a moment, then close the rest.
    const force = setTimeout(() => server.closeAllConnections(), Math.min(config.shutdownGraceSeconds, 5) * 1000);
    force.unref();
    await new Promise<void>((resolve) => server.once('close', () => resolve()));
    await listener.stop();
    await boss.stop({ graceful: false, close: true }).catch(() => {});
    await db.close().catch(() => {});
    logger.info('stopped');
    process.exit(0);
  }
  stopOnSignals(shutdown);
}
