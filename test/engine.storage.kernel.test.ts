// The horizon DP's WebAssembly kernel (storage.dispatch.wat, the rolling horizon's path: no daily
// limit, the plan alone) against the same solver in JavaScript (`new HorizonSolver(false)`): the same
// plans bit for bit, with and without a load, from random horizons (prices of both signs, ties, hours
// with nothing to charge or no room, SOC anywhere), through plain arrays (copied in and out) and
// through the kernel's own arrays (storage.ts's work space). bench/dp.wasm.probe.ts checks the same
// on the engine's own horizons.
import t from 'tap';
import {
  type HorizonBattery,
  type HorizonHours,
  type HorizonPlan,
  HorizonSolver,
} from '../worker/engine/storage/storage.dispatch.ts';
import { Rng } from '../worker/engine/weather/random.ts';

const HORIZON = 48;

function horizon(r: () => number, withLoad: boolean, hours: number): HorizonHours {
  const a = (f: () => number) => Float64Array.from({ length: HORIZON }, f);
  // Some hours exactly 0, prices from a few levels (ties between hours' slopes), some negative.
  const amount = () => (r() < 0.3 ? 0 : Math.round(r() * 120 * 4) / 4);
  const price = () =>
    r() < 0.1 ? -5 - Math.round(r() * 20) : [20, 30, 45, 80, 120][Math.floor(r() * 5)] + (r() < 0.5 ? 0 : r());
  const h: HorizonHours = { hours, price: a(price), free: a(amount), priced: a(amount), room: a(amount) };
  if (withLoad)
    h.load = {
      serve: a(amount),
      unmet: a(amount),
      value: a(() => Math.round(r() * 50)),
      weight: 1e4 + Math.round(r() * 100) / 8,
      grid: a(amount),
      gridPrice: a(price),
      laterDearest: 0,
    };
  return h;
}

function battery(r: () => number): HorizonBattery {
  const energy = [40, 100, 400, 1000][Math.floor(r() * 4)];
  const eta = [0.9381, 0.95, 1][Math.floor(r() * 3)];
  return {
    powerMw: [10, 50, 100][Math.floor(r() * 3)],
    socMinMwh: energy * 0.1,
    socMaxMwh: energy * (r() < 0.5 ? 0.9 : 1),
    etaIn: eta,
    etaOut: eta,
    chargeCost: r() < 0.5 ? 0 : 0.75,
    dischargeCost: r() < 0.5 ? 0 : 2.5,
    dailyDischargeMwh: Number.POSITIVE_INFINITY,
  };
}

const plan = (): HorizonPlan => ({ charge: new Float64Array(HORIZON), discharge: new Float64Array(HORIZON) });
const bits = (x: Float64Array) => Array.from(new BigUint64Array(x.buffer, x.byteOffset, x.length));

t.test('the kernel plans what the JavaScript plans, bit for bit', async (t) => {
  const js = new HorizonSolver(false);
  const copied = new HorizonSolver();
  const inPlace = new HorizonSolver();
  const own = inPlace.kernelArrays();
  const rng = new Rng(39);
  const r = () => rng.uniform();
  let differ = 0;
  let moving = 0;
  const cases = 3000;
  for (let i = 0; i < cases; i++) {
    const withLoad = i % 2 === 1;
    const hours = i % 7 === 0 ? 24 + Math.floor(r() * 24) : HORIZON;
    const planned = i % 3 === 0 ? hours : 24;
    const h = horizon(r, withLoad, hours);
    const b = battery(r);
    let soc0 = r() < 0.3 ? b.socMinMwh : b.socMinMwh + r() * (b.socMaxMwh - b.socMinMwh);
    if (!withLoad && i % 10 === 0) {
      // Flat prices, nothing free, an empty battery: the idle shortcut (every hour 0).
      h.price.fill(30);
      h.free.fill(0);
      soc0 = b.socMinMwh;
    }
    const outJs = plan();
    const outCopied = plan();
    js.solve(b, h, soc0, outJs, false, planned);
    copied.solve(b, h, soc0, outCopied, false, planned);
    // The kernel's own arrays, filled as storage.ts fills them.
    const k: HorizonHours = { hours, ...own.hours };
    for (const n of ['price', 'free', 'priced', 'room'] as const) k[n].set(h[n]);
    if (h.load) {
      const load = { serve: h.load.serve, ...own.load, weight: h.load.weight, laterDearest: 0 };
      for (const n of ['unmet', 'value', 'grid', 'gridPrice'] as const) load[n].set(h.load[n]);
      k.load = load;
    }
    own.plan.charge.fill(Number.NaN);
    own.plan.discharge.fill(Number.NaN);
    inPlace.solve(b, k, soc0, own.plan, false, planned);
    const n = Math.min(hours, planned);
    const want = [...bits(outJs.charge.subarray(0, n)), ...bits(outJs.discharge.subarray(0, n))];
    for (const out of [outCopied, own.plan]) {
      const got = [...bits(out.charge.subarray(0, n)), ...bits(out.discharge.subarray(0, n))];
      if (want.some((v, j) => v !== got[j])) differ++;
    }
    if (outJs.charge.some((v) => v > 0) || outJs.discharge.some((v) => v > 0)) moving++;
  }
  t.equal(differ, 0, `${cases} horizons, each through copies and in place: no plan differs in any bit`);
  t.ok(moving > cases / 2 && moving < cases, `most plans move the battery, not all (${moving} of ${cases})`);
});

