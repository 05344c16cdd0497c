// The whole engine on the default scenario and on edge cases: every returned
// statement must satisfy the identities that tie it together, so a reader can
// recompute each total, ratio and KPI from the rows beside it.
import { readFileSync } from 'node:fs';
import { FormatRegistry } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import t, { type Test } from 'tap';
import { isUuid } from '../shared/ids.ts';
import type { ResolvedInputs } from '../shared/schemas/inputs.ts';
import { HOURS_PER_YEAR, ScenarioResult, YEARS } from '../shared/schemas/result.ts';
import { npv } from '../worker/engine/discount.ts';
import { CalculationInputError, calculate, type EngineResult } from '../worker/engine/index.ts';
import { resolvedInputs } from './fixtures/inputs.ts';

/** Equal within a relative tolerance, with an absolute floor for values near 0. */
function near(t: Test, actual: number | null | undefined, expected: number, what: string, rel = 1e-9): void {
  const tolerance = rel * Math.max(1, Math.abs(expected));
  if (typeof actual !== 'number' || !(Math.abs(actual - expected) <= tolerance)) {
    t.fail(`${what}: ${actual} ≠ ${expected}`);
  }
}

const sum = (a: ArrayLike<number>, from = 0, to = a.length) => {
  let s = 0;
  for (let i = from; i < to; i++) s += a[i];
  return s;
};

function checkEnergy(t: Test, inputs: ResolvedInputs, r: EngineResult): void {
  t.equal(r.solar_hourly.length, YEARS * HOURS_PER_YEAR, 'solar: 25 × 8760 hours');
  t.equal(r.wind_hourly.length, YEARS * HOURS_PER_YEAR, 'wind: 25 × 8760 hours');
  t.equal(r.annual.length, YEARS);
  const limit = inputs.grid.export_limit_mw ?? Number.POSITIVE_INFINITY;
  let overLimit = 0;
  let negative = 0;
  for (let i = 0; i < r.solar_hourly.length; i++) {
    const s = r.solar_hourly[i];
    const w = r.wind_hourly[i];
    if (!(s >= 0 && w >= 0)) negative++;
    // With a battery, solar and wind include what they put into it: what they export is under the limit.
    const exported = s + w - (r.storage_charge_hourly?.[i] ?? 0);
    if (exported > limit * (1 + 1e-12) + 1e-9) overLimit++;
  }
  t.equal(negative, 0, 'no negative or NaN hour');
  t.equal(overLimit, 0, 'delivered never exceeds the export limit');
  r.annual.forEach((a, i) => {
    t.equal(a.year, i + 1);
    const from = i * HOURS_PER_YEAR;
    near(t, a.solar_mwh, sum(r.solar_hourly, from, from + HOURS_PER_YEAR), `year ${a.year} solar = Σ hourly`);
    near(t, a.wind_mwh, sum(r.wind_hourly, from, from + HOURS_PER_YEAR), `year ${a.year} wind = Σ hourly`);
    const stored = (a.storage_charge_from_plant_mwh ?? 0) + (a.storage_charge_from_grid_mwh ?? 0);
    const exported = a.solar_mwh + a.wind_mwh - stored + (a.storage_discharge_mwh ?? 0);
    near(t, a.export_mwh, exported, `year ${a.year} export = solar + wind − charge + discharge`);
    t.ok(a.curtailed_mwh >= 0);
    if (limit === Number.POSITIVE_INFINITY) t.equal(a.curtailed_mwh, 0, 'no limit, no curtailment');
    if (inputs.solar.capacity_mw_dc > 0) {
      near(t, a.solar_capacity_factor, a.solar_mwh / (inputs.solar.capacity_mw_dc * 8760), 'solar capacity factor');
    } else t.equal(a.solar_capacity_factor, null);
    if (inputs.wind.capacity_mw > 0) {
      near(t, a.wind_capacity_factor, a.wind_mwh / (inputs.wind.capacity_mw * 8760), 'wind capacity factor');
    } else t.equal(a.wind_capacity_factor, null);
  });
}

/** The equipment reserve's funding in `year`: each replacement funded evenly over its interval. */
function equipmentFunding(inputs: ResolvedInputs, year: number): number {
  const f = inputs.finance;
  const e = f.reserves.equipment;
  const perYear1 =
    inputs.solar.capacity_mw_dc * 1000 * e.solar_per_kw_dc + inputs.wind.capacity_mw * 1000 * e.wind_per_kw;
  const end = Math.ceil(year / e.every_years) * e.every_years;
  return end > YEARS ? 0 : (perYear1 * (1 + f.inflation_percent / 100) ** (end - 1)) / e.every_years;
}

