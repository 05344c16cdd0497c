// Same-run A/B of #20's wake row (bench/figures.resource.ts): SSC's 80-turbine AZ farm on the SRW
// file, the simple wake model against constant wakes, with two checkouts' engines loaded into this
// process and run in alternating rounds (the order flipped every round); engine-thread CPU
// (process.threadCpuUsage, which this host counts in 4 ms ticks: each figure is a block of
// `block` calculations in a row, divided) and wall, medians over the rounds. "extra" is the median
// of each round's simple − constant of the same checkout. Also: whether the two checkouts' results agree
// (a hash of every field), and the largest relative difference of the wind's hours.
// Usage: node bench/wake.ab.ts <base checkout> <other checkout> [rounds=20] [block=3]
import { createHash } from 'node:crypto';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { azFarmScenario } from './figures.resource.ts';
import { alternated, checkoutsAndCounts, median } from './stats.ts';

const {
  roots,
  counts: [rounds, block],
} = checkoutsAndCounts('node bench/wake.ab.ts <base> <other> [rounds] [block]', [20, 3]);
const engines: ((inputs: unknown) => unknown)[] = [];
for (const root of roots)
  engines.push((await import(pathToFileURL(resolve(root, 'worker/engine/index.ts')).href)).calculate);
const rows = { constant: azFarmScenario('constant'), simple: azFarmScenario('simple') };
type Name = keyof typeof rows;
const names = Object.keys(rows) as Name[];

const hash = (value: unknown) =>
  createHash('sha256')
    .update(JSON.stringify(value, (_k, v) => (ArrayBuffer.isView(v) ? Array.from(v as Float64Array) : v)))
    .digest('hex')
    .slice(0, 16);
/** The result's hourly wind MWh, 25 × 8,760. */
const windHours = (result: unknown) => (result as { wind_hourly?: Float64Array }).wind_hourly;
for (const name of names) {
  const results = engines.map((calc) => calc(rows[name]));
  const hashes = results.map(hash);
  const a = windHours(results[0]);
  const b = windHours(results[1]);
  let worst = 0;
  if (a && b) {
    for (let h = 0; h < a.length; h++) {
      const d = Math.abs(a[h] - b[h]) / Math.max(Math.abs(a[h]), 1e-300);
      if (a[h] !== b[h] && d > worst) worst = d;
    }
  }
  console.log(
    JSON.stringify({ row: name, hashes, same: hashes[0] === hashes[1], windHoursMaxRel: a && b ? worst : 'n/a' }),
  );
}

const times = alternated(engines.length, names, (side, name) => engines[side](rows[name]), { rounds, block });
const cpu = times.map((t) => t.cpu);
const wall = times.map((t) => t.wall);
const m = (a: number[]) => Number(median(a).toFixed(1));
const extra = (x: Record<Name, number[]>) => x.simple.map((v, i) => v - x.constant[i]);
for (let e = 0; e < engines.length; e++) {
  console.log(
    JSON.stringify({
      checkout: roots[e],
      cpuMs: { constant: m(cpu[e].constant), simple: m(cpu[e].simple), extra: m(extra(cpu[e])) },
      wallMs: { constant: m(wall[e].constant), simple: m(wall[e].simple), extra: m(extra(wall[e])) },
    }),
  );
}
const ratio = (x: number[], y: number[]) => (median(y) / median(x)).toFixed(3);
console.log(
  JSON.stringify({
    otherOverBase: {
      cpu: { simple: ratio(cpu[0].simple, cpu[1].simple), extra: ratio(extra(cpu[0]), extra(cpu[1])) },
      wall: { simple: ratio(wall[0].simple, wall[1].simple), extra: ratio(extra(wall[0]), extra(wall[1])) },
    },
  }),
);
