// Managed Postgres requires TLS. Against a Postgres started with ssl=on and a self-signed
// certificate, the web and the worker connect over TLS as docs/operations.md (TLS) says
// (?sslmode= in DATABASE_URL, or PGSSLMODE), calculate a scenario, and every one of their
// connections is encrypted (pg_stat_ssl).
import { execFileSync } from 'node:child_process';
import { chmodSync, chownSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import t from 'tap';
import { type EmbeddedServer, ensureDatabase, startEmbeddedPostgres } from '../scripts/embedded-postgres.ts';
import { loadConfig } from '../shared/config.ts';
import { migrateAll } from '../shared/migrate.ts';
import { DEFAULT_SCENARIO, postScenario } from './helpers/http.ts';
import { startWeb, startWorker } from './helpers/processes.ts';
import { follow } from './helpers/sse.ts';

const dir = mkdtempSync(join(tmpdir(), 'hourglass-tls-'));
chmodSync(dir, 0o755);
const cert = join(dir, 'server.crt');
const key = join(dir, 'server.key');
execFileSync(
  'openssl',
  [
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-days',
    '2',
    '-subj',
    '/CN=127.0.0.1',
    '-addext',
    'subjectAltName=IP:127.0.0.1',
    '-keyout',
    key,
    '-out',
    cert,
  ],
  { stdio: 'ignore' },
);
// Postgres reads its key as the user it runs as, and refuses a key others can read.
chmodSync(key, 0o600);
chmodSync(cert, 0o644);
if (process.getuid?.() === 0) {
  const uid = Number(execFileSync('id', ['-u', 'postgres']).toString());
  const gid = Number(execFileSync('id', ['-g', 'postgres']).toString());
  chownSync(key, uid, gid);
}

let server: EmbeddedServer;
try {
  server = await startEmbeddedPostgres({
    dataDir: join(dir, 'data'),
    persistent: false,
    flags: ['-c', 'ssl=on', '-c', `ssl_cert_file=${cert}`, '-c', `ssl_key_file=${key}`],
  });
} catch (err) {
  rmSync(dir, { recursive: true, force: true });
  throw err;
}
await ensureDatabase(server.adminUrl, 'hourglass');
const plainUrl = server.urlFor('hourglass');
await migrateAll(loadConfig({}), `${plainUrl}?sslmode=no-verify`);

t.teardown(async () => {
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
});

t.test('web (verify-full against the CA) and worker (PGSSLMODE=no-verify) over TLS', async (t) => {
  const web = await startWeb(`${plainUrl}?sslmode=verify-full&sslrootcert=${encodeURIComponent(cert)}`);
  const worker = await startWorker(plainUrl, { PGSSLMODE: 'no-verify' });
  t.teardown(() => Promise.all([web.stop(), worker.stop()]));
  const created = await postScenario(web.baseUrl, { ...DEFAULT_SCENARIO, name: 'over TLS' });
  t.equal(created.status, 201);
  const last = await follow(`${web.baseUrl}/api/scenarios/${created.json.id}/events`).until(
    (e) => e.event === 'succeeded',
    60_000,
  );
  t.equal(last.event, 'succeeded', 'calculated and streamed over TLS connections');

  const admin = new pg.Client({ connectionString: `${plainUrl}?sslmode=no-verify` });
  await admin.connect();
  const { rows } = await admin.query<{ application_name: string; ssl: boolean }>(
    `SELECT a.application_name, s.ssl FROM pg_stat_activity a JOIN pg_stat_ssl s USING (pid)
     WHERE a.datname = 'hourglass' AND a.pid <> pg_backend_pid() AND a.backend_type = 'client backend'`,
  );
  await admin.end();
  t.ok(rows.length >= 3, `the processes' connections are open (${rows.length})`);
  t.same(
    rows.filter((r) => !r.ssl).map((r) => r.application_name),
    [],
    'every connection of the web and the worker is encrypted',
  );
  const names = new Set(rows.map((r) => r.application_name));
  t.ok(
    [...names].some((n) => n.includes('web')),
    'the web is among them',
  );
  t.ok(
    [...names].some((n) => n.includes('worker')),
    'the worker is among them',
  );
});

t.test('a client that insists on verifying refuses the unknown certificate', async (t) => {
  const client = new pg.Client({ connectionString: `${plainUrl}?sslmode=verify-full` });
  await t.rejects(client.connect(), /self[- ]signed|certificate/i, 'verify-full without the CA: refused');
  await client.end().catch(() => {});
});