function checkStatements(t: Test, inputs: ResolvedInputs, r: EngineResult): void {
  const f = inputs.finance;
  const stateRate = f.state_tax_rate_percent / 100;
  const federalRate = f.tax_rate_percent / 100;
  t.equal(r.income_statement.length, YEARS);
  t.equal(r.cash_flow.length, YEARS + 1);
  t.same(
    r.cash_flow.map((c) => c.year),
    Array.from({ length: YEARS + 1 }, (_, i) => i),
  );
  let ppa = 0;
  let merchant = 0;
  let solar = 0;
  let wind = 0;
  let payments = 0;
  for (const is of r.income_statement) {
    const v = is.revenue;
    const y = `year ${is.year}`;
    const storagePpa = v.ppa_storage ?? 0;
    const storageMerchant = v.merchant_storage ?? 0;
    const lines = v.ppa_solar + v.ppa_wind + v.merchant_solar + v.merchant_wind + storagePpa + storageMerchant;
    const paid = (v.capacity ?? 0) + (v.curtailment_payment ?? 0);
    payments += paid;
    near(t, v.total, lines + paid, `${y} revenue total`);
    ppa += v.ppa_solar + v.ppa_wind + storagePpa;
    merchant += v.merchant_solar + v.merchant_wind + storageMerchant;
    solar += v.ppa_solar + v.merchant_solar;
    wind += v.ppa_wind + v.merchant_wind;
    const o = is.operating_expenses;
    const storageOpex = (o.storage_fixed_om ?? 0) + (o.storage_variable_om ?? 0) + (o.storage_replacement ?? 0);
    const opex = o.fixed_om + o.variable_om + o.insurance + o.property_tax + o.land_lease + storageOpex;
    near(t, o.total, opex, `${y} opex total`);
    near(t, is.ebitda, v.total + is.salvage_value - o.total, `${y} EBITDA`);
    near(t, is.pre_tax_income, is.ebitda + is.reserve_interest - is.depreciation - is.interest, `${y} pre-tax income`);
    near(t, is.state_income_tax, stateRate * is.pre_tax_income, `${y} state income tax`);
    near(t, is.federal_income_tax, federalRate * (is.pre_tax_income - is.state_income_tax), `${y} federal tax`);
    near(t, is.income_tax, is.state_income_tax + is.federal_income_tax, `${y} income tax`);
    near(t, is.net_income, is.pre_tax_income - is.income_tax + is.tax_credits.total, `${y} net income`);
    const tc = is.tax_credits;
    const credits = tc.itc_solar + tc.itc_wind + tc.ptc_solar + tc.ptc_wind + (tc.itc_storage ?? 0);
    near(t, tc.total, credits, `${y} tax credits sum`);
  }
  const b = r.revenue_breakdown;
  near(t, b.by_source.ppa, ppa, 'breakdown ppa');
  near(t, b.by_source.merchant, merchant, 'breakdown merchant');
  near(t, b.by_technology.solar, solar, 'breakdown solar');
  near(t, b.by_technology.wind, wind, 'breakdown wind');
  near(t, (b.by_source.capacity ?? 0) + (b.by_source.curtailment ?? 0), payments, 'breakdown payments');
  near(t, b.total, ppa + merchant + payments, 'breakdown total');

  let cumulative = 0;
  let principal = 0;
  const dscrs: number[] = [];
  for (const c of r.cash_flow) {
    const y = `cash flow year ${c.year}`;
    if (c.year > 0) {
      const is = r.income_statement[c.year - 1];
      t.equal(c.ebitda, is.ebitda);
      t.equal(c.income_tax, is.income_tax);
      t.same(c.tax_credits, is.tax_credits, 'the same credits in both statements');
      t.equal(c.interest, is.interest);
      t.equal(c.reserve_interest, is.reserve_interest);
      t.equal(c.capex, 0);
      t.equal(c.debt_drawdown, 0);
    }
    near(t, c.cfads, c.year === 0 ? 0 : c.ebitda - equipmentFunding(inputs, c.year), `${y} CFADS (SAM Single Owner)`);
    const service = c.interest + c.principal;
    if (service > 0) {
      near(t, c.dscr, c.cfads / service, `${y} DSCR`);
      dscrs.push(c.cfads / service);
    } else t.equal(c.dscr, null, `${y} no debt service, no DSCR`);
    const equity =
      c.debt_drawdown -
      c.capex -
      c.debt_fee +
      c.ebitda +
      c.reserve_interest -
      c.income_tax +
      c.tax_credits.total -
      c.interest -
      c.principal -
      c.reserve_funding;
    near(t, c.equity_cash_flow, equity, `${y} equity cash flow`);
    cumulative += c.equity_cash_flow;
    near(t, c.cumulative_equity_cash_flow, cumulative, `${y} cumulative`);
    principal += c.principal;
  }
  near(t, principal, r.cash_flow[0].debt_drawdown, 'the debt is repaid', 1e-9);

  const k = r.kpis;
  const nominal = (1 + f.discount_rate_real_percent / 100) * (1 + f.inflation_percent / 100) - 1;
  const real = f.discount_rate_real_percent / 100;
  const equityFlows = r.cash_flow.map((c) => c.equity_cash_flow);
  const combinedRate = stateRate + federalRate * (1 - stateRate);
  const projectFlows = r.cash_flow.map((c, y) =>
    y === 0
      ? -c.capex
      : c.ebitda -
        equipmentFunding(inputs, y) -
        combinedRate * (c.ebitda - r.income_statement[y - 1].depreciation) +
        c.tax_credits.total,
  );
  const scale = r.cash_flow[0].capex;
  near(t, k.equity_npv, npv(nominal, equityFlows), 'equity NPV from the equity cash flows', 1e-9);
  near(t, k.project_npv, npv(nominal, projectFlows), 'project NPV', 1e-9);
  if (k.equity_irr !== null) near(t, npv(k.equity_irr, equityFlows) / scale, 0, 'NPV at the equity IRR is 0', 1e-9);
  if (k.project_irr !== null) near(t, npv(k.project_irr, projectFlows) / scale, 0, 'NPV at the project IRR is 0', 1e-9);
  if (dscrs.length > 0) {
    near(t, k.min_dscr, Math.min(...dscrs), 'min DSCR');
    near(t, k.average_dscr, sum(dscrs) / dscrs.length, 'average DSCR');
  } else {
    t.equal(k.min_dscr, null);
    t.equal(k.average_dscr, null);
  }
  const payback = r.cash_flow.find((c) => c.cumulative_equity_cash_flow >= 0)?.year ?? null;
  t.equal(k.payback_year, payback, 'payback year');

  // LCOE × discounted energy = discounted owner costs (equity, O&M, tax, debt service, reserves,
  // less salvage and reserve interest), as SAM's annual costs.
  const costs = r.cash_flow.map((c, y) =>
    y === 0
      ? c.capex + c.debt_fee + c.reserve_funding - c.debt_drawdown
      : r.income_statement[y - 1].operating_expenses.total -
        r.income_statement[y - 1].salvage_value -
        c.reserve_interest +
        c.income_tax -
        c.tax_credits.total +
        c.interest +
        c.principal +
        c.reserve_funding,
  );
  const energy = [0, ...r.annual.map((a) => a.export_mwh)];
  const discountedCosts = npv(nominal, costs);
  if (npv(nominal, energy) > 0) {
    near(t, (k.lcoe_nominal ?? Number.NaN) * npv(nominal, energy), discountedCosts, 'nominal LCOE identity');
    near(t, (k.lcoe_real ?? Number.NaN) * npv(real, energy), discountedCosts, 'real LCOE identity');
  } else {
    // A battery alone exports less than it buys (its losses): no energy to levelize over.
    t.equal(k.lcoe_nominal, null, 'no LCOE without net energy');
  }

  // P50/P90 (docs/methodology.md): P50 = mean; σ² = σ_interannual² + σ_model², each solar and wind
  // root-sum-square; synthetic weather's inter-annual σ about the least-squares line of the years.
  // P50/P90 are of the plant's energy (solar + wind; with a battery, its losses are not generation).
  const annualEnergy = r.annual.map((a) => a.solar_mwh + a.wind_mwh);
  const mean = sum(annualEnergy) / YEARS;
  const solarMean = sum(r.annual.map((a) => a.solar_mwh)) / YEARS;
  const windMean = sum(r.annual.map((a) => a.wind_mwh)) / YEARS;
  near(t, k.energy_p50_mwh, mean, 'P50 = mean of 25 years');
  const u = inputs.uncertainty;
  let interannual: number;
  if (inputs.weather.source === 'synthetic') {
    // Normal equations of y = a + b·x over x = 1..25.
    const xs = annualEnergy.map((_, i) => i + 1);
    const sx = sum(xs);
    const sxx = sum(xs.map((x) => x * x));
    const sxy = sum(xs.map((x, i) => x * annualEnergy[i]));
    const b = (YEARS * sxy - sx * sum(annualEnergy)) / (YEARS * sxx - sx * sx);
    const a = (sum(annualEnergy) - b * sx) / YEARS;
    interannual = Math.sqrt(sum(xs.map((x, i) => (annualEnergy[i] - a - b * x) ** 2)) / (YEARS - 2));
  } else {
    interannual = Math.hypot(
      (u.solar.interannual_percent / 100) * solarMean,
      (u.wind.interannual_percent / 100) * windMean,
    );
  }
  const model = Math.hypot((u.solar.model_percent / 100) * solarMean, (u.wind.model_percent / 100) * windMean);
  near(t, k.energy_p90_mwh, mean - 1.2816 * Math.hypot(interannual, model), 'P90 (one year)');
  near(t, k.energy_p90_10y_mwh, mean - 1.2816 * Math.hypot(interannual / Math.sqrt(10), model), 'P90 (10 years)');
  t.ok(k.energy_p90_mwh <= k.energy_p90_10y_mwh, 'one-year P90 ≤ ten-year P90');
  t.ok(k.energy_p90_mwh <= mean, 'P90 ≤ mean');
}

