// `npm test`: a real Postgres (DATABASE_URL's server, or an embedded one), a migrated template
// database that each test file clones, then tap. Ends with "N passed, N failed".
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { loadConfig } from '../shared/config.ts';
import { migrateAll } from '../shared/migrate.ts';
import { withDatabase } from '../test/helpers/db.ts';
import { type EmbeddedServer, startEmbeddedPostgres } from './embedded-postgres.ts';

const config = loadConfig();
let adminUrl = config.databaseUrl;
let embedded: EmbeddedServer | null = null;
let dataDir: string | null = null;
if (!adminUrl) {
  dataDir = mkdtempSync(join(tmpdir(), 'hourglass-test-pg-'));
  embedded = await startEmbeddedPostgres({ dataDir, persistent: false });
  adminUrl = embedded.adminUrl;
  console.log(`# embedded Postgres on port ${embedded.port}`);
} else {
  console.log(`# Postgres at ${new URL(adminUrl).host}`);
}

const template = `hourglass_template_${process.pid}`;
const admin = new pg.Client({ connectionString: adminUrl });
await admin.connect();
await admin.query(`DROP DATABASE IF EXISTS ${template}`);
await admin.query(`CREATE DATABASE ${template}`);
await migrateAll(config, withDatabase(adminUrl, template));

const files = process.argv.slice(2);
const tapBin = new URL('../node_modules/tap/dist/esm/run.mjs', import.meta.url).pathname;
const child = spawn(
  process.execPath,
  [tapBin, '--disable-coverage', '--timeout=300', '--jobs=2', ...(files.length ? files : ['test/**/*.test.ts'])],
  {
    env: { ...process.env, HOURGLASS_TEST_ADMIN_URL: adminUrl, HOURGLASS_TEST_TEMPLATE: template },
    stdio: ['ignore', 'pipe', 'inherit'],
  },
);
let total = 0;
let pass = 0;
let tail = '';
child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
  process.stdout.write(chunk);
  tail = (tail + chunk).slice(-4000);
});
const code: number = await new Promise((resolve) => child.on('exit', (c) => resolve(c ?? 1)));
const summary = /# \{ total: (\d+), pass: (\d+)/.exec(tail);
if (summary) {
  total = Number(summary[1]);
  pass = Number(summary[2]);
}

await admin.query(`DROP DATABASE IF EXISTS ${template} WITH (FORCE)`).catch(() => {});
await admin.end();
if (embedded) await embedded.stop();
if (dataDir) rmSync(dataDir, { recursive: true, force: true });

const failed = total - pass + (code !== 0 && total === pass ? 1 : 0);
console.log(`${pass} passed, ${failed} failed`);
process.exit(code === 0 && failed === 0 ? 0 : 1);
