// The capacity credit (HOPP's top-hours rule) and the capacity payment, on their own: HOPP's
// constant-output battery case gives 50 %, and the payment is price × credit × accredited MW, escalated.
import t from 'tap';
import { HOURS_PER_YEAR } from '../shared/calendar.ts';
import {
  accreditedMw,
  batteryAvailableMw,
  capacityCreditPercent,
  capacityRevenue,
  topHours,
} from '../worker/engine/market/market.capacity.ts';

/** A system load that peaks in the late afternoon of summer days. */
const systemLoad = Float64Array.from({ length: HOURS_PER_YEAR }, (_, h) => {
  const day = Math.floor(h / 24);
  return 1000 + 300 * Math.sin((Math.PI * (day - 80)) / 365) + 200 * Math.sin((Math.PI * ((h % 24) - 10)) / 14);
});

t.test(
  "HOPP's constant-output case: a 5 MW battery with 2.5 MW available every hour earns a 50 % credit",
  async (t) => {
    const accredited = accreditedMw(5, 15);
    t.equal(accredited, 5, 'accredited on min(nameplate, export limit)');
    const available = batteryAvailableMw(
      new Float64Array(HOURS_PER_YEAR).fill(1),
      new Float64Array(HOURS_PER_YEAR).fill(1.5),
      5,
      new Float64Array(HOURS_PER_YEAR),
    );
    t.equal(capacityCreditPercent(available, accredited, topHours(systemLoad, 100)), 50);
    t.equal(
      capacityCreditPercent(new Float64Array(HOURS_PER_YEAR), accredited, topHours(systemLoad, 100)),
      0,
      'nothing',
    );
    t.equal(capacityCreditPercent(available, accredited, topHours(systemLoad, 0)), 0, 'no capacity hours');
    t.equal(capacityCreditPercent(available, accreditedMw(5, 0), topHours(systemLoad, 100)), 0, 'no interconnection');
  },
);

t.test('the battery counts delivered plus stored energy, capped at its power', async (t) => {
  const out = batteryAvailableMw([2, 0, 1], [10, 1, 0.5], 4, new Float64Array(3));
  t.same([...out], [4, 1, 1.5]);
});

t.test('only the top hours count, each capped at the accredited MW', async (t) => {
  const top = topHours(systemLoad, 50);
  t.equal(top.length, 50);
  const inTop = new Set(top);
  const threshold = Math.min(...[...top].map((h) => systemLoad[h]));
  t.ok(
    systemLoad.every((l, h) => inTop.has(h) || l <= threshold),
    'no hour outside the set has a higher load',
  );
  const onlyThere = Float64Array.from({ length: HOURS_PER_YEAR }, (_, h) => (inTop.has(h) ? 80 : 0));
  t.equal(capacityCreditPercent(onlyThere, 40, top), 100, 'above the accredited MW counts as 100 %');
  const elsewhere = Float64Array.from({ length: HOURS_PER_YEAR }, (_, h) => (inTop.has(h) ? 0 : 40));
  t.equal(capacityCreditPercent(elsewhere, 40, top), 0, 'output outside the top hours earns nothing');
  const half = Float64Array.from({ length: HOURS_PER_YEAR }, (_, h) => (inTop.has(h) && h % 2 === 0 ? 40 : 10));
  const evens = [...top].filter((h) => h % 2 === 0).length;
  t.equal(capacityCreditPercent(half, 40, top), (100 * (evens + 0.25 * (50 - evens))) / 50, 'the mean share');
});

t.test('capacity revenue = price × credit × accredited MW, escalated', async (t) => {
  t.equal(capacityRevenue(100_000, 0, 50, 5, 1), 250_000, 'year 1');
  t.ok(Math.abs(capacityRevenue(100_000, 2, 50, 5, 3) - 250_000 * 1.02 ** 2) < 1e-6, 'year 3: × 1.02²');
});