function run(t: Test, name: string, inputs: ResolvedInputs): EngineResult {
  const fractions: number[] = [];
  const r = calculate(inputs, { onProgress: (_stage, fraction) => fractions.push(fraction) });
  t.ok(fractions.length >= 25 && fractions.length <= 60, `${name}: ${fractions.length} progress reports`);
  t.ok(
    fractions.every((f, i) => f >= 0 && f <= 1 && (i === 0 || f >= fractions[i - 1])),
    'progress is monotonic in 0..1',
  );
  t.equal(fractions.at(-1), 1);
  checkEnergy(t, inputs, r);
  checkStatements(t, inputs, r);
  return r;
}

t.test('default scenario', async (t) => {
  const inputs = resolvedInputs();
  const r = run(t, 'default', inputs);
  const cf = r.annual[0];
  t.ok(cf.solar_capacity_factor! > 0.12 && cf.solar_capacity_factor! < 0.35, `solar CF ${cf.solar_capacity_factor}`);
  t.ok(cf.wind_capacity_factor! > 0.15 && cf.wind_capacity_factor! < 0.65, `wind CF ${cf.wind_capacity_factor}`);
  t.ok(r.kpis.lcoe_nominal! > 5 && r.kpis.lcoe_nominal! < 500, `LCOE ${r.kpis.lcoe_nominal}`);
  t.ok(r.kpis.lcoe_real! < r.kpis.lcoe_nominal!, 'real LCOE < nominal LCOE with inflation');

  const years = (a: Float64Array) =>
    Array.from({ length: YEARS }, (_, i) => Array.from(a.subarray(i * HOURS_PER_YEAR, (i + 1) * HOURS_PER_YEAR)));
  const document = {
    ...r,
    scenario_id: '01936f3e-0000-7000-8000-000000000042',
    solar_hourly: years(r.solar_hourly),
    wind_hourly: years(r.wind_hourly),
  };
  if (!FormatRegistry.Has('uuid')) FormatRegistry.Set('uuid', isUuid);
  const errors = [...Value.Errors(ScenarioResult, document)].slice(0, 3);
  t.same(
    errors.map((e) => `${e.path} ${e.message}`),
    [],
    'the result matches the ScenarioResult schema',
  );

  const again = calculate(inputs);
  t.ok(Buffer.from(again.solar_hourly.buffer).equals(Buffer.from(r.solar_hourly.buffer)), 'same solar, bit for bit');
  t.ok(Buffer.from(again.wind_hourly.buffer).equals(Buffer.from(r.wind_hourly.buffer)), 'same wind, bit for bit');
  const { solar_hourly: _s, wind_hourly: _w, ...statements } = again;
  const { solar_hourly: _s2, wind_hourly: _w2, ...first } = r;
  t.same(statements, first, 'same statements');

  const other = calculate(resolvedInputs({ seed: 43 }));
  t.notOk(Buffer.from(other.wind_hourly.buffer).equals(Buffer.from(r.wind_hourly.buffer)), 'another seed, other wind');
  t.notOk(Buffer.from(other.solar_hourly.buffer).equals(Buffer.from(r.solar_hourly.buffer)), 'another seed, other sun');
  t.not(other.kpis.equity_npv, r.kpis.equity_npv);

  // Synthetic years differ from each other, so P50 and P90 differ by more than degradation.
  const yearOne = r.wind_hourly.subarray(0, HOURS_PER_YEAR);
  const yearTwo = r.wind_hourly.subarray(HOURS_PER_YEAR, 2 * HOURS_PER_YEAR);
  t.notOk(Buffer.from(yearOne.slice().buffer).equals(Buffer.from(yearTwo.slice().buffer)), 'each year its own weather');
});