t.test('a rolling horizon continued day by day plans what the JavaScript plans, bit for bit', async (t) => {
  // storage.ts's call: each day's horizon is the last one's second day moved down and a new day, and
  // `continued` lets the kernel keep the hours it has already seen. Batteries change now and then
  // (a new capacity every few days, new costs as a year turns), some days are idle, and a load's
  // horizon comes between: none of it may change a plan.
  const js = new HorizonSolver(false);
  const inPlace = new HorizonSolver();
  const own = inPlace.kernelArrays();
  const rng = new Rng(3939);
  const r = () => rng.uniform();
  const k: HorizonHours = { hours: HORIZON, ...own.hours };
  const names = ['price', 'free', 'priced', 'room'] as const;
  let b = battery(r);
  let differ = 0;
  let chained = 0;
  let previousHours = 0;
  const days = 1500;
  for (let d = 0; d < days; d++) {
    if (d % 50 === 0) b = battery(r);
    else if (d % 7 === 0) b = { ...b, socMaxMwh: b.socMaxMwh * 0.999 };
    else if (d % 61 === 0) b = { ...b, dischargeCost: b.dischargeCost + 0.5 };
    const fresh = horizon(r, false, HORIZON);
    const moved = d > 0 && previousHours === HORIZON;
    for (const n of names) {
      if (moved) k[n].copyWithin(0, 24, HORIZON);
      k[n].set(fresh[n].subarray(moved ? 24 : 0), moved ? 24 : 0);
    }
    k.hours = d % 97 === 96 ? 24 : HORIZON;
    previousHours = k.hours;
    let soc0 = b.socMinMwh + r() * (b.socMaxMwh - b.socMinMwh);
    if (d % 13 === 0) {
      // An empty battery on flat prices with nothing free: the idle shortcut.
      k.price.fill(30);
      k.free.fill(0);
      soc0 = b.socMinMwh;
    }
    if (d % 89 === 0) inPlace.solve(b, horizon(r, true, HORIZON), soc0, plan(), false, 24);
    const h: HorizonHours = {
      hours: k.hours,
      price: k.price.slice(),
      free: k.free.slice(),
      priced: k.priced.slice(),
      room: k.room.slice(),
    };
    const outJs = plan();
    js.solve(b, h, soc0, outJs, false, 24);
    inPlace.solve(b, k, soc0, own.plan, false, 24, moved);
    if (moved) chained++;
    const want = [...bits(outJs.charge.subarray(0, 24)), ...bits(outJs.discharge.subarray(0, 24))];
    const got = [...bits(own.plan.charge.subarray(0, 24)), ...bits(own.plan.discharge.subarray(0, 24))];
    if (want.some((v, j) => v !== got[j])) differ++;
  }
  t.equal(differ, 0, `${days} days, ${chained} of them continued: no plan differs in any bit`);

  // The same call on a horizon whose first day is not the last one's second: the kept hours are then
  // wrong, and plans differ (the reuse is real, and `continued` is the caller's promise).
  let lied = 0;
  for (let d = 0; d < 200; d++) {
    const fresh = horizon(r, false, HORIZON);
    for (const n of names) k[n].set(fresh[n]);
    k.hours = HORIZON;
    const soc0 = b.socMinMwh + r() * (b.socMaxMwh - b.socMinMwh);
    const outJs = plan();
    js.solve(b, { ...fresh, hours: HORIZON }, soc0, outJs, false, 24);
    inPlace.solve(b, k, soc0, own.plan, false, 24, d > 0);
    if (outJs.charge.some((v, j) => v !== own.plan.charge[j] && j < 24)) lied++;
  }
  t.ok(lied > 100, `a broken promise shows: ${lied} of 200 plans differ`);
});
