// Capacity and curtailment payments through the whole engine: the capacity line is price × credit ×
// accredited MW, escalated, with the credit given or HOPP's top-hours rule on year 1's output; the
// curtailment line pays the MWh the operator's hourly limit cut below the fixed one, and only those.
import t, { type Test } from 'tap';
import { HOURS_PER_YEAR, YEARS } from '../shared/calendar.ts';
import type { ScenarioInputs } from '../shared/schemas/inputs.ts';
import { calculate, type EngineResult, loadReserveSolver } from '../worker/engine/index.ts';
import { type DeepPartial, resolvedInputs } from './fixtures/inputs.ts';

/** A wind farm of 100 MW whose output is `mw(h)` every year (a profile, no degradation), and no solar. */
const windOnly = (mw: (h: number) => number, more: DeepPartial<ScenarioInputs> = {}) =>
  resolvedInputs({
    ...more,
    solar: { capacity_mw_dc: 0 },
    wind: {
      capacity_mw: 100,
      degradation_percent_per_year: 0,
      profile: { hourly_mw: Array.from({ length: HOURS_PER_YEAR }, (_, h) => mw(h)), for_capacity_mw: 100 },
    },
  });

/** A system load that peaks at 14:00–15:59 every day, highest in midsummer (no two hours equal). */
const systemLoad = Array.from({ length: HOURS_PER_YEAR }, (_, h) => {
  const day = Math.floor(h / 24);
  const hod = h % 24;
  return 1000 + (hod === 14 || hod === 15 ? 500 : 0) + 100 * Math.sin((Math.PI * day) / 365) + h * 1e-6;
});

const close = (a: number, b: number) => Math.abs(a - b) <= 1e-6 * Math.max(1, Math.abs(b));

function checkCapacityLines(t: Test, r: EngineResult, price: number, escalation: number, credit: number, mw: number) {
  let all = 0;
  for (let i = 0; i < YEARS; i++) {
    const rev = r.income_statement[i].revenue;
    const expected = price * (1 + escalation / 100) ** i * (credit / 100) * mw;
    if (!close(rev.capacity ?? Number.NaN, expected)) t.fail(`year ${i + 1}: capacity ${rev.capacity} ≠ ${expected}`);
    const lines =
      rev.ppa_solar +
      rev.ppa_wind +
      rev.merchant_solar +
      rev.merchant_wind +
      (rev.ppa_storage ?? 0) +
      (rev.merchant_storage ?? 0);
    if (!close(rev.total, lines + expected)) t.fail(`year ${i + 1}: total ${rev.total} ≠ lines + capacity`);
    all += expected;
  }
  t.ok(close(r.revenue_breakdown.by_source.capacity ?? Number.NaN, all), 'the breakdown sums the capacity lines');
  t.equal(r.kpis.capacity_credit_percent, credit, 'the KPI is the credit');
}

t.test(
  'a given credit: price × credit × accredited MW × (1 + e)^(y − 1), accredited behind the export limit',
  async (t) => {
    const base = resolvedInputs({ grid: { export_limit_mw: 150 } });
    const withCapacity = resolvedInputs({
      grid: { export_limit_mw: 150 },
      market: { capacity: { price_per_mw_year: 60_000, escalation_percent: 2, credit: { percent: 40 } } },
    });
    const without = calculate(base);
    const r = calculate(withCapacity);
    // The default plant: 100 MW DC / 1.2 of solar + 100 MW of wind = 183.3 MW, behind a 150 MW limit.
    checkCapacityLines(t, r, 60_000, 2, 40, 150);
    t.equal(r.income_statement[0].revenue.capacity, 60_000 * 0.4 * 150, 'year 1: 3.6 million');
    for (let i = 0; i < YEARS; i++) {
      const a = without.income_statement[i].revenue;
      const b = r.income_statement[i].revenue;
      if (a.merchant_solar !== b.merchant_solar || a.ppa_wind !== b.ppa_wind)
        t.fail(`year ${i + 1}: energy lines moved`);
    }
    t.equal(without.kpis.capacity_credit_percent, undefined, 'no KPI without market.capacity');
    t.equal(without.income_statement[0].revenue.capacity, undefined, 'no line without market.capacity');
    t.ok(r.kpis.equity_npv > without.kpis.equity_npv, 'the payment raises the equity NPV');
    const noLimit = calculate(
      resolvedInputs({
        market: { capacity: { price_per_mw_year: 60_000, escalation_percent: 0, credit: { percent: 40 } } },
      }),
    );
    checkCapacityLines(t, noLimit, 60_000, 0, 40, 100 / 1.2 + 100);
  },
);