t.test('solar only', async (t) => {
  const r = run(t, 'solar only', resolvedInputs({ wind: { capacity_mw: 0 } }));
  t.equal(sum(r.wind_hourly), 0);
  t.equal(r.revenue_breakdown.by_technology.wind, 0);
  t.ok(r.annual[0].solar_mwh > 0);
});

t.test('wind only', async (t) => {
  const r = run(t, 'wind only', resolvedInputs({ solar: { capacity_mw_dc: 0 } }));
  t.equal(sum(r.solar_hourly), 0);
  t.equal(r.revenue_breakdown.by_technology.solar, 0);
  t.ok(r.annual[0].wind_mwh > 0);
});

t.test('southern hemisphere (Sydney, −33.9)', async (t) => {
  const r = run(t, 'south', resolvedInputs({ site: { latitude: -33.9, longitude: 151.2 } }));
  const cf = r.annual[0].solar_capacity_factor!;
  t.ok(cf > 0.12 && cf < 0.35, `solar CF ${cf}`);
  // Southern summer: more sun in January than in June.
  const jan = sum(r.solar_hourly, 0, 31 * 24);
  const jun = sum(r.solar_hourly, 151 * 24, 181 * 24);
  t.ok(jan > jun, `January ${jan} > June ${jun}`);
});

