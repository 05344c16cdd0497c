// The battery's 25 years (storage.ts `runStorage`) with its WebAssembly kernel (storage.dispatch.wat:
// the horizon's DP, the reward pieces kept from one day's horizon to the next, the horizon moved down
// a day, and the days committed into the kernel's own 25-year series) against the same run all in
// JavaScript (`kernel` false): every hourly array, the yearly capacity and the replacements the same
// to the bit, for batteries that cover the committed day's cases (clipped charge and discharge, grid
// charging, negative prices, standing loss, cycle and calendar fade with replacements, the operator's
// hourly limit, capture, and a load's strategy, whose chargeable energy and sources the kernel's
// commit has too; a daily cycle limit, whose DP the kernel leaves to JavaScript). Each kernel run twice:
// into the kernel's series (`keptRunSeries`, as an engine thread runs it) and into new arrays (its
// days committed in JavaScript). test/engine.storage.kernel.test.ts checks the kernel horizon by horizon.
import t from 'tap';
import { HOURS_PER_YEAR, YEARS } from '../shared/calendar.ts';
import type { StorageInputs } from '../shared/schemas/inputs.ts';
import { keptRunSeries, type PlantHours, runStorage, type StorageRun } from '../worker/engine/storage/storage.ts';
import { Rng } from '../worker/engine/weather/random.ts';
import { resolvedInputs } from './fixtures/inputs.ts';

const HOURS = YEARS * HOURS_PER_YEAR;
const LIMIT = 100;

/** A plant behind a 100 MW limit: a daily shape with noise, curtailed at noon on sunny days; prices with negative hours. */
function plantHours(seed: number): PlantHours {
  const rng = new Rng(seed);
  const delivered = new Float64Array(HOURS);
  const surplus = new Float64Array(HOURS);
  const price = new Float64Array(HOURS);
  for (let i = 0; i < HOURS; i++) {
    const h = i % 24;
    const sun = Math.max(0, Math.sin(((h - 6) / 12) * Math.PI));
    const made = Math.max(0, 140 * sun * (0.4 + rng.uniform()) + 20 * rng.uniform());
    delivered[i] = Math.min(LIMIT, made);
    surplus[i] = Math.max(0, made - LIMIT);
    const evening = h >= 17 && h <= 21 ? 60 : 0;
    price[i] = rng.uniform() < 0.04 ? -10 * rng.uniform() : 25 + evening + 15 * rng.uniform() - 20 * sun;
  }
  return { delivered, surplus, price, limitMw: LIMIT };
}

const cycleTable = [
  { dod_percent: 20, cycles: 0, capacity_percent: 100 },
  { dod_percent: 20, cycles: 5000, capacity_percent: 85 },
  { dod_percent: 80, cycles: 0, capacity_percent: 100 },
  { dod_percent: 80, cycles: 1500, capacity_percent: 80 },
];
const calendarTable = [
  { day: 0, capacity_percent: 100 },
  { day: 3650, capacity_percent: 90 },
];

function storage(extra: Record<string, unknown>): StorageInputs {
  const s = resolvedInputs({ storage: { power_mw: 40, energy_mwh: 160, ...extra } }).storage;
  if (!s) throw new Error('no battery');
  return s;
}

const CASES: [string, StorageInputs, (p: PlantHours) => PlantHours][] = [
  ['arbitrage, no fade', storage({}), (p) => p],
  [
    'arbitrage from the grid, standing loss, both fades, replaced at 85 %',
    storage({
      charge_from_grid: true,
      standing_loss_percent_per_day: 1,
      degradation: { cycle: cycleTable, calendar: calendarTable },
      replacement: { at_capacity_percent: 85 },
      costs: { variable_om_per_mwh: 2 },
    }),
    (p) => p,
  ],
  [
    'capture with cycle fade, SOC limits 0–100 %',
    storage({
      dispatch: { strategy: 'capture' },
      soc_min_percent: 0,
      soc_max_percent: 100,
      initial_soc_percent: 50,
      degradation: { cycle: cycleTable },
    }),
    (p) => p,
  ],
  [
    "arbitrage under the operator's hourly limit",
    storage({ degradation: { cycle: cycleTable } }),
    (p) => ({ ...p, operatorMw: Float64Array.from({ length: HOURS_PER_YEAR }, (_, h) => (h % 24 > 18 ? 60 : 100)) }),
  ],
  ['arbitrage with one cycle a day (its DP in JavaScript)', storage({ dispatch: { max_cycles_per_day: 1 } }), (p) => p],
  [
    "a load's strategy",
    storage({ dispatch: { strategy: 'load' }, degradation: { cycle: cycleTable } }),
    (p) => ({
      ...p,
      load: {
        mw: new Float64Array(HOURS).fill(30),
        contract: new Float64Array(YEARS).fill(50),
        backupPrice: new Float64Array(HOURS_PER_YEAR).fill(90),
        backupFactor: new Float64Array(YEARS).fill(1),
        sell: true,
      },
    }),
  ],
];

const ARRAYS = ['charge', 'discharge', 'soc', 'fromSurplus', 'fromGrid', 'capacityPercent'] as const;
const bits = (x: Float64Array) => new BigUint64Array(x.buffer, x.byteOffset, x.length);

function differences(a: StorageRun, b: StorageRun): string[] {
  const out: string[] = [];
  for (const name of ARRAYS) {
    const x = bits(a[name]);
    const y = bits(b[name]);
    let n = 0;
    for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) n++;
    if (n > 0) out.push(`${name}: ${n} values`);
  }
  if (a.replacements.join() !== b.replacements.join()) out.push('replacements');
  return out;
}

t.test('25 years with the kernel are those in JavaScript, to the bit', async (t) => {
  const base = plantHours(39);
  for (const [name, s, shape] of CASES) {
    const plant = shape(base);
    const cost = (y: number) => s.costs.variable_om_per_mwh * 1.02 ** y;
    const js = runStorage(s, plant, cost, undefined, false);
    const kernel = runStorage(s, plant, cost, undefined, true);
    const kept = runStorage(s, plant, cost, keptRunSeries(), true);
    t.equal(kept.charge, keptRunSeries().charge, `${name}: written into the kernel's series`);
    const inPlace = { ...kept, ...Object.fromEntries(ARRAYS.map((a) => [a, kept[a].slice()])) };
    t.same(differences(js, kernel), [], `${name}: every hour and year identical (days committed in JavaScript)`);
    t.same(differences(js, inPlace), [], `${name}: every hour and year identical (into the kernel's series)`);
    const charged = js.charge.filter((x) => x > 0).length;
    t.ok(charged > HOURS / 20, `${name}: the battery works (${charged} charging hours)`);
    if (s.replacement.at_capacity_percent !== null)
      t.ok(
        js.replacements.some((n) => n > 0),
        `${name}: replaced`,
      );
    if (s.degradation.cycle) t.ok(js.capacityPercent[YEARS - 1] < 100, `${name}: the rainflow count faded it`);
  }
});

t.test('a run that differs shows (the comparison can fail)', async (t) => {
  const [, s] = CASES[1];
  const plant = plantHours(40);
  const js = runStorage(s, plant, () => 0, undefined, false);
  const other = runStorage(
    { ...s, round_trip_efficiency_percent: s.round_trip_efficiency_percent - 1e-9 },
    plant,
    () => 0,
  );
  t.not(differences(js, other).length, 0, 'a round trip 1e-9 % lower changes hours');
});