t.test("HOPP's rule through the engine: constant output at half the nameplate earns 50 %", async (t) => {
  const capacity = {
    price_per_mw_year: 50_000,
    escalation_percent: 1,
    credit: { top_hours: 100, system_load_mw: systemLoad },
  };
  const r = calculate(windOnly(() => 50, { market: { capacity } }));
  t.equal(r.kpis.capacity_credit_percent, 50);
  checkCapacityLines(t, r, 50_000, 1, 50, 100);
});

t.test("HOPP's rule: only the top hours count, and the credit follows the plant's output there", async (t) => {
  const capacity = {
    price_per_mw_year: 50_000,
    escalation_percent: 2,
    credit: { top_hours: 200, system_load_mw: systemLoad },
  };
  // 80 MW in the afternoon peak, 20 MW otherwise: the 200 highest loads are all at 14:00–15:59.
  const r = calculate(windOnly((h) => (h % 24 === 14 || h % 24 === 15 ? 80 : 20), { market: { capacity } }));
  t.ok(close(r.kpis.capacity_credit_percent ?? Number.NaN, 80), `80 % (${r.kpis.capacity_credit_percent})`);
  checkCapacityLines(t, r, 50_000, 2, r.kpis.capacity_credit_percent as number, 100);
  // docs/markets.md's worked example.
  t.ok(close(r.income_statement[0].revenue.capacity ?? 0, 4_000_000), 'year 1: 4,000,000');
  t.ok(Math.abs((r.income_statement[9].revenue.capacity ?? 0) - 4_780_370.27) < 0.01, 'year 10: 4,780,370.27');
  // The opposite shape: high everywhere but at the peak.
  const offPeak = calculate(windOnly((h) => (h % 24 === 14 || h % 24 === 15 ? 10 : 90), { market: { capacity } }));
  t.ok(close(offPeak.kpis.capacity_credit_percent ?? Number.NaN, 10), `10 % (${offPeak.kpis.capacity_credit_percent})`);
});

t.test(
  "HOPP's rule with a battery: its discharge plus what it holds, capped at its power, beside the plant",
  async (t) => {
    const capacity = {
      price_per_mw_year: 40_000,
      escalation_percent: 0,
      credit: { top_hours: 300, system_load_mw: systemLoad },
    };
    const r = calculate(
      resolvedInputs({
        grid: { export_limit_mw: 150 },
        storage: { power_mw: 30, energy_mwh: 120 },
        market: { capacity },
      }),
    );
    const accredited = Math.min(100 / 1.2 + 100 + 30, 150);
    const top = [...systemLoad.keys()].sort((a, b) => systemLoad[b] - systemLoad[a]).slice(0, 300);
    let sum = 0;
    for (const h of top) {
      const battery = Math.min(
        (r.storage_discharge_hourly as Float64Array)[h] + (r.storage_soc_hourly as Float64Array)[h],
        30,
      );
      sum += Math.min((r.solar_hourly[h] + r.wind_hourly[h] + battery) / accredited, 1);
    }
    const expected = (100 * sum) / 300;
    t.ok(
      close(r.kpis.capacity_credit_percent ?? Number.NaN, expected),
      `${r.kpis.capacity_credit_percent} = ${expected}`,
    );
    t.ok(expected > 0 && expected < 100, 'a credit strictly between 0 and 100');
    checkCapacityLines(t, r, 40_000, 0, r.kpis.capacity_credit_percent as number, accredited);
  },
);