for (const latitude of [80, -80]) {
  t.test(`polar latitude ${latitude}`, async (t) => {
    const r = run(t, `lat ${latitude}`, resolvedInputs({ site: { latitude, longitude: 15 } }));
    t.ok(r.annual[0].solar_mwh >= 0);
  });
}

t.test('capacity and curtailment payments: identities, the payments in the totals and the schema', async (t) => {
  const evening = Array.from({ length: HOURS_PER_YEAR }, (_, h) => (h % 24 >= 17 && h % 24 < 21 ? 1500 : 1000));
  const inputs = resolvedInputs({
    grid: {
      export_limit_mw: 120,
      export_limit_hourly_mw: Array.from({ length: HOURS_PER_YEAR }, (_, h) => 60 + (h % 24) * 5),
    },
    market: {
      capacity: {
        price_per_mw_year: 70_000,
        escalation_percent: 1,
        credit: { top_hours: 50, system_load_mw: evening },
      },
      curtailment_payment_per_mwh: 15,
    },
  });
  const r = run(t, 'payments', inputs);
  t.ok((r.income_statement[0].revenue.capacity ?? 0) > 0, 'a capacity line');
  t.ok((r.income_statement[0].revenue.curtailment_payment ?? 0) > 0, 'a curtailment line');
  const years = (a: Float64Array) =>
    Array.from({ length: YEARS }, (_, i) => Array.from(a.subarray(i * HOURS_PER_YEAR, (i + 1) * HOURS_PER_YEAR)));
  const document = {
    ...r,
    scenario_id: '01936f3e-0000-7000-8000-000000000042',
    solar_hourly: years(r.solar_hourly),
    wind_hourly: years(r.wind_hourly),
  };
  if (!FormatRegistry.Has('uuid')) FormatRegistry.Set('uuid', isUuid);
  t.same(
    [...Value.Errors(ScenarioResult, document)].slice(0, 3).map((e) => `${e.path} ${e.message}`),
    [],
    'the result matches the ScenarioResult schema',
  );
});

t.test('export limit below both capacities', async (t) => {
  const inputs = resolvedInputs({ grid: { export_limit_mw: 40 } });
  const r = run(t, 'limited', inputs);
  t.ok(r.annual[0].curtailed_mwh > 0, 'some energy is curtailed');
  const free = calculate(resolvedInputs());
  near(
    t,
    r.annual[0].export_mwh + r.annual[0].curtailed_mwh,
    free.annual[0].export_mwh,
    'delivered + curtailed = what an unlimited plant delivers',
  );
});

