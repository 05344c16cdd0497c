// A whole Hourglass for a script to drive through its API (screenshots.ts, load.cost-curve.ts): a
// database of its own on DATABASE_URL's server or an embedded Postgres, migrated, with a web and a
// worker on it; creating through it, and waiting for what it calculates. stop() ends the processes
// and drops the database (and stops an embedded server).
import pg from 'pg';
import { loadConfig } from '../shared/config.ts';
import { isTerminal } from '../shared/lifecycle.ts';
import { migrateAll } from '../shared/migrate.ts';
import { withDatabase } from '../test/helpers/db.ts';
import { type SpawnOptions, startWeb, startWorker } from '../test/helpers/processes.ts';
import { serverOrEmbedded } from './embedded-postgres.ts';

export interface OwnStack {
  baseUrl: string;
  /** The JSON `path` answers with. */
  get(path: string): Promise<unknown>;
  /** POSTs `body` to `path`, a create: the new resource's id. Throws when nothing was created. */
  create(path: string, body: unknown): Promise<string>;
  /** Reads `path` (a scenario, a sweep, an optimization) until its status is final; its last answer. */
  finished<T extends { status: string }>(path: string): Promise<T>;
  stop(): Promise<void>;
}

/** `purpose` names the database (and an embedded server's folder); `web` how the web is spawned. */
export async function startOwnStack(purpose: string, web: SpawnOptions = {}): Promise<OwnStack> {
  const config = loadConfig();
  const server = await serverOrEmbedded(config.databaseUrl, purpose);
  const name = `hourglass_${purpose.replaceAll('-', '_')}_${process.pid}`;
  const admin = new pg.Client({ connectionString: server.adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  const url = withDatabase(server.adminUrl, name);
  await migrateAll(config, url);
  const webProc = await startWeb(url, {}, web);
  const worker = await startWorker(url);
  const { baseUrl } = webProc;
  const get = async (path: string): Promise<unknown> => (await fetch(`${baseUrl}${path}`)).json();
  return {
    baseUrl,
    get,
    async create(path, body) {
      const res = await fetch(`${baseUrl}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      const answer = (await res.json()) as { id: string };
      if (res.status !== 201) throw new Error(`POST ${path}: ${res.status} ${JSON.stringify(answer)}`);
      return answer.id;
    },
    async finished<T extends { status: string }>(path: string) {
      for (;;) {
        const answer = (await get(path)) as T;
        if (isTerminal(answer.status)) return answer;
        await new Promise((r) => setTimeout(r, 250));
      }
    },
    async stop() {
      await worker.stop();
      await webProc.stop();
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => {});
      await admin.end();
      await server.stop();
    },
  };
}