t.test('a solved PPA price keeps the capacity line', async (t) => {
  const r = calculate(
    resolvedInputs({
      market: {
        ppa_price_per_mwh: 'solve',
        capacity: { price_per_mw_year: 30_000, escalation_percent: 1.5, credit: { percent: 25 } },
      },
      finance: { target_equity_irr_percent: 10 },
    }),
  );
  checkCapacityLines(t, r, 30_000, 1.5, 25, 100 / 1.2 + 100);
});

t.test("curtailment: the operator's series halves the limit at known hours; only its cut is paid", async (t) => {
  // 60 MW every hour, 90 MW at 10:00 and 20:00; a fixed limit of 80 MW. The operator halves it to 40
  // MW at 03:00 (a cut of 20 MWh, paid) and lowers it to 70 MW at 20:00 (the fixed limit cuts 10 MWh,
  // not paid; the operator 10 more, paid); at 10:00 the fixed limit alone cuts 10 MWh (not paid).
  const output = (h: number) => (h % 24 === 10 || h % 24 === 20 ? 90 : 60);
  const operator = Array.from({ length: HOURS_PER_YEAR }, (_, h) => (h % 24 === 3 ? 40 : h % 24 === 20 ? 70 : 80));
  const r = calculate(
    windOnly(output, {
      grid: { export_limit_mw: 80, export_limit_hourly_mw: operator },
      market: { curtailment_payment_per_mwh: 12, curtailment_payment_escalation_percent: 3 },
    }),
  );
  const days = HOURS_PER_YEAR / 24;
  let all = 0;
  for (let i = 0; i < YEARS; i++) {
    const a = r.annual[i];
    if (!close(a.curtailed_by_operator_mwh ?? Number.NaN, days * 30))
      t.fail(`year ${i + 1}: ${a.curtailed_by_operator_mwh} MWh by the operator`);
    if (!close(a.curtailed_mwh, days * 50)) t.fail(`year ${i + 1}: ${a.curtailed_mwh} MWh curtailed in all`);
    const expected = 12 * 1.03 ** i * days * 30;
    const rev = r.income_statement[i].revenue;
    if (!close(rev.curtailment_payment ?? Number.NaN, expected))
      t.fail(`year ${i + 1}: payment ${rev.curtailment_payment} ≠ ${expected}`);
    if (!close(rev.total, rev.ppa_wind + rev.merchant_wind + expected)) t.fail(`year ${i + 1}: total`);
    all += expected;
  }
  t.equal(r.annual[0].curtailed_by_operator_mwh, days * 30, 'year 1: 10,950 MWh by the operator');
  t.equal(r.income_statement[0].revenue.curtailment_payment, 12 * days * 30, 'year 1: 131,400');
  t.ok(close(r.income_statement[1].revenue.curtailment_payment ?? 0, 135_342), 'year 2: 135,342');
  t.ok(close(r.revenue_breakdown.by_source.curtailment ?? Number.NaN, all), 'the breakdown sums the payments');
  for (let h = 0; h < 48; h++) {
    const limit = Math.min(80, operator[h]);
    t.equal(r.wind_hourly[h], Math.min(output(h), limit), `hour ${h}: min(output, the hour's limit)`);
  }
  const unpaid = calculate(windOnly(output, { grid: { export_limit_mw: 80, export_limit_hourly_mw: operator } }));
  t.equal(unpaid.income_statement[0].revenue.curtailment_payment, undefined, 'no payment line without a payment');
  t.equal(unpaid.annual[0].curtailed_by_operator_mwh, days * 30, 'the MWh are reported all the same');
  const fixedOnly = calculate(windOnly(output, { grid: { export_limit_mw: 80 } }));
  t.equal(fixedOnly.annual[0].curtailed_mwh, days * 20, 'the fixed limit alone: 20 MWh a day');
  t.equal(fixedOnly.annual[0].curtailed_by_operator_mwh, undefined, 'no operator column without its series');
});