/** A battery's hours: grid = solar + wind − charge + discharge ≤ the limit, the SOC balance, the bounds. */
function checkBatteryHours(t: Test, inputs: ResolvedInputs, r: EngineResult): void {
  const s = inputs.storage as NonNullable<ResolvedInputs['storage']>;
  const charge = r.storage_charge_hourly as Float64Array;
  const discharge = r.storage_discharge_hourly as Float64Array;
  const soc = r.storage_soc_hourly as Float64Array;
  const grid = r.grid_hourly as Float64Array;
  const limit = inputs.grid.export_limit_mw ?? Number.POSITIVE_INFINITY;
  const eta = Math.sqrt(s.round_trip_efficiency_percent / 100);
  const keep = (1 - s.standing_loss_percent_per_day / 100) ** (1 / 24);
  let previous = (s.energy_mwh * s.initial_soc_percent) / 100;
  const bad = { grid: 0, limit: 0, balance: 0, both: 0, power: 0, bounds: 0 };
  for (let i = 0; i < grid.length; i++) {
    const x = charge[i];
    const y = discharge[i];
    if (Math.abs(grid[i] - (r.solar_hourly[i] + r.wind_hourly[i] - x + y)) > 1e-9 * (1 + Math.abs(grid[i]))) bad.grid++;
    if (grid[i] > limit * (1 + 1e-12)) bad.limit++;
    if (Math.abs(soc[i] - (previous * keep + eta * x - y / eta)) > 1e-9 * s.energy_mwh) bad.balance++;
    if (x > 0 && y > 0) bad.both++;
    if (x > s.power_mw * (1 + 1e-12) || y > s.power_mw * (1 + 1e-12) || x < 0 || y < 0) bad.power++;
    if (soc[i] > (s.energy_mwh * s.soc_max_percent) / 100 + 1e-6 || soc[i] < -1e-9) bad.bounds++;
    previous = soc[i];
  }
  t.same(bad, { grid: 0, limit: 0, balance: 0, both: 0, power: 0, bounds: 0 }, 'every hour of the 25 years');
  r.annual.forEach((a, i) => {
    const from = i * HOURS_PER_YEAR;
    const to = from + HOURS_PER_YEAR;
    near(t, a.storage_discharge_mwh, sum(discharge, from, to), `year ${a.year}: discharge = Σ hourly`);
    const charged = (a.storage_charge_from_plant_mwh ?? 0) + (a.storage_charge_from_grid_mwh ?? 0);
    near(t, charged, sum(charge, from, to), `year ${a.year}: charge = Σ hourly`);
    near(t, a.export_mwh, sum(grid, from, to), `year ${a.year}: export = Σ grid`);
    near(t, a.storage_cycles, (a.storage_discharge_mwh ?? 0) / s.energy_mwh, `year ${a.year}: cycles`);
    t.ok(
      (a.curtailed_without_storage_mwh ?? 0) >= a.curtailed_mwh,
      `year ${a.year}: the battery only lowers curtailment`,
    );
  });
}

t.test('a battery behind the limit: identities, lower curtailment, the storage lines', async (t) => {
  const limited = { grid: { export_limit_mw: 120 } };
  const inputs = resolvedInputs({
    ...limited,
    storage: { power_mw: 50, energy_mwh: 200, standing_loss_percent_per_day: 0.5 },
    finance: { tax_credits: { storage: { itc_percent: 30 } } },
  });
  const r = run(t, 'battery', inputs);
  checkBatteryHours(t, inputs, r);
  const without = calculate(resolvedInputs(limited));
  t.ok(r.annual[0].curtailed_mwh < without.annual[0].curtailed_mwh, 'less curtailment than without the battery');
  t.equal(r.annual[0].curtailed_without_storage_mwh, without.annual[0].curtailed_mwh, 'the same plant without it');
  near(t, r.cash_flow[0].capex - without.cash_flow[0].capex, 50_000 * 300 + 200_000 * 250, 'battery capex');
  near(t, r.income_statement[0].tax_credits.itc_storage, 0.3 * (50_000 * 300 + 200_000 * 250), 'storage ITC');
  near(t, r.income_statement[0].operating_expenses.storage_fixed_om, 50_000 * 8, 'battery fixed O&M, year 1');
  const k = r.kpis;
  near(t, k.storage_cycles_year1, r.annual[0].storage_cycles ?? Number.NaN, 'cycles in year 1');
  const saved = sum(r.annual.map((a) => (a.curtailed_without_storage_mwh ?? 0) - a.curtailed_mwh));
  near(t, k.curtailment_recovered_mwh, saved, 'curtailment recovered = Σ (without − with)', 1e-7);
  const revenue = (x: EngineResult) => sum(x.income_statement.map((is) => is.revenue.total));
  near(t, k.storage_revenue, revenue(r) - revenue(without), 'the battery’s revenue = with − without', 1e-7);
  t.ok((k.storage_revenue ?? 0) > 0, 'the battery earns');
});

