// The web's memory with its cache of built full answers full (RESULT_CACHE_MB, server/answer.cache.ts):
// one worker computes N daily-cycling battery scenarios (bench #1's `working`, ~2 MB answers, so 40
// of them overflow the default 64 MB), then two webs on the same database, one with the setting
// given (default: unset, the default) and one with RESULT_CACHE_MB=0, each read every result's
// full answer with gzip twice, alternating; their RSS and peak RSS (VmHWM, /proc) after.
// Usage: DATABASE_URL=postgres://… node bench/answer.cache.rss.ts [--scenarios=40] [--cache-mb=64]
import { readFileSync } from 'node:fs';
import { get } from 'node:http';
import { loadavg } from 'node:os';
import { startStack } from '../test/helpers/stack.ts';

const arg = (name: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const N = Number(arg('scenarios') ?? 40);
const cacheMb = arg('cache-mb');

function status(pid: number): { rssMb: number; hwmMb: number } {
  const text = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (key: string) => Number(new RegExp(`${key}:\\s+(\\d+) kB`).exec(text)?.[1]) / 1024;
  return { rssMb: kb('VmRSS'), hwmMb: kb('VmHWM') };
}

function readFull(url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    get(url, { headers: { 'accept-encoding': 'gzip' } }, (res) => {
      let n = 0;
      res.on('data', (c: Buffer) => {
        n += c.length;
      });
      res.on('end', () => (res.statusCode === 200 ? resolve(n) : reject(new Error(`${res.statusCode}`))));
    }).on('error', reject);
  });
}

console.log(
  `answer cache RSS: ${N} scenarios; load average ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}`,
);
const stack = await startStack({ web: false, workers: [{}] });
try {
  const webs = {
    cache: await stack.startWeb(cacheMb === undefined ? {} : { RESULT_CACHE_MB: cacheMb }),
    none: await stack.startWeb({ RESULT_CACHE_MB: '0' }),
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
  let bytes = 0;
  for (let round = 0; round < 2; round++) {
    for (const id of ids) {
      for (const side of round % 2 ? (['cache', 'none'] as const) : (['none', 'cache'] as const)) {
        bytes = Math.max(bytes, await readFull(`${webs[side].baseUrl}/api/scenarios/${id}/statements`));
      }
    }
  }
  for (const side of ['cache', 'none'] as const) {
    const after = status(webs[side].child.pid as number);
    console.log(
      `web ${side === 'cache' ? `RESULT_CACHE_MB=${cacheMb ?? 'default'}` : 'RESULT_CACHE_MB=0'}: RSS at start ${before[side].rssMb.toFixed(0)} MB; after ${2 * N} full reads RSS ${after.rssMb.toFixed(0)} MB, peak (VmHWM) ${after.hwmMb.toFixed(0)} MB`,
    );
  }
  console.log(`largest answer ${bytes} B gzip; ${N} answers ${((N * bytes) / 2 ** 20).toFixed(0)} MB`);
} finally {
  await stack.stop();
  console.log(
    `load average after: ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
}
