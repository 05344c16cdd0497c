// Applies sql/NNNN_*.sql in order: under an advisory lock, one transaction per file, each recorded
// before it runs, so two processes booting at once cannot both apply it.
import { readdirSync, readFileSync } from 'node:fs';
import { sql } from 'kysely';
import type { Config } from './config.ts';
import { openDb } from './db.ts';
import { createBoss, ensureQueues } from './queue.ts';
import { transaction } from './transaction.ts';

const SQL_DIR = new URL('../sql/', import.meta.url);
// An arbitrary constant that names "hourglass migrations" among advisory locks.
const LOCK_KEY = 7_340_211;

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
  const db = openDb(connectionString, { max: 1, applicationName: 'hourglass-migrate' });
  const applied: string[] = [];
  try {
    // One connection throughout: the advisory lock is the session's.
    await db.connection().execute(async (conn) => {
      await sql`SELECT pg_advisory_lock(${LOCK_KEY})`.execute(conn);
      try {
        await sql`CREATE TABLE IF NOT EXISTS schema_migrations (id integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`.execute(
          conn,
        );
        const done = new Set((await conn.selectFrom('schema_migrations').select('id').execute()).map((r) => r.id));
        for (const m of listMigrations()) {
          if (done.has(m.id)) continue;
          // Recorded before it runs, in its transaction.
          await transaction(conn, async (trx) => {
            await trx.insertInto('schema_migrations').values({ id: m.id, name: m.name }).execute();
            // A migration file is SQL text of several statements: raw, sent as one simple-protocol query.
            await sql.raw(m.sql).execute(trx);
          }).catch((err: Error) => {
            throw new Error(`migration ${m.name} failed: ${err.message}`);
          });
          applied.push(m.name);
        }
      } finally {
        await sql`SELECT pg_advisory_unlock(${LOCK_KEY})`.execute(conn).catch(() => {});
      }
    });
  } finally {
    await db.close();
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