t.test('a battery with the PPA price solved for and time-of-delivery factors', async (t) => {
  const tod = Array.from({ length: 12 }, () => Array.from({ length: 24 }, (_, h) => (h >= 16 && h < 21 ? 1.6 : 0.9)));
  const inputs = resolvedInputs({
    grid: { export_limit_mw: 120 },
    market: { ppa_price_per_mwh: 'solve', ppa_month_hour_multipliers: tod },
    finance: { target_equity_irr_percent: 9 },
    storage: { power_mw: 40, energy_mwh: 160 },
  });
  const r = run(t, 'battery, solved PPA', inputs);
  checkBatteryHours(t, inputs, r);
  near(t, r.kpis.equity_irr, 0.09, 'the solved price gives the target IRR', 1e-6);
  t.ok((r.kpis.solved_ppa_price_per_mwh ?? 0) > 0, `solved ${r.kpis.solved_ppa_price_per_mwh}`);
});

t.test('arbitrage from the grid alone, a cycle limit, ageing and replacement', async (t) => {
  const inputs = resolvedInputs({
    solar: { capacity_mw_dc: 0 },
    wind: { capacity_mw: 0 },
    grid: { export_limit_mw: 60 },
    market: { merchant_hour_of_day_multipliers: Array.from({ length: 24 }, (_, h) => (h >= 17 && h < 21 ? 3 : 0.7)) },
    storage: {
      power_mw: 50,
      energy_mwh: 100,
      charge_from_grid: true,
      dispatch: { max_cycles_per_day: 1 },
      degradation: {
        cycle: [
          { dod_percent: 20, cycles: 0, capacity_percent: 100 },
          { dod_percent: 20, cycles: 5000, capacity_percent: 80 },
          { dod_percent: 80, cycles: 0, capacity_percent: 100 },
          { dod_percent: 80, cycles: 1000, capacity_percent: 80 },
          { dod_percent: 80, cycles: 2000, capacity_percent: 60 },
        ],
        calendar: [
          { day: 0, capacity_percent: 100 },
          { day: 3650, capacity_percent: 90 },
        ],
      },
      replacement: { at_capacity_percent: 80 },
    },
  });
  const r = run(t, 'battery alone', inputs);
  checkBatteryHours(t, inputs, r);
  t.ok((r.annual[0].storage_charge_from_grid_mwh ?? 0) > 0, 'charges from the grid');
  t.ok(
    r.annual.every((a) => (a.storage_cycles ?? 0) <= 365 + 1e-6),
    'at most one cycle a day',
  );
  const replaced = r.annual.reduce((n, a) => n + (a.storage_replacements ?? 0), 0);
  t.ok(replaced >= 1, `replaced ${replaced} times`);
  r.annual.forEach((a, i) => {
    const paid = r.income_statement[i].operating_expenses.storage_replacement ?? 0;
    const expected = (a.storage_replacements ?? 0) * 150 * 100_000 * 1.025 ** i;
    near(t, paid, expected, `year ${a.year}: replacements paid, escalated by inflation`);
  });
  t.ok(
    r.annual.every((a) => (a.storage_capacity_percent ?? 0) > 79),
    'the capacity stays above the replacement point',
  );
});

t.test('debt sized by DSCR, straight line depreciation, no debt', async (t) => {
  const sized = run(
    t,
    'dscr',
    resolvedInputs({
      finance: { debt: { sizing: 'dscr', target_dscr: 1.4 }, depreciation: { method: 'straight_line' } },
    }),
  );
  near(t, sized.kpis.min_dscr, 1.4, 'min DSCR = target', 1e-9);
  const none = run(t, 'no debt', resolvedInputs({ finance: { debt: { fraction: 0 } } }));
  t.equal(none.kpis.min_dscr, null);
  t.equal(none.cash_flow[0].debt_drawdown, 0);
});

