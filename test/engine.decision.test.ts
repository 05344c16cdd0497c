// Decision-grade finance in the engine: tax credits (ITC and PTC by technology), a PPA price solved
// for a target equity IRR, and P50/P90 with SAM-style uncertainty.
import { readFileSync } from 'node:fs';
import t from 'tap';
import { CalculationInputError, calculate } from '../worker/engine/index.ts';
import { resolvedInputs } from './fixtures/inputs.ts';

const close = (a: number, b: number, rel = 1e-9) => Math.abs(a - b) <= rel * Math.max(1, Math.abs(b));

t.test('no credits by default: the statements carry zero credit lines and unchanged tax', async (t) => {
  const r = calculate(resolvedInputs());
  t.ok(r.income_statement.every((y) => y.tax_credits.total === 0));
  t.ok(r.cash_flow.every((y) => y.tax_credits.total === 0));
  t.equal(r.kpis.solved_ppa_price_per_mwh, null);
});

t.test('ITC: a share of each technology capex in year 1, and half of it off the depreciable basis', async (t) => {
  const base = resolvedInputs();
  const withItc = resolvedInputs({
    finance: { tax_credits: { solar: { itc_percent: 30 }, wind: { itc_percent: 10 } } },
  });
  const a = calculate(base);
  const b = calculate(withItc);
  const solarCapex = base.solar.capacity_mw_dc * 1000 * base.finance.capex.solar_per_kw_dc;
  const windCapex = base.wind.capacity_mw * 1000 * base.finance.capex.wind_per_kw;
  const y1 = b.income_statement[0].tax_credits;
  t.ok(close(y1.itc_solar, 0.3 * solarCapex), `solar ITC ${y1.itc_solar}`);
  t.ok(close(y1.itc_wind, 0.1 * windCapex), `wind ITC ${y1.itc_wind}`);
  t.ok(b.income_statement.slice(1).every((y) => y.tax_credits.itc_solar === 0 && y.tax_credits.itc_wind === 0));
  const itc = y1.itc_solar + y1.itc_wind;
  const depA = a.income_statement.reduce((s, y) => s + y.depreciation, 0);
  const depB = b.income_statement.reduce((s, y) => s + y.depreciation, 0);
  t.ok(close(depA - depB, 0.5 * itc, 1e-6), `depreciation falls by half the ITC: ${depA - depB} vs ${0.5 * itc}`);
  t.ok(
    close(
      b.cash_flow[1].equity_cash_flow - a.cash_flow[1].equity_cash_flow,
      itc - (b.income_statement[0].income_tax - a.income_statement[0].income_tax),
      1e-6,
    ),
  );
  t.ok((b.kpis.equity_irr ?? 0) > (a.kpis.equity_irr ?? 0), 'a credit raises the equity IRR');
  t.ok((b.kpis.lcoe_nominal ?? 0) < (a.kpis.lcoe_nominal ?? 0), 'and lowers the LCOE');
});

t.test('PTC: per MWh delivered by each technology, escalated, rounded to $1/MWh, for ptc_years', async (t) => {
  const inputs = resolvedInputs({
    finance: {
      inflation_percent: 2,
      tax_credits: { solar: { ptc_per_mwh: 27.5 }, wind: { ptc_per_mwh: 26 }, ptc_years: 10 },
    },
  });
  const r = calculate(inputs);
  for (const [i, y] of r.income_statement.entries()) {
    // The IRS publishes the inflation-adjusted rate rounded to 0.1 ¢/kWh; SAM rounds half away from zero.
    const rate = (perMwh: number) => (i < 10 ? Math.floor(perMwh * 1.02 ** i + 0.5) : 0);
    t.ok(close(y.tax_credits.ptc_solar, rate(27.5) * r.annual[i].solar_mwh), `year ${i + 1} solar PTC`);
    t.ok(close(y.tax_credits.ptc_wind, rate(26) * r.annual[i].wind_mwh), `year ${i + 1} wind PTC`);
  }
  const fixed = calculate(
    resolvedInputs({
      finance: { tax_credits: { wind: { ptc_per_mwh: 26 }, ptc_years: 10, ptc_escalation_percent: 0 } },
    }),
  );
  t.ok(close(fixed.income_statement[9].tax_credits.ptc_wind, 26 * fixed.annual[9].wind_mwh), 'escalation 0: flat rate');
  t.equal(fixed.income_statement[10].tax_credits.ptc_wind, 0, 'none after ptc_years');
});

