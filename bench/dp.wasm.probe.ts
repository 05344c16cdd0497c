// Issue 39's probe: the battery's horizon DP (HorizonSolver.solve without a daily limit, the rolling
// horizon's call: value false, 24 planned hours) as a hand-written WebAssembly kernel
// (worker/engine/storage/storage.dispatch.wat), against today's JavaScript, on
// the horizons the engine really solves for bench #1's load row and cycling battery row.
//
//   node bench/dp.wasm.probe.ts capture [file]        runs the engine on both rows once, recording every
//                                                     solve's inputs and plan (a separate process: the
//                                                     patched solve would slow the timed one)
//   node bench/dp.wasm.probe.ts [file] [rounds=15] [block=4]  checks the kernel's plans bit for bit against the JS
//                                                     solver's and the engine's, then times them
//
// The kernel is the one the engine loads (storage.dispatch.wasm.ts, built from storage.dispatch.wat
// by scripts/wasm.build.ts); the JavaScript side is `new HorizonSolver(false)`.
import { readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { deserialize, serialize } from 'node:v8';
import { resolvedInputs } from '../test/fixtures/inputs.ts';
import {
  type HorizonBattery,
  type HorizonHours,
  type HorizonPlan,
  HorizonSolver,
} from '../worker/engine/storage/storage.dispatch.ts';
import { alternated, median } from './stats.ts';

const HORIZON = 48;
const LOAD_NAMES = ['serve', 'unmet', 'value', 'grid', 'gridPrice'] as const;
const BASE_NAMES = ['price', 'free', 'priced', 'room'] as const;

/** One recorded solve: the battery (an index into the row's), the horizon's hours, and the engine's plan. */
interface Call {
  b: number;
  hours: number;
  soc0: number;
  planned: number;
  value: boolean;
  /** price, free, priced, room (and serve, unmet, value, grid, gridPrice with a load), `hours` each. */
  arrays: Float64Array[];
  load: boolean;
  /** With a load: the horizon's serving weight (LoadHours.weight). */
  weight: number;
  charge: Float64Array;
  discharge: Float64Array;
}
interface Row {
  batteries: HorizonBattery[];
  calls: Call[];
}
type Rows = Record<'load' | 'cycling', Row>;

async function capture(file: string): Promise<void> {
  const { calculate } = await import('../worker/engine/index.ts');
  const { CYCLING_BATTERY, LOAD_BATTERY } = await import('./figures.engine.ts');
  const original = HorizonSolver.prototype.solve;
  let row: Row = { batteries: [], calls: [] };
  HorizonSolver.prototype.solve = function (this: HorizonSolver, b, h, soc0, out, value = true, planned = h.hours) {
    let bi = row.batteries.indexOf(b);
    if (bi < 0) bi = row.batteries.push({ ...b }) - 1;
    const names = h.load ? [...BASE_NAMES, ...LOAD_NAMES] : BASE_NAMES;
    const arrays = names.map(
      (n) =>
        ((BASE_NAMES as readonly string[]).includes(n)
          ? h[n as (typeof BASE_NAMES)[number]]
          : h.load?.[n as (typeof LOAD_NAMES)[number]]
        )?.slice(0, h.hours) as Float64Array,
    );
    const r = original.call(this, b, h, soc0, out, value, planned);
    const n = Math.min(h.hours, planned);
    row.calls.push({
      b: bi,
      hours: h.hours,
      soc0,
      planned,
      value,
      arrays,
      load: !!h.load,
      weight: h.load ? h.load.weight : 0,
      charge: out.charge.slice(0, n),
      discharge: out.discharge.slice(0, n),
    });
    return r;
  };
  const rows = {} as Rows;
  for (const [name, overrides] of [
    ['load', LOAD_BATTERY],
    ['cycling', CYCLING_BATTERY],
  ] as const) {
    row = { batteries: [], calls: [] };
    calculate(resolvedInputs(overrides));
    rows[name] = row;
    const limited = row.batteries.filter((b) => Number.isFinite(b.dailyDischargeMwh)).length;
    console.log(
      `${name}: ${row.calls.length} solves, ${row.calls.reduce((s, c) => s + c.hours, 0)} hours, ${row.batteries.length} batteries (${limited} with a daily limit), value ${row.calls.filter((c) => c.value).length}`,
    );
  }
  writeFileSync(file, serialize(rows));
  console.log(`written ${file}`);
}

async function probe(file: string, rounds: number, block: number): Promise<void> {
  const rows = deserialize(readFileSync(file)) as Rows;
  // Each side as the engine holds it: one solver, horizon and plan per strategy (storage.ts's work
  // space). `kernel`: the horizon's arrays and the plan are the kernel's memory (as storage.ts now
  // makes them); `copied`: plain arrays, which solve copies into the kernel and the plan out of it.
  const a = () => new Float64Array(HORIZON);
  const space = (withLoad: boolean, mode: 'js' | 'kernel' | 'copied') => {
    const solver = new HorizonSolver(mode !== 'js');
    const k = mode === 'kernel' ? solver.kernelArrays() : null;
    const load = withLoad
      ? k
        ? { serve: a(), ...k.load, weight: 0, laterDearest: 0 }
        : { serve: a(), unmet: a(), value: a(), weight: 0, grid: a(), gridPrice: a(), laterDearest: 0 }
      : undefined;
    const base = k ? k.hours : { price: a(), free: a(), priced: a(), room: a() };
    const h: HorizonHours = { hours: HORIZON, ...base, ...(load ? { load } : {}) };
    const arrays = [h.price, h.free, h.priced, h.room, ...(load ? LOAD_NAMES.map((n) => load[n]) : [])];
    const plan: HorizonPlan = k ? k.plan : { charge: a(), discharge: a() };
    return { h, arrays, plan, solver };
  };
  const modes = ['js', 'kernel', 'copied'] as const;
  const spaces = modes.map((mode) => ({ load: space(true, mode), cycling: space(false, mode) }));

  for (const name of ['load', 'cycling'] as const) {
    const row = rows[name];
    const limited = row.batteries.some((b) => Number.isFinite(b.dailyDischargeMwh));
    const valued = row.calls.some((c) => c.value);
    if (limited || valued)
      throw new Error(`${name}: a daily limit or a value call; the kernel has only the rolling horizon's path`);
  }

  const solve = (side: number, name: keyof Rows, c: Call) => {
    const s = spaces[side][name];
    s.h.hours = c.hours;
    for (let i = 0; i < c.arrays.length; i++) s.arrays[i].set(c.arrays[i]);
    if (s.h.load) s.h.load.weight = c.weight;
    s.solver.solve(rows[name].batteries[c.b], s.h, c.soc0, s.plan, false, c.planned);
  };

  // Identity: each side's plan and the engine's recorded one, bit for bit.
  const bits = (x: Float64Array, n: number) => new BigUint64Array(x.buffer, x.byteOffset, n);
  const same = (x: Float64Array, y: Float64Array, n: number) => {
    const bx = bits(x, n);
    const by = bits(y, n);
    for (let i = 0; i < n; i++) if (bx[i] !== by[i]) return false;
    return true;
  };
  for (const name of ['load', 'cycling'] as const) {
    const row = rows[name];
    const differ = modes.map(() => 0);
    let hours = 0;
    let moving = 0;
    for (const c of row.calls) {
      const n = Math.min(c.hours, c.planned);
      for (let side = 0; side < modes.length; side++) {
        const { plan } = spaces[side][name];
        plan.charge.fill(Number.NaN);
        plan.discharge.fill(Number.NaN);
        solve(side, name, c);
        if (!same(c.charge, plan.charge, n) || !same(c.discharge, plan.discharge, n)) differ[side]++;
      }
      hours += c.hours;
      for (let t = 0; t < n; t++) if (c.charge[t] !== 0 || c.discharge[t] !== 0) moving++;
    }
    console.log(
      JSON.stringify({
        row: name,
        solves: row.calls.length,
        hours,
        planHoursMoving: moving,
        differFromEngine: Object.fromEntries(modes.map((m, i) => [m, differ[i]])),
      }),
    );
  }

  // Timing: each sample is `block` passes over a row's recorded horizons; the same copies on every side.
  const sides = [
    'js',
    'wasm (inputs written into its memory)',
    'wasm (JS arrays copied in, plan copied out)',
    'copies alone',
  ] as const;
  const run = (side: number, name: keyof Rows) => {
    const { calls } = rows[name];
    if (side < 3) for (const c of calls) solve(side, name, c);
    else {
      const s = spaces[0][name];
      for (const c of calls) {
        s.h.hours = c.hours;
        for (let i = 0; i < c.arrays.length; i++) s.arrays[i].set(c.arrays[i]);
      }
    }
  };
  const cases = ['load', 'cycling'] as const;
  const times = alternated(sides.length, cases, run, { rounds, block, warmups: 5 });
  const m = (x: number[]) => Number(median(x).toFixed(2));
  const out: Record<string, unknown> = {
    rounds,
    block,
    loadavg: os.loadavg().map((x) => Number(x.toFixed(2))),
  };
  for (const name of cases) {
    const hours = rows[name].calls.reduce((sum, c) => sum + c.hours, 0);
    const cpu = times.map((t) => m(t.cpu[name]));
    const wall = times.map((t) => m(t.wall[name]));
    const copy = cpu[3];
    out[name] = {
      cpuMs: Object.fromEntries(sides.map((sd, i) => [sd, cpu[i]])),
      wallMs: Object.fromEntries(sides.map((sd, i) => [sd, wall[i]])),
      dpNsAnHour: {
        js: Number((((cpu[0] - copy) * 1e6) / hours).toFixed(1)),
        wasm: Number((((cpu[1] - copy) * 1e6) / hours).toFixed(1)),
      },
      ratioJsOverWasm: {
        withCopies: Number((cpu[0] / cpu[1]).toFixed(3)),
        dpAlone: Number(((cpu[0] - copy) / (cpu[1] - copy)).toFixed(3)),
        copiedInAndOut: Number((cpu[0] / cpu[2]).toFixed(3)),
      },
    };
  }
  console.log(JSON.stringify(out, null, 1));
}

const args = process.argv.slice(2);
if (args[0] === 'capture') {
  await capture(args[1] ?? '/tmp/dp.horizons.bin');
} else {
  const [rounds = 15, block = 4] = args.filter((a) => /^\d+$/.test(a)).map(Number);
  await probe(args.find((a) => !/^\d+$/.test(a)) ?? '/tmp/dp.horizons.bin', rounds, block);
}
