// The web's memory with its cache of built full answers full (RESULT_CACHE_MB, server/answer.cache.ts):
// one worker computes N daily-cycling battery scenarios (bench #1's `working`, ~2 MB answers, so 40
// of them overflow the default 64 MB), then two webs on the same database, one with the setting
// given (default: unset, the default) and one with RESULT_CACHE_MB=0, each read every result's
// full answer with gzip twice, alternating (timed, with the web's CPU a read), then the last 8 three times
// each; their RSS and peak RSS (VmHWM, /proc) after.
// Usage: DATABASE_URL=postgres://… node bench/answer.cache.rss.ts [--scenarios=40] [--cache-mb=64]
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { get } from 'node:http';
import { loadavg } from 'node:os';
import pg from 'pg';
import { loadConfig } from '../shared/config.ts';
import { migrateAll } from '../shared/migrate.ts';
import { startStack } from '../test/helpers/stack.ts';
import { median } from './stats.ts';

const arg = (name: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const N = Number(arg('scenarios') ?? 40);
const cacheMb = arg('cache-mb');
/** --profile-dir=DIR: each web writes a V8 CPU profile to DIR/<cache|none> when it stops (bench/profile.summary.ts). */
const profileDir = arg('profile-dir');
const prof = (side: string): Record<string, string> =>
  profileDir ? { NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${profileDir}/${side}` } : {};

function status(pid: number): { rssMb: number; hwmMb: number } {
  const text = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (key: string) => Number(new RegExp(`${key}:\\s+(\\d+) kB`).exec(text)?.[1]) / 1024;
  return { rssMb: kb('VmRSS'), hwmMb: kb('VmHWM') };
}

function readFull(url: string): Promise<{ bytes: number; ms: number }> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    get(url, { headers: { 'accept-encoding': 'gzip' } }, (res) => {
      let n = 0;
      res.on('data', (c: Buffer) => {
        n += c.length;
      });
      res.on('end', () =>
        res.statusCode === 200
          ? resolve({ bytes: n, ms: performance.now() - t0 })
          : reject(new Error(`${res.statusCode}`)),
      );
    }).on('error', reject);
  });
}

/** utime + stime of a process, ms. */
function cpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}

const adminUrl = process.env.DATABASE_URL;
if (!adminUrl) throw new Error('DATABASE_URL: a Postgres server to create the database on');
const dbName = `ac_rss_${randomBytes(4).toString('hex')}`;
const admin = new pg.Client({ connectionString: adminUrl });
await admin.connect();
await admin.query(`CREATE DATABASE ${dbName}`);
const dbUrl = new URL(adminUrl);
dbUrl.pathname = `/${dbName}`;
await migrateAll(loadConfig(), dbUrl.toString());

console.log(
  `answer cache RSS: ${N} scenarios; load average ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}`,
);
const stack = await startStack({ databaseUrl: dbUrl.toString(), web: false, workers: [{}] });
try {
  const webs = {
    cache: await stack.startWeb({ ...(cacheMb === undefined ? {} : { RESULT_CACHE_MB: cacheMb }), ...prof('cache') }),
    none: await stack.startWeb({ RESULT_CACHE_MB: '0', ...prof('none') }),
  };
  const before = { cache: status(webs.cache.child.pid as number), none: status(webs.none.child.pid as number) };
  const ids: string[] = [];
  for (let i = 0; i < N; i++) {
    const res = await fetch(`${webs.cache.baseUrl}/api/scenarios`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        name: `cycling ${i}`,
        site: { latitude: 35.2, longitude: -101.8 },
        grid: { export_limit_mw: 120 },
        market: {
          merchant_hour_of_day_multipliers: Array.from({ length: 24 }, (_, h) => (h >= 17 && h < 21 ? 1.8 : 1)),
        },
        storage: { power_mw: 100, energy_mwh: 400 },
      }),
    });
    ids.push(((await res.json()) as { id: string }).id);
  }
  for (let waited = 0; ; waited += 500) {
    const { rows } = await stack.pool.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM scenarios WHERE status = 'succeeded'",
    );
    if (rows[0].n >= N) break;
    if (waited > 600_000) throw new Error(`${rows[0].n} of ${N} succeeded`);
    await new Promise((r) => setTimeout(r, 500));
  }
  // Round 0: each result's first read from each web; round 1: the same order again (with more
  // answers than the budget holds, LRU in this order keeps none of them); round 2: the last
  // results read again at once (those kept).
  let bytes = 0;
  const rounds = [ids, ids, ids.slice(-8).flatMap((id) => [id, id, id])];
  for (const [round, order] of rounds.entries()) {
    const ms = { cache: [] as number[], none: [] as number[] };
    const cpu = { cache: 0, none: 0 };
    for (const [i, id] of order.entries()) {
      for (const side of i % 2 ? (['cache', 'none'] as const) : (['none', 'cache'] as const)) {
        const pid = webs[side].child.pid as number;
        const c0 = cpuMs(pid);
        const r = await readFull(`${webs[side].baseUrl}/api/scenarios/${id}/statements`);
        cpu[side] += cpuMs(pid) - c0;
        ms[side].push(r.ms);
        bytes = Math.max(bytes, r.bytes);
      }
    }
    console.log(
      `round ${round} (${order.length} reads each): p50 cache ${median(ms.cache).toFixed(1)} ms, none ${median(ms.none).toFixed(1)} ms; web CPU a read cache ${(cpu.cache / order.length).toFixed(1)} ms, none ${(cpu.none / order.length).toFixed(1)} ms`,
    );
  }
  for (const side of ['cache', 'none'] as const) {
    const after = status(webs[side].child.pid as number);
    console.log(
      `web ${side === 'cache' ? `RESULT_CACHE_MB=${cacheMb ?? 'default'}` : 'RESULT_CACHE_MB=0'}: RSS at start ${before[side].rssMb.toFixed(0)} MB; after ${2 * N} full reads RSS ${after.rssMb.toFixed(0)} MB, peak (VmHWM) ${after.hwmMb.toFixed(0)} MB`,
    );
  }
  if (profileDir) for (const w of Object.values(webs)) await w.stop('SIGTERM');
  console.log(`largest answer ${bytes} B gzip; ${N} answers ${((N * bytes) / 2 ** 20).toFixed(0)} MB`);
} finally {
  await stack.stop();
  await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
  await admin.end();
  console.log(
    `load average after: ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
}