t.test("with a buyer's load: the payments are added to the load's revenue lines", async (t) => {
  const output = (h: number) => (h % 24 === 10 ? 90 : 60);
  const operator = Array.from({ length: HOURS_PER_YEAR }, (_, h) => (h % 24 === 10 ? 45 : 80));
  const r = calculate(
    windOnly(output, {
      load: { flat_mw: 30 },
      grid: { export_limit_mw: 80, export_limit_hourly_mw: operator },
      market: {
        capacity: { price_per_mw_year: 20_000, escalation_percent: 0, credit: { percent: 60 } },
        curtailment_payment_per_mwh: 8,
      },
    }),
  );
  const days = HOURS_PER_YEAR / 24;
  for (const i of [0, 12, 24]) {
    const rev = r.income_statement[i].revenue;
    t.ok((rev.load_contract ?? 0) > 0, `year ${i + 1}: the load's contract line`);
    t.ok(close(rev.capacity ?? Number.NaN, 20_000 * 0.6 * 80), `year ${i + 1}: capacity on 80 MW`);
    // At 10:00 the fixed limit cuts 10 MWh, the operator 35 more.
    t.ok(close(rev.curtailment_payment ?? Number.NaN, 8 * days * 35), `year ${i + 1}: ${rev.curtailment_payment}`);
    const lines =
      (rev.load_contract ?? 0) + (rev.load_excess ?? 0) + (rev.capacity ?? 0) + (rev.curtailment_payment ?? 0);
    t.ok(close(rev.total, lines), `year ${i + 1}: the total has them`);
  }
});

t.test(
  "the operator's series with a battery: export under each hour's limit, the cut stored when it can, only the rest paid",
  async (t) => {
    // 60 MW every hour, 90 MW at 10:00; a fixed limit of 80 MW. The operator lowers it to 40 MW at
    // 03:00 (a cut of 20 MWh, which a 10 MW battery can half store) and to 65 MW at 15:00 (no cut:
    // only 5 MW of room for the battery, in the dearest hour). The battery charges only from what the
    // limits cut.
    const prices = Array.from({ length: HOURS_PER_YEAR }, (_, h) => (h % 24 === 15 ? 90 : 30));
    const output = (h: number) => (h % 24 === 10 ? 90 : 60);
    const operator = Array.from({ length: HOURS_PER_YEAR }, (_, h) => (h % 24 === 3 ? 40 : h % 24 === 15 ? 65 : 80));
    const inputs = (payment: boolean) =>
      windOnly(output, {
        grid: { export_limit_mw: 80, export_limit_hourly_mw: operator },
        storage: { power_mw: 10, energy_mwh: 40, charge_from_grid: false, dispatch: { strategy: 'capture' } },
        market: {
          ppa_share: 0,
          merchant_hourly_prices: prices,
          ...(payment ? { curtailment_payment_per_mwh: 12 } : {}),
        },
      });
    const r = calculate(inputs(true));
    const grid = r.grid_hourly as Float64Array;
    const charge = r.storage_charge_hourly as Float64Array;
    const discharge = r.storage_discharge_hourly as Float64Array;
    let over = 0;
    let stored03 = 0;
    let room15 = 0;
    let fixed15 = 0;
    const unstored = new Float64Array(YEARS);
    for (let k = 0; k < YEARS * HOURS_PER_YEAR; k++) {
      const h = k % HOURS_PER_YEAR;
      const limit = Math.min(80, operator[h]);
      over = Math.max(over, grid[k] - limit);
      if (h % 24 === 3) {
        stored03 += charge[k];
        unstored[Math.floor(k / HOURS_PER_YEAR)] += Math.max(0, 20 - charge[k]);
      }
      if (h % 24 === 15) room15 = Math.max(room15, discharge[k]);
      if (h % 24 === 15) fixed15 += discharge[k];
    }
    t.ok(over <= 1e-9, `export never above the hour's limit (worst excess ${over} MW)`);
    t.ok(room15 <= 5 + 1e-9, `at 15:00 the battery discharges at most into the operator's 5 MW of room (${room15})`);
    const days = HOURS_PER_YEAR / 24;
    t.ok(
      stored03 > 0.9 * YEARS * days * 10,
      `the battery stores most of what it can of the 03:00 cut (${stored03} MWh)`,
    );
    for (let i = 0; i < YEARS; i++) {
      const a = r.annual[i];
      if (!close(a.curtailed_by_operator_mwh ?? Number.NaN, unstored[i]))
        t.fail(
          `year ${i + 1}: ${a.curtailed_by_operator_mwh} MWh by the operator ≠ its cut less the stored ${unstored[i]}`,
        );
      const paid = r.income_statement[i].revenue.curtailment_payment ?? Number.NaN;
      if (!close(paid, 12 * unstored[i])) t.fail(`year ${i + 1}: payment ${paid} ≠ 12 × ${unstored[i]}`);
    }
    t.ok(
      (r.annual[0].curtailed_by_operator_mwh ?? Number.NaN) < days * 20,
      'less than the 20 MWh a day cut before the battery',
    );
    t.ok(
      (r.annual[0].curtailed_by_operator_mwh ?? Number.NaN) >= days * 10 - 1e-6,
      'at least the 10 MWh a day beyond its power',
    );
    // The same plant with the fixed limit only: the battery has 20 MW of room at 15:00.
    const fixed = calculate(
      windOnly(output, {
        grid: { export_limit_mw: 80 },
        market: { ppa_share: 0, merchant_hourly_prices: prices },
        storage: { power_mw: 10, energy_mwh: 40, charge_from_grid: false, dispatch: { strategy: 'capture' } },
      }),
    );
    t.equal(fixed.annual[0].curtailed_by_operator_mwh, undefined, 'no operator column without its series');
    const fixedDischarge = fixed.storage_discharge_hourly as Float64Array;
    let then15 = 0;
    for (let k = 15; k < YEARS * HOURS_PER_YEAR; k += 24) then15 = Math.max(then15, fixedDischarge[k]);
    t.ok(then15 > 5 + 1e-6, `without the operator's 15:00 limit the battery discharges more then (${then15} MW)`);
    t.ok(fixed15 > 0, 'with it, it still sells into the 5 MW left');
  },
);

