// The battery's capacity fade against NREL SSC's test/shared_test/lib_battery_lifetime_test.cpp
// (tables from lib_battery_lifetime_test.h; SSC's tolerance 0.01 unless said).
import t, { type Test } from 'tap';
import { BatteryLifetime, CycleLifetime, calendarCapacity } from '../worker/engine/storage/storage.lifetime.ts';

// SSC's cycles_vs_DOD: depth, cycles, capacity.
const CYCLE_TABLE = [
  [20, 0, 100],
  [20, 5000, 80],
  [20, 10000, 60],
  [80, 0, 100],
  [80, 1000, 80],
  [80, 2000, 60],
].map(([dod_percent, cycles, capacity_percent]) => ({ dod_percent, cycles, capacity_percent }));
const CALENDAR_TABLE = [
  { day: 0, capacity_percent: 100 },
  { day: 3650, capacity_percent: 80 },
  { day: 7300, capacity_percent: 50 },
];
const TOL = 0.01;
const near = (t: Test, actual: number, expected: number, what: string, tol = TOL) =>
  t.ok(Math.abs(actual - expected) <= tol, `${what}: ${actual} (SSC ${expected} ± ${tol})`);

/** SSC's q_relative_cycle, cycle_range, average_range and n_cycles after a run. */
function expectState(
  t: Test,
  m: CycleLifetime,
  e: { q: number; range: number; average: number; cycles: number },
  when: string,
): void {
  near(t, m.capacityPercent, e.q, `q (${when})`);
  near(t, m.lastRange, e.range, 'cycle range');
  near(t, m.averageRange, e.average, 'average range');
  near(t, m.cycles, e.cycles, 'cycles');
}

t.test('SetUpTest: a new bank is at 100 %', async (t) => {
  t.equal(new CycleLifetime(CYCLE_TABLE).capacityPercent, 100);
});

t.test('runCycleLifetimeTest: 5/95 then 80/90', async (t) => {
  const m = new CycleLifetime(CYCLE_TABLE);
  let i = 0;
  for (; i < 500; i++) m.turn(i % 2 ? 95 : 5);
  expectState(t, m, { q: 95.02, range: 90, average: 90, cycles: 249 }, 'q after 500 turns');
  for (; i < 1000; i++) m.turn(i % 2 ? 90 : 80);
  expectState(t, m, { q: 94.52, range: 10, average: 50, cycles: 498 }, 'q after 1000 turns (shallow cycles fade less)');
});

t.test('runCycleLifetimeTestJaggedProfile: 4 cycles', async (t) => {
  const m = new CycleLifetime(CYCLE_TABLE);
  for (const dod of [5, 95, 50, 85, 10, 50, 5, 95, 5]) m.turn(dod);
  expectState(t, m, { q: 99.95, range: 90, average: 63.75, cycles: 4 }, 'q');
});

t.test('runCycleLifetimeTestKokamProfile: 13 cycles', async (t) => {
  const soc = [
    0.66, 1.0, 0.24722075172048893, 1.0, 0.24559790735021855, 0.9989411900454035, 0.24559790735021936,
    0.9989411900454057, 0.24573025859454606, 0.9990735412897335, 0.24625966357184892, 0.9992058925340614,
    0.2466567173048243, 0.9992058925340647, 0.2465243660605033, 0.9982794338237967, 0.24718612228213058,
    0.9992058925340731, 0.24718612228213466, 0.9982794338238032, 0.24612731232753976, 0.9981470825794796,
    0.24625966357186685, 0.9984117850681331, 0.24678906854916766, 0.9984117850681358, 0.24731847352646982,
    0.9985441363124643, 0.24784787850377074, 0.9988088388011173, 0.24784787850377454,
  ];
  const m = new CycleLifetime(CYCLE_TABLE);
  for (const s of soc) m.turn((1 - s) * 100);
  expectState(t, m, { q: 99.77, range: 75.07, average: 72.03, cycles: 13 }, 'q');
});

t.test('replaceBatteryTest (cycle): 749 cycles to 85.02 %, a 5 % replacement to 90.02 %', async (t) => {
  const m = new CycleLifetime(CYCLE_TABLE);
  for (let i = 0; i < 1500; i++) m.turn(i % 2 ? 95 : 5);
  near(t, m.capacityPercent, 85.02, 'q');
  near(t, m.cycles, 749, 'cycles');
  m.replace(5);
  near(t, m.capacityPercent, 90.019, 'q after replacing 5 %');
  near(t, m.cycles, 749, 'a partial replacement keeps the count');
  m.replace(100);
  t.equal(m.capacityPercent, 100, 'a new bank');
  t.equal(m.cycles, 0, 'a new bank starts its count again');
});

t.test('runCalendarMatrixTest and replaceBatteryTest (calendar table)', async (t) => {
  near(t, 499 / 24, 20.79, 'day age after 500 hours');
  near(t, calendarCapacity(CALENDAR_TABLE, 499 / 24), 99.89, 'q at 20.79 days');
  near(t, calendarCapacity(CALENDAR_TABLE, 999 / 24), 99.775, 'q at 41.625 days');
  near(t, calendarCapacity(CALENDAR_TABLE, 199999 / 24), 41.51, 'q at 8333.29 days (extrapolated past the table)');
  const life = new BatteryLifetime(undefined, CALENDAR_TABLE);
  near(t, life.update(199999), 41.51, 'the bank at 8333.29 days');
  life.replace(200000);
  t.equal(life.capacityPercent, 100, 'replaced: day age 0, capacity 100');
  near(t, life.update(200000 + 499), 99.89, 'and ageing again from its installation');
});

t.test('TestCycleDegradationDifferentOrdering: 52.02 % either way round (± 0.1)', async (t) => {
  for (const order of [
    [100, 20],
    [20, 100],
  ]) {
    const m = new CycleLifetime(CYCLE_TABLE);
    for (const depth of order) for (let i = 0; i < 4000; i++) m.turn(i % 2 === 0 ? depth : 0);
    near(t, m.capacityPercent, 52.02, `depth ${order[0]} first`, 0.1);
  }
});

t.test('capacity = 100 − cycle loss − calendar loss, and never rises before a replacement', async (t) => {
  const life = new BatteryLifetime(CYCLE_TABLE, CALENDAR_TABLE);
  for (let i = 0; i < 100; i++) life.turn(i % 2 ? 95 : 5);
  const cycle = new CycleLifetime(CYCLE_TABLE);
  for (let i = 0; i < 100; i++) cycle.turn(i % 2 ? 95 : 5);
  const q = life.update(365 * 24 - 1);
  near(
    t,
    q,
    100 - (100 - cycle.capacityPercent) - (100 - calendarCapacity(CALENDAR_TABLE, 365)),
    'sum of losses',
    1e-9,
  );
  t.ok(life.update(0) <= q, 'an earlier hour does not raise it');
});
