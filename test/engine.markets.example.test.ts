// docs/markets.md's worked example, "One year on a duck curve": a flat 40 MW wind plant and a 20 MW /
// 80 MWh battery (round trip 88 %, the default) behind a 100 MW limit, sold at the merchant price of a stylised CAISO-like spring
// day repeated all year, with regulation up and down and a capacity payment on HOPP's top-hours
// rule. The lines the doc quotes for year 1, each also checked against its definition.
import t from 'tap';
import { HOURS_PER_YEAR } from '../shared/calendar.ts';
import { calculate, loadReserveSolver } from '../worker/engine/index.ts';
import { resolvedInputs } from './fixtures/inputs.ts';

await loadReserveSolver();

/** The day's price by hour (per MWh): a night plateau, a morning bump, the solar belly below 0, the evening ramp. */
const DUCK = [45, 42, 40, 40, 42, 48, 55, 45, 25, 10, 2, -5, -8, -5, 2, 15, 40, 80, 120, 140, 110, 80, 60, 50];
const prices = Array.from({ length: HOURS_PER_YEAR }, (_, h) => DUCK[h % 24]);
/** A system load whose peak is 18:00–20:59 every day, a little higher each day (the top hours: the evening). */
const systemLoad = Array.from({ length: HOURS_PER_YEAR }, (_, h) => {
  const hod = h % 24;
  return 30_000 + (hod >= 18 && hod <= 20 ? 8_000 : 0) + h * 1e-3;
});

const inputs = resolvedInputs({
  solar: { capacity_mw_dc: 0 },
  wind: {
    capacity_mw: 100,
    degradation_percent_per_year: 0,
    profile: { hourly_mw: Array.from({ length: HOURS_PER_YEAR }, () => 40), for_capacity_mw: 100 },
  },
  grid: { export_limit_mw: 100 },
  market: {
    ppa_share: 0,
    merchant_escalation_percent: 0,
    merchant_hourly_prices: prices,
    ancillary: [
      {
        name: 'reg_up',
        direction: 'up',
        price_per_mw_hour: 6,
        duration_hours: 1,
        deployed_share: 0.05,
        escalation_percent: 0,
      },
      {
        name: 'reg_down',
        direction: 'down',
        price_per_mw_hour: 4,
        duration_hours: 1,
        deployed_share: 0.05,
        escalation_percent: 0,
      },
    ],
    capacity: {
      price_per_mw_year: 60_000,
      escalation_percent: 0,
      credit: { top_hours: 100, system_load_mw: systemLoad },
    },
  },
  storage: { power_mw: 20, energy_mwh: 80 },
});

const close = (a: number, b: number) => Math.abs(a - b) <= 1e-6 * Math.max(1, Math.abs(b));

t.test('one year on a duck curve: energy, reserves and capacity lines', async (t) => {
  const r = calculate(inputs);
  const y1 = r.income_statement[0].revenue;
  const series = (x: ArrayLike<number> | undefined) => (x as Float64Array).subarray(0, HOURS_PER_YEAR);
  const charge = series(r.storage_charge_hourly);
  const discharge = series(r.storage_discharge_hourly);
  const up = series(r.storage_reserve_up_hourly);
  const down = series(r.storage_reserve_down_hourly);

  // Energy: the wind's 40 MW at every hour's price (the day sums to 1,073), and the battery's net.
  t.equal(
    DUCK.reduce((a, b) => a + b, 0),
    1073,
    'the day sums to 1,073 per MWh',
  );
  t.ok(close(y1.merchant_wind, 40 * 365 * 1073), `wind: 40 × 365 × 1,073 = 15,665,800 (${y1.merchant_wind})`);
  let storage = 0;
  let upLine = 0;
  let downLine = 0;
  for (let h = 0; h < HOURS_PER_YEAR; h++) {
    const p = prices[h];
    storage += (discharge[h] - charge[h]) * p;
    upLine += up[h] * 6 + 0.05 * up[h] * p;
    downLine += down[h] * 4 - 0.05 * down[h] * p;
  }
  t.ok(close(y1.merchant_storage ?? Number.NaN, storage), 'battery: Σ (discharge − charge) × price');
  t.ok(close(y1.ancillary?.reg_up ?? Number.NaN, upLine), 'reg_up: Σ MW × 6 + 5 % deployed, sold at the price');
  t.ok(close(y1.ancillary?.reg_down ?? Number.NaN, downLine), 'reg_down: Σ MW × 4 − 5 % deployed, bought at the price');
  // Capacity: in the evening top hours the wind's 40 MW and the battery's full 20 MW count: 60 % of 100 MW.
  t.ok(close(r.kpis.capacity_credit_percent ?? Number.NaN, 60), `credit 60 % (${r.kpis.capacity_credit_percent})`);
  t.ok(close(y1.capacity ?? Number.NaN, 60_000 * 0.6 * 100), 'capacity: 60,000 × 60 % × 100 MW = 3,600,000');

  // The figures docs/markets.md quotes, rounded to the unit.
  t.same(
    {
      merchant_wind: Math.round(y1.merchant_wind),
      merchant_storage: Math.round(y1.merchant_storage ?? Number.NaN),
      reg_up: Math.round(y1.ancillary?.reg_up ?? Number.NaN),
      reg_down: Math.round(y1.ancillary?.reg_down ?? Number.NaN),
      capacity: Math.round(y1.capacity ?? Number.NaN),
      total: Math.round(y1.total),
      discharge_mwh: Math.round(r.annual[0].storage_discharge_mwh ?? Number.NaN),
    },
    {
      merchant_wind: 15_665_800,
      merchant_storage: 2_865_578,
      reg_up: 639_746,
      reg_down: 135_133,
      capacity: 3_600_000,
      total: 22_906_257,
      discharge_mwh: 29_787,
    },
  );
  t.ok(
    close(y1.total, y1.merchant_wind + storage + upLine + downLine + 3_600_000),
    'the total is the sum of the lines',
  );

  // The day's shape: full charge in the belly (11:00–12:59) and full discharge at the peak (18:00–19:59), every day.
  let belly = Number.POSITIVE_INFINITY;
  let peak = Number.POSITIVE_INFINITY;
  for (let d = 0; d < 365; d++) {
    belly = Math.min(belly, charge[d * 24 + 11], charge[d * 24 + 12]);
    peak = Math.min(peak, discharge[d * 24 + 18], discharge[d * 24 + 19]);
  }
  t.ok(close(belly, 20), `charges 20 MW at 11:00 and 12:00 every day (least ${belly})`);
  t.ok(close(peak, 20), `discharges 20 MW at 18:00 and 19:00 every day (least ${peak})`);
});
