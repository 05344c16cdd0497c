// `npm start`: with no DATABASE_URL, a real Postgres in ./.data/ (kept between runs); then
// migrations, then the web and worker as two processes. Ctrl-C stops all three, in order.
import { type ChildProcess, spawn } from 'node:child_process';
import { loadConfig } from '../shared/config.ts';
import { migrateAll } from '../shared/migrate.ts';
import { ensureDatabase, startEmbeddedPostgres } from './embedded-postgres.ts';
import { WEB_NODE_FLAGS, WORKER_NODE_FLAGS } from './node.flags.ts';

const config = loadConfig();
let url = config.databaseUrl;
let stopPostgres: (() => Promise<void>) | null = null;

if (!url) {
  const port = config.embeddedPgPort;
  console.log(`starting the embedded Postgres on 127.0.0.1:${port} (data in ./.data/postgres)`);
  const pgServer = await startEmbeddedPostgres({ dataDir: '.data/postgres', port, persistent: true });
  stopPostgres = pgServer.stop;
  await ensureDatabase(pgServer.adminUrl, 'hourglass');
  url = pgServer.urlFor('hourglass');
  console.log(`embedded Postgres ready: DATABASE_URL=${url}`);
}

const applied = await migrateAll(config, url);
console.log(applied.length ? `migrations applied: ${applied.join(', ')}` : 'migrations are current');

const children = new Map<string, ChildProcess>();
let stopping = false;

function run(name: string, entry: string, flags: readonly string[] = []): void {
  const child = spawn(process.execPath, [...flags, entry], {
    env: { ...process.env, DATABASE_URL: url },
    stdio: 'inherit',
  });
  children.set(name, child);
  child.on('exit', (code, signal) => {
    children.delete(name);
    if (!stopping) {
      console.error(`${name} exited (${signal ?? code}); stopping`);
      void stop(1);
    } else if (children.size === 0) void finish();
  });
}

let exitCode = 0;
async function finish(): Promise<void> {
  if (stopPostgres) {
    console.log('stopping the embedded Postgres');
    await stopPostgres().catch(() => {});
  }
  process.exit(exitCode);
}

async function stop(code: number): Promise<void> {
  if (stopping) return;
  stopping = true;
  exitCode = code;
  if (children.size === 0) return finish();
  for (const child of children.values()) child.kill('SIGTERM');
}

process.on('SIGINT', () => void stop(0));
process.on('SIGTERM', () => void stop(0));

run('web', 'server/main.ts', WEB_NODE_FLAGS);
run('worker', 'worker/main.ts', WORKER_NODE_FLAGS);
