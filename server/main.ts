// The web process: listens, and stops cleanly on SIGTERM/SIGINT.
import { createServer } from 'node:http';
import { loadConfig } from '../shared/config.ts';
import { createDb, createPool } from '../shared/db.ts';
import { createLogger } from '../shared/logger.ts';
import { createBoss } from '../shared/queue.ts';
import { createApp } from './app.ts';
import { ChannelListener } from './sse/listener.ts';

const config = loadConfig();
const logger = createLogger(config.logLevel, 'web');
if (!config.databaseUrl) {
  logger.fatal('DATABASE_URL is not set (use `npm start` to run on an embedded Postgres)');
  process.exit(1);
}

const pool = createPool(config.databaseUrl, {
  max: config.poolMax,
  statementTimeoutMs: config.statementTimeoutMs,
  applicationName: 'hourglass-web',
});
// Creates run on their own pool in node-pg's pipeline mode (server/scenarios.create.ts); the main
// pool stays in plain mode, which binary COPY reads need.
const createsPool = createPool(config.databaseUrl, {
  max: config.poolMax,
  statementTimeoutMs: config.statementTimeoutMs,
  applicationName: 'hourglass-web-create',
  pipeline: true,
});
const db = createDb(pool);
const boss = createBoss(config, config.databaseUrl, 'web');
const listener = new ChannelListener(config.databaseUrl, logger);

try {
  await boss.start();
  await listener.start();
} catch (err) {
  logger.fatal({ err }, 'could not start');
  process.exit(1);
}

const app = createApp({ config, pool, createsPool, db, boss, listener, logger });
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

let stopping = false;
async function shutdown(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  logger.info({ signal }, 'stopping');
  server.close();
  server.closeIdleConnections();
  // Event streams never end by themselves; give requests in flight a moment, then close the rest.
  const force = setTimeout(() => server.closeAllConnections(), Math.min(config.shutdownGraceSeconds, 5) * 1000);
  force.unref();
  await new Promise<void>((resolve) => server.once('close', () => resolve()));
  await listener.stop();
  await boss.stop({ graceful: false, close: true }).catch(() => {});
  await Promise.all([pool.end().catch(() => {}), createsPool.end().catch(() => {})]);
  logger.info('stopped');
  process.exit(0);
}
process.on('SIGTERM', () => void shutdown('SIGTERM'));
process.on('SIGINT', () => void shutdown('SIGINT'));