t.test("the operator's series with reserves: discharge + up reserve within each hour's room", async (t) => {
  await loadReserveSolver();
  // 60 MW every hour behind 80 MW; the operator: 40 MW at 03:00 (a cut: no room), 65 MW at 15:00 (5 MW of room).
  const operator = Array.from({ length: HOURS_PER_YEAR }, (_, h) => (h % 24 === 3 ? 40 : h % 24 === 15 ? 65 : 80));
  const r = calculate(
    windOnly(() => 60, {
      grid: { export_limit_mw: 80, export_limit_hourly_mw: operator },
      market: {
        ppa_share: 0,
        ancillary: [
          {
            name: 'reg_up',
            direction: 'up',
            price_per_mw_hour: 5,
            duration_hours: 1,
            deployed_share: 0,
            escalation_percent: 0,
          },
        ],
      },
      storage: { power_mw: 10, energy_mwh: 40 },
    }),
  );
  const discharge = r.storage_discharge_hourly as Float64Array;
  const up = r.storage_reserve_up_hourly as Float64Array;
  const grid = r.grid_hourly as Float64Array;
  let worst = Number.NEGATIVE_INFINITY;
  let at15 = 0;
  let at03 = 0;
  for (let k = 0; k < YEARS * HOURS_PER_YEAR; k++) {
    const limit = Math.min(80, operator[k % HOURS_PER_YEAR]);
    const room = limit < 60 ? 0 : limit - 60;
    worst = Math.max(worst, discharge[k] + up[k] - room, grid[k] - limit);
    if (k % 24 === 15) at15 = Math.max(at15, up[k]);
    if (k % 24 === 3) at03 = Math.max(at03, up[k] + discharge[k]);
  }
  t.ok(worst <= 1e-9, `discharge + up ≤ the hour's room, export ≤ its limit (worst excess ${worst})`);
  t.ok(at15 > 0 && at15 <= 5 + 1e-9, `at 15:00 up to the operator's 5 MW reserved (${at15})`);
  t.equal(at03, 0, 'nothing up at 03:00, when the operator cuts');
  t.ok((r.kpis.ancillary_revenue ?? 0) > 0, 'the product earns');
});
