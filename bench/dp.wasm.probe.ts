// Issue 39's probe: the battery's horizon DP (HorizonSolver.solve without a daily limit, the rolling
// horizon's call: value false, 24 planned hours) as a hand-written WebAssembly kernel
// (bench/dp.horizon.wat, assembled here by the npm package `wabt`), against today's JavaScript, on
// the horizons the engine really solves for bench #1's load row and cycling battery row.
//
//   node bench/dp.wasm.probe.ts capture [file]        runs the engine on both rows once, recording every
//                                                     solve's inputs and plan (a separate process: the
//                                                     patched solve would slow the timed one)
//   node bench/dp.wasm.probe.ts [file] [rounds=15] [block=4]  checks the kernel's plans bit for bit against the JS
//                                                     solver's and the engine's, then times them
//
// `wabt` is not a dependency of the project: install it outside the checkout
// (`npm install --prefix /tmp/wabt wabt`) and point WABT at its index.js (default
// /tmp/wabt/node_modules/wabt/index.js).
import { readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { pathToFileURL } from 'node:url';
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

interface Kernel {
  memory: { buffer: ArrayBuffer };
  solve: (
    hours: number,
    planned: number,
    load: number,
    soc0: number,
    power: number,
    socMin: number,
    socMax: number,
    etaIn: number,
    etaOut: number,
    chargeCost: number,
    dischargeCost: number,
  ) => void;
}

interface WasmApi {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { exports: object };
}

interface Wabt {
  parseWat(
    name: string,
    text: string,
  ): { resolveNames(): void; validate(): void; toBinary(o: object): { buffer: Uint8Array }; destroy(): void };
}

async function kernel(): Promise<{ k: Kernel; bytes: number }> {
  const wabtPath = process.env.WABT ?? '/tmp/wabt/node_modules/wabt/index.js';
  const init = (await import(pathToFileURL(wabtPath).href)).default as () => Promise<Wabt>;
  const wabt = await init();
  const text = readFileSync(new URL('./dp.horizon.wat', import.meta.url), 'utf8');
  const mod = wabt.parseWat('dp.horizon.wat', text);
  mod.resolveNames();
  mod.validate();
  const { buffer } = mod.toBinary({});
  mod.destroy();
  writeFileSync('/tmp/dp.horizon.wasm', buffer);
  // (The project's TypeScript libraries do not declare WebAssembly's classes.)
  const wasm = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;
  const instance = new wasm.Instance(new wasm.Module(buffer), {});
  return { k: instance.exports as unknown as Kernel, bytes: buffer.length };
}

/** Byte offsets of the kernel's inputs and outputs (bench/dp.horizon.wat's header). */
const OFFSETS = { price: 0, free: 384, priced: 768, room: 1152, unmet: 1536, value: 1920, grid: 2304, gridPrice: 2688 };

async function probe(file: string, rounds: number, block: number): Promise<void> {
  const rows = deserialize(readFileSync(file)) as Rows;
  const { k, bytes } = await kernel();
  const mem = k.memory.buffer;
  const view = (byte: number) => new Float64Array(mem, byte, HORIZON);
  // The kernel's inputs in the order of a call's arrays (serve is not read by the DP: a scratch slot).
  const serveScratch = new Float64Array(HORIZON);
  const kIn = [
    view(OFFSETS.price),
    view(OFFSETS.free),
    view(OFFSETS.priced),
    view(OFFSETS.room),
    serveScratch,
    view(OFFSETS.unmet),
    view(OFFSETS.value),
    view(OFFSETS.grid),
    view(OFFSETS.gridPrice),
  ];
  const kCharge = view(3072);
  const kDischarge = view(3456);

  // The JS side as the engine holds it: one solver, horizon and plan per strategy (storage.ts's work space).
  const a = () => new Float64Array(HORIZON);
  const space = (withLoad: boolean) => {
    const load = withLoad ? { serve: a(), unmet: a(), value: a(), grid: a(), gridPrice: a() } : undefined;
    const h: HorizonHours = {
      hours: HORIZON,
      price: a(),
      free: a(),
      priced: a(),
      room: a(),
      ...(load ? { load } : {}),
    };
    const arrays = [
      h.price,
      h.free,
      h.priced,
      h.room,
      ...(load ? [load.serve, load.unmet, load.value, load.grid, load.gridPrice] : []),
    ];
    const plan: HorizonPlan = { charge: a(), discharge: a() };
    return { h, arrays, plan, solver: new HorizonSolver() };
  };
  const spaces = { load: space(true), cycling: space(false) };

  for (const name of ['load', 'cycling'] as const) {
    const row = rows[name];
    const limited = row.batteries.some((b) => Number.isFinite(b.dailyDischargeMwh));
    const valued = row.calls.some((c) => c.value);
    if (limited || valued)
      throw new Error(`${name}: a daily limit or a value call; the kernel has only the rolling horizon's path`);
  }

  const fill = (name: keyof Rows, c: Call) => {
    const s = spaces[name];
    s.h.hours = c.hours;
    for (let i = 0; i < c.arrays.length; i++) s.arrays[i].set(c.arrays[i]);
  };
  const fillKernel = (c: Call) => {
    for (let i = 0; i < c.arrays.length; i++) kIn[i].set(c.arrays[i]);
  };
  const callKernel = (b: HorizonBattery, c: Call) =>
    k.solve(
      c.hours,
      c.planned,
      c.load ? 1 : 0,
      c.soc0,
      b.powerMw,
      b.socMinMwh,
      b.socMaxMwh,
      b.etaIn,
      b.etaOut,
      b.chargeCost,
      b.dischargeCost,
    );

  // Identity: the kernel's plan, the JS solver's replayed and the engine's recorded, bit for bit.
  const bits = (x: Float64Array, n: number) => new BigUint64Array(x.buffer, x.byteOffset, n);
  const same = (x: Float64Array, y: Float64Array, n: number) => {
    const bx = bits(x, n);
    const by = bits(y, n);
    for (let i = 0; i < n; i++) if (bx[i] !== by[i]) return false;
    return true;
  };
  for (const name of ['load', 'cycling'] as const) {
    const row = rows[name];
    const s = spaces[name];
    let differ = 0;
    let engineDiffer = 0;
    let hours = 0;
    let nonzero = 0;
    for (const c of row.calls) {
      const b = row.batteries[c.b];
      const n = Math.min(c.hours, c.planned);
      fill(name, c);
      s.plan.charge.fill(Number.NaN);
      s.plan.discharge.fill(Number.NaN);
      s.solver.solve(b, s.h, c.soc0, s.plan, false, c.planned);
      kCharge.fill(Number.NaN);
      kDischarge.fill(Number.NaN);
      fillKernel(c);
      callKernel(b, c);
      if (!same(s.plan.charge, kCharge, n) || !same(s.plan.discharge, kDischarge, n)) differ++;
      if (!same(c.charge, kCharge, n) || !same(c.discharge, kDischarge, n)) engineDiffer++;
      hours += c.hours;
      for (let t = 0; t < n; t++) if (kCharge[t] !== 0 || kDischarge[t] !== 0) nonzero++;
    }
    console.log(
      JSON.stringify({
        row: name,
        solves: row.calls.length,
        hours,
        planHoursMoving: nonzero,
        differFromJs: differ,
        differFromEngine: engineDiffer,
      }),
    );
  }

  // Timing: each sample is one pass over a row's recorded horizons. The same horizon copies on every side.
  const sides = [
    'js',
    'wasm (inputs written into its memory)',
    'wasm (JS arrays copied in, plan copied out)',
    'copies alone',
  ] as const;
  const run = (side: number, name: keyof Rows) => {
    const row = rows[name];
    const s = spaces[name];
    const { calls, batteries } = row;
    if (side === 0) {
      for (const c of calls) {
        fill(name, c);
        s.solver.solve(batteries[c.b], s.h, c.soc0, s.plan, false, c.planned);
      }
    } else if (side === 1) {
      for (const c of calls) {
        fillKernel(c);
        callKernel(batteries[c.b], c);
      }
    } else if (side === 2) {
      for (const c of calls) {
        fill(name, c);
        for (let i = 0; i < s.arrays.length; i++) kIn[i].set(s.arrays[i].subarray(0, c.hours));
        callKernel(batteries[c.b], c);
        s.plan.charge.set(kCharge.subarray(0, 24));
        s.plan.discharge.set(kDischarge.subarray(0, 24));
      }
    } else {
      for (const c of calls) fill(name, c);
    }
  };
  const cases = ['load', 'cycling'] as const;
  const times = alternated(sides.length, cases, run, { rounds, block, warmups: 5 });
  const m = (x: number[]) => Number(median(x).toFixed(2));
  const out: Record<string, unknown> = {
    wasmBytes: bytes,
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
