// Each test file gets its own database, cloned from the migrated template that scripts/test.ts
// prepared (CREATE DATABASE … TEMPLATE is a file copy: milliseconds).
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import pg from 'pg';

function env(name: string): string {
  const v = process.env[name];
  if (!v) throw new Error(`${name} is not set: run the tests with \`npm test\``);
  return v;
}

export function withDatabase(adminUrl: string, database: string): string {
  const u = new URL(adminUrl);
  u.pathname = `/${database}`;
  return u.toString();
}

/**
 * A small pool for a test's or the bench's own queries. An idle client's error (Postgres restarted
 * or stopped under it, as the fault tests do) is not fatal: the next query gets a new connection.
 */
export function quietPool(url: string, options: { max: number; applicationName?: string }): pg.Pool {
  const pool = new pg.Pool({ connectionString: url, max: options.max, application_name: options.applicationName });
  pool.on('error', () => {});
  return pool;
}

export interface TestDatabase {
  url: string;
  name: string;
  pool: pg.Pool;
  drop(): Promise<void>;
}

export async function createTestDatabase(): Promise<TestDatabase> {
  const adminUrl = env('HOURGLASS_TEST_ADMIN_URL');
  const template = env('HOURGLASS_TEST_TEMPLATE');
  const name = `hg_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name} TEMPLATE ${template}`);
    // A test's commits need not wait for the disk (WAL is still written and flushed within
    // wal_writer_delay, and a Postgres stopped cleanly loses nothing): on a disk where a flush takes
    // milliseconds, waiting on each commit doubled the suite's time.
    await admin.query(`ALTER DATABASE ${name} SET synchronous_commit = off`);
  } finally {
    await admin.end();
  }
  const url = withDatabase(adminUrl, name);
  const pool = quietPool(url, { max: 4 });
  return {
    url,
    name,
    pool,
    async drop() {
      await pool.end().catch(() => {});
      const c = new pg.Client({ connectionString: adminUrl });
      await c.connect();
      try {
        await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await c.end();
      }
    },
  };
}

/** Runs a migration file (`sql/<file>`) again, in one transaction, as the migrator does. */
export async function applyMigration(pool: pg.Pool, file: string): Promise<void> {
  const text = readFileSync(new URL(`../../sql/${file}`, import.meta.url), 'utf8');
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await client.query(text);
    await client.query('COMMIT');
  } catch (e) {
    await client.query('ROLLBACK');
    throw e;
  } finally {
    client.release();
  }
}
