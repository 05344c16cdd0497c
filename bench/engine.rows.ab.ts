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
import { alternated, checkoutsAndCounts, median } from './stats.ts';

const {
  roots,
  counts: [rounds],
} = checkoutsAndCounts('node bench/engine.rows.ab.ts <base> <other> [rounds] [--hourly]', [10]);
const reuse = process.argv.includes('--hourly');
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
const times = alternated(engines.length, names, (side, name) => engines[side](rows[name]), { rounds });
for (let e = 0; e < engines.length; e++) {
  const { cpu, wall } = times[e];
  const m = (a: number[]) => Number(median(a).toFixed(1));
  // This host's thread clock moves in ~4 ms ticks, so the CPU medians move in such steps; the mean resolves finer.
  const mean = (a: number[]) => Number((a.reduce((s, v) => s + v, 0) / a.length).toFixed(1));
  const diff = (x: Record<Name, number[]>) => x.load.map((v, i) => v - x.one[i]);
  console.log(
    JSON.stringify({
      checkout: roots[e],
      hourly: reuse ? 'reused' : 'fresh',
      cpuMs: {
        one: m(cpu.one),
        cycling: m(cpu.cycling),
        load: m(cpu.load),
        loadMinusOne: m(diff(cpu)),
        loadMinusOneMean: mean(diff(cpu)),
      },
      wallMs: {
        one: m(wall.one),
        cycling: m(wall.cycling),
        load: m(wall.load),
        loadMinusOne: m(diff(wall)),
      },
    }),
  );
}