t.test(
  'the rest of Single Owner: state tax, debt fee and reserve, reserves, property tax, lease, bonus, salvage',
  async (t) => {
    const inputs = resolvedInputs({
      finance: {
        state_tax_rate_percent: 7,
        tax_rate_percent: 21,
        opex: { property_tax_percent: 1, property_tax_decline_percent: 2, land_lease_per_year: 250_000 },
        om_escalation_percent: 1,
        debt: { sizing: 'dscr', target_dscr: 1.3, fee_percent: 2.75, reserve_months: 6 },
        reserves: { working_capital_months: 6, equipment: { solar_per_kw_dc: 100, every_years: 10 } },
        depreciation: {
          allocation: [
            { class: 'macrs_5', percent: 90 },
            { class: 'sl_15', percent: 5 },
          ],
          bonus_percent: 40,
        },
        salvage_percent: 10,
        tax_credits: { wind: { ptc_per_mwh: 27.5 } },
      },
    });
    const r = run(t, 'everything', inputs);
    const base = run(
      t,
      'none of it',
      resolvedInputs({ finance: { tax_rate_percent: 21, debt: { sizing: 'dscr', target_dscr: 1.3 } } }),
    );
    near(t, r.kpis.min_dscr, 1.3, 'min DSCR = target with the equipment reserve taken from CFADS', 1e-9);
    const debt = r.cash_flow[0].debt_drawdown;
    near(t, r.cash_flow[0].debt_fee, 0.0275 * debt, 'the fee is 2.75 % of the debt');
    const service1 = r.cash_flow[1].interest + r.cash_flow[1].principal;
    const opex1 = r.income_statement[0].operating_expenses.total;
    near(
      t,
      r.cash_flow[0].reserve_funding,
      0.5 * service1 + 0.5 * opex1,
      'close funds 6 months of service and of opex',
    );
    const released = r.cash_flow[18].reserve_funding;
    t.ok(released < 0, `the debt reserve is released at maturity (${released.toFixed(0)})`);
    t.ok(r.cash_flow[25].reserve_funding < 0, 'the working capital reserve is released in the last year');
    const spent = r.cash_flow.filter((c) => c.equipment_replacement > 0).map((c) => c.year);
    t.same(spent, [10, 20], 'replacements in years 10 and 20 (the third would fall after year 25)');
    t.ok(
      r.income_statement.every((y) => y.reserve_interest >= 0) && r.income_statement[0].reserve_interest > 0,
      'reserves earn interest',
    );
    near(
      t,
      r.income_statement[24].salvage_value,
      0.1 * r.cash_flow[0].capex,
      'salvage 10 % of installed cost in year 25',
    );
    t.ok(
      r.income_statement.slice(0, 24).every((y) => y.salvage_value === 0),
      'and only then',
    );
    const is1 = r.income_statement[0];
    const y2 = r.income_statement[1].operating_expenses;
    near(
      t,
      y2.property_tax / is1.operating_expenses.property_tax,
      0.98,
      'assessed value declines 2 points a year, unescalated',
    );
    near(t, is1.operating_expenses.land_lease, 250_000, 'year-1 land lease');
    near(t, y2.insurance / is1.operating_expenses.insurance, 1.025, 'insurance escalates by inflation only');
    near(t, y2.fixed_om / is1.operating_expenses.fixed_om, 1.025 * 1.01, 'O&M by inflation and its escalation');
    t.ok(is1.depreciation > base.income_statement[0].depreciation, 'bonus depreciation front-loads year 1');
    t.ok(r.kpis.equity_npv !== base.kpis.equity_npv, 'the structure changes the answer');
  },
);

t.test('supplied weather: a SAM CSV file (Phoenix TMY2)', async (t) => {
  const text = readFileSync(new URL('./fixtures/reference/phoenix_az_tmy2.csv', import.meta.url), 'utf8');
  const inputs = resolvedInputs({
    site: { latitude: 33.43, longitude: -112.02, elevation_m: 339, timezone_offset_hours: -7 },
    weather: { source: 'sam_csv', text },
  });
  const r = run(t, 'phoenix', inputs);
  const cf = r.annual[0].solar_capacity_factor!;
  t.ok(cf > 0.2 && cf < 0.35, `Phoenix tracker CF ${cf}`);
  // The same weather every year: only degradation separates the years.
  near(t, r.annual[1].solar_mwh, r.annual[0].solar_mwh * 0.995, 'year 2 = year 1 × (1 − 0.5 %)', 1e-9);
});

t.test('an unsorted power curve is an engine error', async (t) => {
  const inputs = resolvedInputs();
  inputs.wind.turbine.power_curve = [
    [3, 0],
    [10, 3000],
    [8, 2000],
    [25, 3000],
  ];
  let caught: unknown;
  try {
    calculate(inputs);
  } catch (err) {
    caught = err;
  }
  t.ok(caught instanceof CalculationInputError, 'a CalculationInputError');
  t.equal((caught as CalculationInputError).code, 'invalid_power_curve');
  t.match((caught as CalculationInputError).message, /8 m\/s follows 10 m\/s/, 'the message names the speeds');
});
