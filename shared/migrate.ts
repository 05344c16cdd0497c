// Applies sql/NNNN_*.sql in order: under an advisory lock, one transaction per file, each recorded
// before it runs, so two processes booting at once cannot both apply it.
import { readdirSync, readFileSync } from 'node:fs';
import pg from 'pg';
import type { Config } from './config.ts';
import { createBoss, ensureQueues } from './queue.ts';
import { inTransaction } from './transaction.ts';

const SQL_DIR = new URL('../sql/', import.meta.url);
// An arbitrary constant that names "hourglass migrations" among advisory locks.
const LOCK_KEY = 7_340_211;
const LOCK_SQL = 'SELECT pg_advisory_lock($1)';
const UNLOCK_SQL = 'SELECT pg_advisory_unlock($1)';
const CREATE_MIGRATIONS_TABLE_SQL =
  'CREATE TABLE IF NOT EXISTS schema_migrations (id integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())';
const APPLIED_MIGRATIONS_SQL = 'SELECT id FROM schema_migrations';
/** Recorded before the migration runs, in its transaction: $1 id, $2 file name. */
const RECORD_MIGRATION_SQL = 'INSERT INTO schema_migrations (id, name) VALUES ($1, $2)';

interface Migration {
  id: number;
  name: string;
  sql: string;
}

function listMigrations(): Migration[] {
  return readdirSync(SQL_DIR)
    .filter((f) => /^\d{4}_.+\.sql$/.test(f))
    .sort()
    .map((name) => ({ id: Number(name.slice(0, 4)), name, sql: readFileSync(new URL(name, SQL_DIR), 'utf8') }));
}

export const latestMigrationId = (): number => listMigrations().at(-1)?.id ?? 0;

async function migrate(connectionString: string): Promise<string[]> {
  const client = new pg.Client({ connectionString, application_name: 'hourglass-migrate' });
  await client.connect();
  const applied: string[] = [];
  try {
    await client.query(LOCK_SQL, [LOCK_KEY]);
    await client.query(CREATE_MIGRATIONS_TABLE_SQL);
    const done = new Set((await client.query<{ id: number }>(APPLIED_MIGRATIONS_SQL)).rows.map((r) => r.id));
    for (const m of listMigrations()) {
      if (done.has(m.id)) continue;
      await inTransaction(client, async (tx) => {
        await tx.query(RECORD_MIGRATION_SQL, [m.id, m.name]);
        await tx.query(m.sql);
      }).catch((err: Error) => {
        throw new Error(`migration ${m.name} failed: ${err.message}`);
      });
      applied.push(m.name);
    }
  } finally {
    await client.query(UNLOCK_SQL, [LOCK_KEY]).catch(() => {});
    await client.end();
  }
  return applied;
}

/** Everything a fresh database needs: pg-boss's schema and our queues, then our migrations. */
export async function migrateAll(config: Readonly<Config>, url: string): Promise<string[]> {
  const boss = createBoss(config, url, 'migrate');
  await boss.start();
  try {
    await ensureQueues(boss);
  } finally {
    await boss.stop({ graceful: false, close: true });
  }
  return migrate(url);
}
