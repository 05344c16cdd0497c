// Identities of the capital stack that hold for any scenario (fast-check draws the plant, prices,
// costs, credits and terms): the parties' cash adds up to the project's; the flip year is the
// first year the investor's IRR from year 0 reaches the target; credits sold bring credit × price
// in their year; debt sized on several cases is the least the cases support.
import fc from 'fast-check';
import t from 'tap';
import { irr } from '../worker/engine/finance/finance.metrics.ts';
import { financeModel } from '../worker/engine/finance/finance.ts';
import { Z_P90 } from '../worker/engine/finance/uncertainty.ts';
import { resolvedInputs } from './fixtures/inputs.ts';

const YEARS = 25;
const close = (a: number, b: number, what: string) => {
  if (Math.abs(a - b) > 1e-6 * Math.max(1, Math.abs(a), Math.abs(b))) throw new Error(`${what}: ${a} ≠ ${b}`);
};

const scenario = fc.record({
  solarMw: fc.double({ min: 1, max: 300, noNaN: true }),
  windMw: fc.double({ min: 0, max: 200, noNaN: true }),
  priceMwh: fc.double({ min: 10, max: 150, noNaN: true }),
  ptcMwh: fc.constantFrom(0, 27.5),
  itc: fc.constantFrom(0, 30),
  state: fc.double({ min: 0, max: 10, noNaN: true }),
  salvage: fc.double({ min: 0, max: 10, noNaN: true }),
  investorShare: fc.double({ min: 0, max: 100, noNaN: true }),
  preCash: fc.double({ min: 0, max: 100, noNaN: true }),
  postCash: fc.double({ min: 0, max: 100, noNaN: true }),
  preTax: fc.double({ min: 0, max: 100, noNaN: true }),
  postTax: fc.double({ min: 0, max: 100, noNaN: true }),
  target: fc.double({ min: 2, max: 15, noNaN: true }),
  devFee: fc.double({ min: 0, max: 10, noNaN: true }),
  recovery: fc.integer({ min: 0, max: 10 }),
  margin: fc.double({ min: 0, max: 60, noNaN: true }),
  leaseMonths: fc.integer({ min: 0, max: 12 }),
  structure: fc.constantFrom('leveraged_flip', 'all_equity_flip', 'sale_leaseback'),
  transfer: fc.option(fc.double({ min: 0.5, max: 1, noNaN: true }), { nil: undefined }),
});
type Drawn = typeof scenario extends fc.Arbitrary<infer T> ? T : never;

function run(d: Drawn, debt: Record<string, unknown> = { sizing: 'dscr', target_dscr: 1.3, tenor_years: 18 }) {
  const inputs = resolvedInputs({
    solar: { capacity_mw_dc: d.solarMw },
    wind: { capacity_mw: d.windMw },
    finance: {
      structure: d.structure,
      tax_equity: {
        investor_equity_percent: d.investorShare,
        preflip_cash_percent: d.preCash,
        postflip_cash_percent: d.postCash,
        preflip_tax_percent: d.preTax,
        postflip_tax_percent: d.postTax,
        flip_target_irr_percent: d.target,
        development_fee_percent: d.devFee,
        sponsor_capital_recovery_years: d.recovery,
        lessee_margin_per_kw_year: d.margin,
        lease_reserve_months: d.leaseMonths,
      },
      state_tax_rate_percent: d.state,
      salvage_percent: d.salvage,
      debt,
      reserves: { working_capital_months: 6, equipment: { solar_per_kw_dc: 100, every_years: 10 } },
      tax_credits: {
        solar: { itc_percent: d.itc, ptc_per_mwh: d.ptcMwh },
        wind: { ptc_per_mwh: d.ptcMwh },
        ...(d.transfer === undefined ? {} : { transfer: { price_per_dollar: d.transfer } }),
      },
    },
  });
  const solar = Array.from({ length: YEARS }, (_, i) => d.solarMw * 1900 * 0.995 ** i);
  const wind = Array.from({ length: YEARS }, (_, i) => d.windMw * 3000 * 0.998 ** i);
  const delivered = solar.map((s, i) => s + wind[i]);
  const revenue = delivered.map((_, i) => {
    const s = solar[i] * d.priceMwh * 1.01 ** i;
    const w = wind[i] * d.priceMwh * 1.01 ** i;
    return { ppa_solar: s, ppa_wind: w, merchant_solar: 0, merchant_wind: 0, total: s + w };
  });
  return { inputs, r: financeModel(inputs, { revenue, deliveredMwh: delivered, solarMwh: solar, windMwh: wind }) };
}

