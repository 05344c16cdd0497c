// The bench's Postgres: DATABASE_URL's server, or an embedded one in a temporary directory. Each
// figure group gets its own database, cloned from one migrated template (as npm test does), so a
// figure never measures another's leftovers.
import pg from 'pg';
import { serverOrEmbedded } from '../scripts/embedded-postgres.ts';
import type { Config } from '../shared/config.ts';
import { migrateAll } from '../shared/migrate.ts';
import { withDatabase } from '../test/helpers/db.ts';

export interface Cluster {
  /** Where it runs, for the report. */
  describe: string;
  serverVersion: string;
  /** Creates database `<prefix>_<name>` from the migrated template; its URL. */
  database(name: string): Promise<string>;
  /** Drops database `<prefix>_<name>` (closing its connections), so that later figures do not pay for its upkeep. */
  drop(name: string): Promise<void>;
  stop(): Promise<void>;
}

export async function startCluster(config: Readonly<Config>): Promise<Cluster> {
  const server = await serverOrEmbedded(config.databaseUrl, 'bench');
  const adminUrl = server.adminUrl;
  const prefix = `hourglass_bench_${process.pid}`;
  const template = `${prefix}_template`;
  const created: string[] = [];
  const admin = new pg.Client({ connectionString: adminUrl, application_name: 'hourglass-bench' });
  await admin.connect();
  const version = (await admin.query<{ server_version: string }>('SHOW server_version')).rows[0].server_version;
  await admin.query(`CREATE DATABASE ${template}`);
  created.push(template);
  await migrateAll(config, withDatabase(adminUrl, template));
  const url = adminUrl;

  return {
    describe: server.embeddedPort
      ? `embedded Postgres ${version} on port ${server.embeddedPort}`
      : `Postgres ${version} at ${new URL(url).host}`,
    serverVersion: version,
    async database(name) {
      const db = `${prefix}_${name}`;
      await admin.query(`CREATE DATABASE ${db} TEMPLATE ${template}`);
      created.push(db);
      return withDatabase(url, db);
    },
    async drop(name) {
      await admin.query(`DROP DATABASE IF EXISTS ${prefix}_${name} WITH (FORCE)`);
    },
    async stop() {
      for (const db of created.reverse())
        await admin.query(`DROP DATABASE IF EXISTS ${db} WITH (FORCE)`).catch(() => {});
      await admin.end().catch(() => {});
      await server.stop();
    },
  };
}
