// The stored form of the hourly series (shared/result/stored.form.ts) against the stored gzip JSON
// before it, in one run: a checkout of the base (`--base=DIR`, e.g. a worktree of main) beside
// this one. For bench #1's daily-cycling battery (`working` in bench/figures.engine.ts) and the
// default scenario:
//   - the stored bytes and the writer's time (serializeResult, both checkouts' code in this
//     process, alternated; medians);
//   - each checkout's own web and worker on a database of its own (DATABASE_URL's server): the
//     scenario computed by its worker, then the full statements read with gzip, one client,
//     alternating base and branch: latency medians, and the web process's CPU a read (/proc);
//   - the answers compared (full with and without gzip, ?hourly=false, ?year, CSV): equal but
//     for the scenario's id.
// Usage: DATABASE_URL=postgres://… node bench/stored.form.ab.ts --base=/work/wt/x-base [--reads=40] [--profile-dir=DIR]
//   [--branch-env=RESULT_CACHE_MB=0]
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { get } from 'node:http';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import pg from 'pg';
import { loadConfig } from '../shared/config.ts';
import { migrateAll } from '../shared/migrate.ts';
import { resolvedInputs } from '../test/fixtures/inputs.ts';
import type { Stack } from '../test/helpers/stack.ts';
import { calculate } from '../worker/engine/index.ts';
import { median } from './stats.ts';

const arg = (name: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const baseDir = arg('base');
if (!baseDir) throw new Error('--base=DIR: a checkout of the base (its node_modules linked)');
const READS = Number(arg('reads') ?? 40);
/** --profile-dir=DIR: each web writes a V8 CPU profile to DIR/<side> when it stops (bench/profile.summary.ts reads them). */
const profileDir = arg('profile-dir');
const SERIALIZE_RUNS = Number(arg('serialize-runs') ?? 15);
const CLIENTS = Number(arg('clients') ?? 10);
const CLIENTS_MS = Number(arg('clients-seconds') ?? 5) * 1000;
/** --branch-env=K=V,K=V: settings of the branch's web only (e.g. RESULT_CACHE_MB=0: every read makes its answer). */
const branchEnv = Object.fromEntries(
  (arg('branch-env') ?? '')
    .split(',')
    .filter((kv) => kv.includes('='))
    .map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]),
);
const branchDir = fileURLToPath(new URL('../', import.meta.url));
const adminUrl = process.env.DATABASE_URL;
if (!adminUrl) throw new Error('DATABASE_URL: a Postgres server to create the two databases on');

const SCENARIOS = {
  cycling: {
    grid: { export_limit_mw: 120 },
    market: { merchant_hour_of_day_multipliers: Array.from({ length: 24 }, (_, h) => (h >= 17 && h < 21 ? 1.8 : 1)) },
    storage: { power_mw: 100, energy_mwh: 400 },
  },
  default: {},
} as const;
type Name = keyof typeof SCENARIOS;

type Serialize = (id: string, r: unknown) => { statements_gzip: Buffer | null };
const sides = ['base', 'branch'] as const;
type Side = (typeof sides)[number];
const dirs: Record<Side, string> = { base: baseDir, branch: branchDir };

console.log(
  `stored form A/B: base ${baseDir}, branch ${branchDir}; load average ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}`,
);

// 1. Bytes and the writer's time, both checkouts' writers in this process on the same engine result.
const writers = {} as Record<Side, Serialize>;
for (const side of sides) {
  writers[side] = (await import(join(dirs[side], 'worker/result/index.ts'))).serializeResult as Serialize;
}
for (const name of Object.keys(SCENARIOS) as Name[]) {
  const result = calculate(resolvedInputs(SCENARIOS[name] as never));
  const times: Record<Side, number[]> = { base: [], branch: [] };
  const bytes = {} as Record<Side, number>;
  for (let i = 0; i < SERIALIZE_RUNS + 3; i++) {
    for (const side of i % 2 ? sides : [...sides].reverse()) {
      const t0 = performance.now();
      const out = writers[side]('01936f3e-0000-7000-8000-000000000043', result);
      const ms = performance.now() - t0;
      if (i >= 3) times[side].push(ms);
      bytes[side] = out.statements_gzip?.length ?? 0;
    }
  }
  console.log(
    `${name}: stored bytes base ${bytes.base} (${(bytes.base / 2 ** 20).toFixed(3)} MiB), branch ${bytes.branch} (${(bytes.branch / 2 ** 20).toFixed(3)} MiB), ratio ${(bytes.branch / bytes.base).toFixed(3)}; ` +
      `serializeResult median of ${SERIALIZE_RUNS}: base ${median(times.base).toFixed(1)} ms, branch ${median(times.branch).toFixed(1)} ms`,
  );
}

// 2. Each checkout's web and worker on a database of its own.
function rawGet(
  url: string,
  gzip: boolean,
): Promise<{ status: number; encoding: string | undefined; body: Buffer; ms: number }> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    get(url, { headers: { 'accept-encoding': gzip ? 'gzip' : 'identity' } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          encoding: res.headers['content-encoding'],
          body: Buffer.concat(chunks),
          ms: performance.now() - t0,
        }),
      );
      res.on('error', reject);
    }).on('error', reject);
  });
}

/** utime + stime of a process, ms. */
function cpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}

