// A Postgres server of a test's own, which the test may stop and start (outages, cold starts), of
// the same major version as the server the suite runs on: run against the machine's Postgres 15,
// it is a Postgres 15 cluster made with the machine's own binaries (initdb and pg_ctl, as the
// `postgres` user); run on the embedded Postgres, it is another embedded one.
import { execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import pg from 'pg';
import {
  type EmbeddedServer,
  ensureDatabase,
  freePort,
  startEmbeddedPostgres,
} from '../../scripts/embedded-postgres.ts';
import { loadConfig } from '../../shared/config.ts';
import { migrateAll } from '../../shared/migrate.ts';
import { restartablePort } from './ports.ts';

export interface OwnPostgres extends EmbeddedServer {
  /** Where its binaries come from, for the test's messages. */
  kind: string;
}

let binDir: Promise<string | null> | undefined;

/** The machine's binaries of the suite's server's major version, or null (use the embedded one). */
function suiteBinDir(): Promise<string | null> {
  binDir ??= (async () => {
    const adminUrl = process.env.HOURGLASS_TEST_ADMIN_URL;
    if (!adminUrl) return null;
    const client = new pg.Client({ connectionString: adminUrl });
    await client.connect();
    try {
      const { rows } = await client.query<{ v: string }>("SELECT current_setting('server_version_num') AS v");
      const dir = `/usr/lib/postgresql/${Math.floor(Number(rows[0].v) / 10_000)}/bin`;
      return existsSync(join(dir, 'pg_ctl')) ? dir : null;
    } finally {
      await client.end();
    }
  })();
  return binDir;
}

export async function startOwnPostgres(options: {
  dataDir: string;
  port?: number;
  persistent: boolean;
}): Promise<OwnPostgres> {
  const bin = await suiteBinDir();
  if (!bin) return { ...(await startEmbeddedPostgres(options)), kind: 'embedded' };
  const dataDir = resolve(options.dataDir);
  const port = options.port ?? (await freePort());
  // Postgres refuses to run as root: the cluster belongs to the `postgres` user.
  const asPostgres = (tool: string, args: string[]) =>
    execFileSync('runuser', ['-u', 'postgres', '--', join(bin, tool), ...args], { stdio: 'pipe' });
  const pgUser = statSync('/var/lib/postgresql').uid;
  const pgGroup = statSync('/var/lib/postgresql').gid;
  if (!existsSync(join(dataDir, 'PG_VERSION'))) {
    mkdirSync(dataDir, { recursive: true });
    chownSync(dataDir, pgUser, pgGroup);
    // The embedded server's credentials (postgres/postgres), checked: a test sends a wrong password.
    const pwfile = join(dataDir, '..', `${basename(dataDir)}.pw`);
    writeFileSync(pwfile, 'postgres\n');
    chownSync(pwfile, pgUser, pgGroup);
    try {
      asPostgres('initdb', [
        '-D',
        dataDir,
        '-U',
        'postgres',
        '-A',
        'scram-sha-256',
        `--pwfile=${pwfile}`,
        '-E',
        'UTF8',
        '--no-instructions',
      ]);
    } finally {
      rmSync(pwfile, { force: true });
    }
  }
  const pgOptions = `-p ${port} -k ${dataDir} -c listen_addresses=127.0.0.1 -c max_connections=400`;
  try {
    asPostgres('pg_ctl', [
      '-D',
      dataDir,
      '-l',
      join(dataDir, 'server.log'),
      '-w',
      '-t',
      '60',
      '-o',
      pgOptions,
      'start',
    ]);
  } catch (err) {
    const out = (err as { stderr?: Buffer; stdout?: Buffer }).stderr?.toString() ?? String(err);
    throw new Error(`Postgres (${bin}) did not start on port ${port}: ${out.slice(-2000)}`);
  }
  const urlFor = (db: string) => `postgres://postgres:postgres@127.0.0.1:${port}/${db}`;
  return {
    kind: bin,
    adminUrl: urlFor('postgres'),
    urlFor,
    port,
    async stop() {
      try {
        asPostgres('pg_ctl', ['-D', dataDir, '-m', 'fast', '-w', 'stop']);
      } catch {
        // Already stopped.
      }
      if (!options.persistent) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export interface RestartablePostgres {
  /** Where its binaries come from, for the test's messages. */
  kind: string;
  /** Its data folder (postmaster.pid and the server's log are there). */
  dataDir: string;
  /** The migrated `hourglass` database. */
  url: string;
  /** Starts the server again, on the same port, with the same data. */
  start(): Promise<void>;
  stop(): Promise<void>;
  /** Stops the server and deletes its data. */
  remove(): Promise<void>;
}

/**
 * A Postgres of the test's own (startOwnPostgres), persistent in a temp folder named from
 * `prefix`, on a port it can start again on (restartablePort), its `hourglass` database made and
 * migrated; left running.
 */
export async function restartableMigratedPostgres(prefix: string): Promise<RestartablePostgres> {
  const dataDir = mkdtempSync(join(tmpdir(), prefix));
  let server = await startOwnPostgres({ dataDir, port: await restartablePort(), persistent: true });
  const port = server.port;
  await ensureDatabase(server.adminUrl, 'hourglass');
  const url = server.urlFor('hourglass');
  await migrateAll(loadConfig({}), url);
  return {
    kind: server.kind,
    dataDir,
    url,
    async start() {
      server = await startOwnPostgres({ dataDir, port, persistent: true });
    },
    stop: () => server.stop(),
    async remove() {
      await server.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