t.test('PPA price solved for a target equity IRR; posting it back gives that IRR', async (t) => {
  for (const target of [8, 12]) {
    const solved = calculate(
      resolvedInputs({ market: { ppa_price_per_mwh: 'solve' }, finance: { target_equity_irr_percent: target } }),
    );
    const price = solved.kpis.solved_ppa_price_per_mwh;
    t.type(price, 'number');
    t.ok(Math.abs((solved.kpis.equity_irr ?? 0) * 100 - target) < 0.01, `IRR ${solved.kpis.equity_irr} ≈ ${target} %`);
    const again = calculate(resolvedInputs({ market: { ppa_price_per_mwh: price as number } }));
    t.ok(
      Math.abs((again.kpis.equity_irr ?? 0) * 100 - target) < 0.01,
      `re-posted price ${price}: IRR ${again.kpis.equity_irr}`,
    );
    t.same(again.cash_flow, solved.cash_flow, 'the same statements as the solved run');
    t.same(again.income_statement, solved.income_statement);
    t.equal(again.kpis.solved_ppa_price_per_mwh, null, 'a given price is not a solved one');
  }
});

t.test('no PPA price in range: no_ppa_solution, naming the range', async (t) => {
  const cases = {
    'nothing sold under the PPA: the price changes nothing': { ppa_share: 0 },
    'merchant revenue alone beats the target: the price would be below 0': {
      ppa_share: 0.5,
      merchant_price_per_mwh: 400,
    },
  };
  for (const [what, market] of Object.entries(cases)) {
    let caught: unknown;
    try {
      calculate(
        resolvedInputs({
          market: { ...market, ppa_price_per_mwh: 'solve' },
          finance: { target_equity_irr_percent: 12 },
        }),
      );
    } catch (err) {
      caught = err;
    }
    t.ok(caught instanceof CalculationInputError && caught.code === 'no_ppa_solution', `${what}: ${caught}`);
    t.match(String((caught as Error)?.message), /from 0 to 10000 per MWh gives an equity IRR of 12 %/);
  }
});

t.test('P50/P90 with one measured year: the inter-annual part comes from the inputs', async (t) => {
  const text = readFileSync(new URL('./fixtures/reference/phoenix_az_tmy2.csv', import.meta.url), 'utf8');
  const inputs = resolvedInputs({
    site: { latitude: 33.45, longitude: -111.98 },
    weather: { source: 'sam_csv', text },
  });
  const r = calculate(inputs);
  const k = r.kpis;
  const solar = r.annual.reduce((s, a) => s + a.solar_mwh, 0) / 25;
  const wind = r.annual.reduce((s, a) => s + a.wind_mwh, 0) / 25;
  const ia = Math.hypot(0.05 * solar, 0.06 * wind);
  const model = Math.hypot(0.05 * solar, 0.08 * wind);
  t.ok(close(k.energy_p50_mwh, solar + wind), 'P50 = mean');
  t.ok(close(k.energy_p90_mwh, solar + wind - 1.2816 * Math.hypot(ia, model)), `P90 ${k.energy_p90_mwh}`);
  t.ok(close(k.energy_p90_10y_mwh, solar + wind - 1.2816 * Math.hypot(ia / Math.sqrt(10), model)));
  t.ok(
    k.energy_p90_mwh < 0.95 * k.energy_p50_mwh,
    `P90 is well below P50 (${(k.energy_p90_mwh / k.energy_p50_mwh).toFixed(3)}), not ≈ P50`,
  );
});