const config = loadConfig();
const stacks = {} as Record<Side, Stack>;
const databases: string[] = [];
const admin = new pg.Client({ connectionString: adminUrl });
await admin.connect();
try {
  for (const side of sides) {
    const name = `sf_ab_${side}_${randomBytes(4).toString('hex')}`;
    await admin.query(`CREATE DATABASE ${name}`);
    databases.push(name);
    const u = new URL(adminUrl);
    u.pathname = `/${name}`;
    await migrateAll(config, u.toString());
    const { startStack } = (await import(
      join(dirs[side], 'test/helpers/stack.ts')
    )) as typeof import('../test/helpers/stack.ts');
    const web: Record<string, string> = {
      ...(profileDir ? { NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${join(profileDir, side)}` } : {}),
      ...(side === 'branch' ? branchEnv : {}),
    };
    stacks[side] = await startStack({ databaseUrl: u.toString(), web, workers: [{}] });
  }
  for (const name of Object.keys(SCENARIOS) as Name[]) {
    const ids = {} as Record<Side, string>;
    for (const side of sides) {
      const res = await fetch(`${stacks[side].web.baseUrl}/api/scenarios`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          name,
          site: { latitude: 35.2, longitude: -101.8 },
          start_year: 2027,
          seed: 42,
          ...SCENARIOS[name],
        }),
      });
      ids[side] = ((await res.json()) as { id: string }).id;
    }
    for (const side of sides) {
      for (let waited = 0; ; waited += 250) {
        const s = (await (await fetch(`${stacks[side].web.baseUrl}/api/scenarios/${ids[side]}`)).json()) as {
          status: string;
        };
        if (s.status === 'succeeded') break;
        if (s.status === 'failed' || waited > 180_000) throw new Error(`${side} ${name}: ${s.status}`);
        await new Promise((r) => setTimeout(r, 250));
      }
    }
    const url = (side: Side, q = '') => `${stacks[side].web.baseUrl}/api/scenarios/${ids[side]}/statements${q}`;
    // The answers: the same but for the id.
    let differ = 0;
    for (const q of ['', '?hourly=false', '?year=1', '?year=25', '?format=csv']) {
      for (const gzip of [true, false]) {
        const texts = [] as string[];
        for (const side of sides) {
          const r = await rawGet(url(side, q), gzip);
          const text = (r.encoding === 'gzip' ? gunzipSync(r.body) : r.body).toString('utf8');
          texts.push(text.replaceAll(ids[side], '<id>'));
          if (r.status !== 200 || (r.encoding === 'gzip') !== gzip)
            throw new Error(`${side} ${q}: ${r.status} ${r.encoding}`);
        }
        if (texts[0] !== texts[1]) {
          differ++;
          console.log(`${name} ${q || 'full'}${gzip ? ' gzip' : ''}: the answers DIFFER`);
        }
      }
    }
    console.log(
      `${name}: 10 answers compared (5 queries × gzip or not): ${differ === 0 ? 'all equal but for the id' : `${differ} differ`}`,
    );
    // Full reads with gzip, one client, alternating; CPU of each web process over its reads.
    const latency: Record<Side, number[]> = { base: [], branch: [] };
    const cpu: Record<Side, number> = { base: 0, branch: 0 };
    const sent = {} as Record<Side, number>;
    for (let i = 0; i < READS + 5; i++) {
      for (const side of i % 2 ? sides : [...sides].reverse()) {
        const pid = stacks[side].web.child.pid as number;
        const c0 = cpuMs(pid);
        const r = await rawGet(url(side), true);
        const c1 = cpuMs(pid);
        if (i >= 5) {
          latency[side].push(r.ms);
          cpu[side] += c1 - c0;
        }
        sent[side] = r.body.length;
      }
    }
    // Several clients at once: full reads with gzip a second over CLIENTS_MS, each side twice, alternated.
    const perSecond: Record<Side, number[]> = { base: [], branch: [] };
    for (let round = 0; round < 2; round++) {
      for (const side of round % 2 ? sides : [...sides].reverse()) {
        const end = performance.now() + CLIENTS_MS;
        let done = 0;
        await Promise.all(
          Array.from({ length: CLIENTS }, async () => {
            while (performance.now() < end) {
              const r = await rawGet(url(side), true);
              if (r.status !== 200) throw new Error(`${side}: ${r.status}`);
              done++;
            }
          }),
        );
        perSecond[side].push(done / (CLIENTS_MS / 1000));
      }
    }
    console.log(
      `${name}: ${CLIENTS} clients, full reads with gzip a second (2 rounds of ${CLIENTS_MS / 1000} s): base ${perSecond.base.map((x) => x.toFixed(1)).join(', ')}; branch ${perSecond.branch.map((x) => x.toFixed(1)).join(', ')}`,
    );
    const stored = {} as Record<Side, number>;
    for (const side of sides) {
      const { rows } = await stacks[side].pool.query<{ n: number }>(
        'SELECT octet_length(statements_gzip) AS n FROM scenario_results WHERE scenario_id = $1',
        [ids[side]],
      );
      stored[side] = rows[0].n;
    }
    for (const side of sides) {
      console.log(
        `${name} ${side}: stored ${stored[side]} B, sent ${sent[side]} B gzip; full read p50 ${median(latency[side]).toFixed(1)} ms ` +
          `(p10 ${quantile(latency[side], 0.1).toFixed(1)}, p90 ${quantile(latency[side], 0.9).toFixed(1)}), web CPU ${(cpu[side] / READS).toFixed(1)} ms a read (${READS} reads)`,
      );
    }
    console.log(
      `${name}: branch / base full-read p50 ${(median(latency.branch) / median(latency.base)).toFixed(2)}, CPU a read ${(cpu.branch / cpu.base).toFixed(2)}`,
    );
  }
} finally {
  for (const side of sides) {
    // A profile is written when the process exits of itself: SIGTERM first (stop() kills).
    if (profileDir) await stacks[side]?.web.stop('SIGTERM');
    await stacks[side]?.stop();
  }
  for (const name of databases) await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await admin.end();
  console.log(
    `load average after: ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
}

function quantile(xs: number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))];
}
