// `npm test`: a real Postgres (DATABASE_URL's server, or an embedded one), a migrated template
// database that each test file clones, then tap. Ends with "N passed, N failed".
import { spawn } from 'node:child_process';
import pg from 'pg';
import { loadConfig } from '../shared/config.ts';
import { migrateAll } from '../shared/migrate.ts';
import { withDatabase } from '../test/helpers/db.ts';
import { ensureChromium, NO_CHROMIUM } from './chromium.ts';
import { serverOrEmbedded } from './embedded-postgres.ts';

const config = loadConfig();
if (!(await ensureChromium())) console.log(`# ${NO_CHROMIUM}: the browser tests will fail`);
const server = await serverOrEmbedded(config.databaseUrl, 'test');
const adminUrl = server.adminUrl;
console.log(
  server.embeddedPort
    ? `# embedded Postgres on port ${server.embeddedPort}`
    : `# Postgres at ${new URL(adminUrl).host}`,
);

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
await server.stop();

const failed = total - pass + (code !== 0 && total === pass ? 1 : 0);
console.log(`${pass} passed, ${failed} failed`);
process.exit(code === 0 && failed === 0 ? 0 : 1);