t.test("the parties' after-tax cash adds up to the project's", async () => {
  fc.assert(
    fc.property(scenario, (d) => {
      const { inputs, r } = run(d);
      const p = r.parties;
      if (!p) throw new Error('no parties');
      const f = inputs.finance;
      const combined =
        f.state_tax_rate_percent / 100 + (f.tax_rate_percent / 100) * (1 - f.state_tax_rate_percent / 100);
      const capex = r.cash_flow[0].capex;
      const devFee = (d.devFee / 100) * capex;
      // A sale-leaseback's lease reserve: the sponsor funds it at close, earns its interest, gets it back.
      const rent1 = p.tax_investor.years[1].pre_tax_cash;
      const reserve = d.structure === 'sale_leaseback' ? (d.leaseMonths / 12) * rent1 : 0;
      const interest = (f.reserves.interest_percent / 100) * reserve * (1 - combined);
      for (let y = 0; y <= YEARS; y++) {
        const sum = p.tax_investor.years[y].after_tax_cash + p.sponsor.years[y].after_tax_cash;
        let expected = r.cash_flow[y].equity_cash_flow;
        if (y === 0) expected += devFee - reserve;
        if (y === 1) expected -= devFee * combined;
        if (y >= 1) expected += interest;
        if (y === YEARS) expected += reserve;
        close(sum, expected, `${d.structure} year ${y}`);
      }
    }),
    { numRuns: 60 },
  );
});

t.test("the flip year is the first year the investor's IRR from year 0 reaches the target", async () => {
  fc.assert(
    fc.property(
      scenario.filter((d) => d.structure !== 'sale_leaseback'),
      (d) => {
        const { r } = run(d);
        const p = r.parties;
        if (!p) throw new Error('no parties');
        const flows = p.tax_investor.years.map((y) => y.after_tax_cash);
        let first: number | null = null;
        for (let y = 1; y <= YEARS && first === null; y++) {
          const v = irr(flows.slice(0, y + 1));
          if (v !== null && v >= d.target / 100 - 1e-5) first = y;
        }
        if (p.flip_year !== first) throw new Error(`flip year ${p.flip_year}, first year at target ${first}`);
        if ((r.kpis.flip_year ?? null) !== first) throw new Error('the KPI is not the flip year');
        // The investor holds its pre-flip shares through the flip year, its post-flip shares after.
        for (let y = 1; y <= YEARS; y++) {
          const post = first !== null && y > first;
          const benefit = r.cash_flow[y].tax_credits.total * (d.transfer ?? 1) - r.cash_flow[y].income_tax;
          const share = (post ? d.postTax : d.preTax) / 100;
          close(p.tax_investor.years[y].tax_benefit, share * benefit, `tax share, year ${y}`);
        }
      },
    ),
    { numRuns: 60 },
  );
});

t.test('credits sold bring credit × price in the year they arise', async () => {
  fc.assert(
    fc.property(scenario, fc.double({ min: 0, max: 1, noNaN: true }), (d, price) => {
      const sold = run({ ...d, structure: 'leveraged_flip', transfer: price, ptcMwh: 27.5, itc: 30 }).r;
      const kept = run({ ...d, structure: 'leveraged_flip', transfer: undefined, ptcMwh: 27.5, itc: 30 }).r;
      for (let y = 1; y <= YEARS; y++) {
        const credit = sold.cash_flow[y].tax_credits.total;
        close(sold.cash_flow[y].credit_transfer_proceeds ?? Number.NaN, credit * price, `proceeds, year ${y}`);
        // The rest of the year is unchanged: the equity cash differs by exactly the discount.
        close(
          kept.cash_flow[y].equity_cash_flow - sold.cash_flow[y].equity_cash_flow,
          credit * (1 - price),
          `discount, year ${y}`,
        );
      }
      if (kept.cash_flow[1].credit_transfer_proceeds !== undefined) throw new Error('proceeds without a transfer');
    }),
    { numRuns: 30 },
  );
});

t.test('debt sized on several cases is the least the cases support', async () => {
  const dscr = fc.double({ min: 1, max: 2, noNaN: true });
  const cases = fc.uniqueArray(fc.record({ energy: fc.constantFrom('p50', 'p90', 'p99'), dscr }), {
    minLength: 1,
    maxLength: 3,
    selector: (c) => c.energy,
  });
  fc.assert(
    fc.property(scenario, cases, (d, list) => {
      const terms = { sizing: 'dscr', tenor_years: 18, interest_rate_percent: 6, cases: list };
      const { r, inputs } = run({ ...d, structure: 'leveraged_flip' }, terms);
      const p50 = r.kpis.energy_p50_mwh;
      const sigma = (p50 - r.kpis.energy_p90_mwh) / Z_P90;
      const z = { p50: 0, p90: Z_P90, p99: 2.326 };
      const rate = inputs.finance.debt.interest_rate_percent / 100;
      const supported = list.map((c) => {
        const k = (p50 - z[c.energy] * sigma) / p50;
        let pv = 0;
        for (let y = 1; y <= 18; y++) {
          const cfads = r.cash_flow[y].cfads - (1 - k) * r.income_statement[y - 1].revenue.total;
          pv += Math.max(0, cfads) / c.dscr / (1 + rate) ** y;
        }
        return Math.min(pv, r.cash_flow[0].capex);
      });
      const least = Math.min(...supported);
      close(r.cash_flow[0].debt_drawdown, least, 'debt');
      const binding = list[supported.indexOf(least)].energy;
      if (r.kpis.binding_debt_case !== Number(binding.slice(1))) throw new Error('binding case');
    }),
    { numRuns: 40 },
  );
});
