// Same-run A/B of bench #1's battery rows (bench/figures.engine.ts): the default scenario (#1), the
// cycling battery (120 MW export limit, evening prices ×1.8) and the flat-load row (battery on `load`),
// with two checkouts' engines loaded into this process and run in alternating rounds; engine-thread
// CPU (process.threadCpuUsage) and wall, medians over the rounds. With --hourly, each engine writes
// its hourly results into arrays it reuses from one call to the next, as the worker's engine thread
// does (HourlyBuffers: solar and wind given, a battery's and a load's added by the engine where the
// checkout does so); without, every call makes fresh ones (bench #1's way).
// Usage: node bench/engine.rows.ab.ts <base checkout> <other checkout> [rounds=10] [--hourly]
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { resolvedInputs } from '../test/fixtures/inputs.ts';
import { CYCLING_BATTERY, LOAD_BATTERY } from './figures.engine.ts';
import { median } from './stats.ts';

const args = process.argv.slice(2).filter((a) => a !== '--hourly');
const reuse = process.argv.includes('--hourly');
const roots = args.filter((a) => !/^\d+$/.test(a));
const [rounds = 10] = args.filter((a) => /^\d+$/.test(a)).map(Number);
if (roots.length !== 2) throw new Error('usage: node bench/engine.rows.ab.ts <base> <other> [rounds]');
const engines: ((inputs: unknown) => unknown)[] = [];
for (const root of roots) {
  const calculate = (await import(pathToFileURL(resolve(root, 'worker/engine/index.ts')).href)).calculate;
  const hourly = { solar: new Float64Array(25 * 8760), wind: new Float64Array(25 * 8760) };
  engines.push(reuse ? (inputs) => calculate(inputs, { hourly }) : calculate);
}
const rows = {
  one: resolvedInputs(),
  cycling: resolvedInputs(CYCLING_BATTERY),
  load: resolvedInputs(LOAD_BATTERY),
};
type Name = keyof typeof rows;
const names = Object.keys(rows) as Name[];
const cpu = engines.map(() => Object.fromEntries(names.map((n) => [n, [] as number[]])) as Record<Name, number[]>);
const wall = engines.map(() => Object.fromEntries(names.map((n) => [n, [] as number[]])) as Record<Name, number[]>);
for (let round = -3; round < rounds; round++) {
  for (let e = 0; e < engines.length; e++) {
    const side = round % 2 === 0 ? e : engines.length - 1 - e;
    for (const name of names) {
      const c0 = process.threadCpuUsage();
      const w0 = performance.now();
      engines[side](rows[name]);
      const w = performance.now() - w0;
      const c = process.threadCpuUsage(c0);
      if (round < 0) continue;
      cpu[side][name].push((c.user + c.system) / 1000);
      wall[side][name].push(w);
    }
  }
}
for (let e = 0; e < engines.length; e++) {
  const m = (a: number[]) => Number(median(a).toFixed(1));
  const diff = (x: Record<Name, number[]>) => x.load.map((v, i) => v - x.one[i]);
  console.log(
    JSON.stringify({
      checkout: roots[e],
      hourly: reuse ? 'reused' : 'fresh',
      cpuMs: { one: m(cpu[e].one), cycling: m(cpu[e].cycling), load: m(cpu[e].load), loadMinusOne: m(diff(cpu[e])) },
      wallMs: {
        one: m(wall[e].one),
        cycling: m(wall[e].cycling),
        load: m(wall[e].load),
        loadMinusOne: m(diff(wall[e])),
      },
    }),
  );
}
