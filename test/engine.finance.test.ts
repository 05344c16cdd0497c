// The money functions of the engine against published values and formulas.
import t from 'tap';
import { nominalRate, npv } from '../worker/engine/discount.ts';
import { debtSchedule } from '../worker/engine/finance/finance.debt.ts';
import { annuityPayment, depreciationSchedule, irr, MACRS_5 } from '../worker/engine/finance/finance.metrics.ts';
import { levelizedCost } from '../worker/engine/finance/finance.ts';
import { detrendedSigma } from '../worker/engine/finance/uncertainty.ts';

const close = (actual: number | null, expected: number, tolerance: number) =>
  actual !== null && Math.abs(actual - expected) <= tolerance;

t.test('IRR of a published example', async (t) => {
  // Excel's IRR documentation: IRR(-100, 39, 59, 55, 20) = 28.095 %.
  const r = irr([-100, 39, 59, 55, 20]);
  t.ok(close(r, 0.28095, 5e-6), `irr = ${r}`);
  t.ok(close(npv(r ?? 0, [-100, 39, 59, 55, 20]), 0, 1e-9), 'npv at the irr is 0');
});

t.test('IRR without a root, and with two roots', async (t) => {
  t.equal(irr([100, 50, 20]), null, 'all positive: no irr');
  t.equal(irr([-100, -50]), null, 'all negative: no irr');
  t.equal(irr([0, 0]), null, 'zero flows: no irr');
  // −100 + 230/(1+r) − 132/(1+r)² = 0 at r = 10 % and r = 20 %; the root nearer 0 wins.
  t.ok(close(irr([-100, 230, -132]), 0.1, 1e-10));
  // A loss that is never recovered: a negative irr, −100 + 50v + 40v² = 0 with v = 1/(1+r).
  const v = (-50 + Math.sqrt(50 ** 2 + 4 * 40 * 100)) / 80;
  t.ok(close(irr([-100, 50, 40]), 1 / v - 1, 1e-12));
});

t.test('NPV of a published example', async (t) => {
  // Excel's NPV documentation: NPV(10 %, −10,000, 3,000, 4,200, 6,800) = 1,188.44, with the first
  // value one period out; our flows start at time 0, so a leading 0 reproduces it.
  t.ok(close(npv(0.1, [0, -10_000, 3000, 4200, 6800]), 1188.44, 0.005));
  t.ok(close(npv(0.1, [-10_000, 3000, 4200, 6800]), 1188.44 * 1.1, 0.01));
  t.equal(npv(0, [1, 2, 3]), 6);
});

t.test('loan payment against the annuity formula', async (t) => {
  // A 30-year 200,000 mortgage at 6 %/yr, monthly: 1,199.10.
  t.ok(close(annuityPayment(200_000, 0.005, 360), 1199.1, 0.005));
  const [p, r, n] = [1_000_000, 0.05, 18];
  t.ok(close(annuityPayment(p, r, n), (p * r * (1 + r) ** n) / ((1 + r) ** n - 1), 1e-6));
  t.equal(annuityPayment(1200, 0, 12), 100, 'no interest: equal shares');
  t.equal(annuityPayment(1200, 0.05, 0), 0, 'no term: no payment');
});

t.test('MACRS 5-year schedule sums to 100 %', async (t) => {
  t.ok(
    close(
      MACRS_5.reduce((a, b) => a + b, 0),
      1,
      1e-12,
    ),
  );
  const d = depreciationSchedule('macrs_5', 20, 1000, 25);
  t.same(Array.from(d.slice(0, 8)), [0, 200, 320, 192, 115.2, 115.2, 57.6, 0]);
  const sl = depreciationSchedule('straight_line', 20, 1000, 25);
  t.ok(
    close(
      sl.reduce((a, b) => a + b, 0),
      1000,
      1e-9,
    ),
  );
  t.equal(sl[20], 50);
  t.equal(sl[21], 0);
  const long = depreciationSchedule('straight_line', 40, 1000, 25);
  t.ok(
    close(
      long.reduce((a, b) => a + b, 0),
      625,
      1e-9,
    ),
    'life beyond the horizon: the rest is never deducted',
  );
});

t.test('level debt repays the loan', async (t) => {
  const cfads = new Float64Array(26).fill(100, 1);
  const d = debtSchedule(
    { sizing: 'fraction', fraction: 0.6, target_dscr: 1.3, interest_rate_percent: 5, tenor_years: 18 },
    1000,
    cfads,
    25,
  );
  t.equal(d.amount, 600);
  const payment = annuityPayment(600, 0.05, 18);
  for (let y = 1; y <= 18; y++) t.ok(close(d.interest[y] + d.principal[y], payment, 1e-9), `year ${y} level`);
  t.ok(
    close(
      d.principal.reduce((a, b) => a + b, 0),
      600,
      1e-9,
    ),
    'principal sums to the debt',
  );
  t.equal(d.interest[19] + d.principal[19], 0, 'nothing after the tenor');
  t.ok(close(d.interest[1], 30, 1e-12), 'first interest = rate × debt');
});

t.test('DSCR sizing gives the target DSCR', async (t) => {
  // An uneven, declining CFADS, as degradation and escalation produce.
  const cfads = new Float64Array(26);
  for (let y = 1; y <= 25; y++) cfads[y] = 1000 * (1 + 0.3 * Math.sin(y)) * 0.99 ** y;
  const terms = { sizing: 'dscr', fraction: 0, target_dscr: 1.35, interest_rate_percent: 6, tenor_years: 15 } as const;
  const d = debtSchedule(terms, 1e6, cfads, 25);
  let min = Number.POSITIVE_INFINITY;
  for (let y = 1; y <= 15; y++) min = Math.min(min, cfads[y] / (d.interest[y] + d.principal[y]));
  t.ok(close(min, 1.35, 1e-9), `min dscr ${min}`);
  let pv = 0;
  for (let y = 1; y <= 15; y++) pv += cfads[y] / 1.35 / 1.06 ** y;
  t.ok(close(d.amount, pv, 1e-6), 'debt = PV of CFADS / target at the interest rate');
  t.ok(
    close(
      d.principal.reduce((a, b) => a + b, 0),
      d.amount,
      1e-6,
    ),
    'repaid within the tenor',
  );

  const capped = debtSchedule(terms, 100, cfads, 25);
  t.equal(capped.amount, 100, 'never more debt than the installed cost');
});

t.test('LCOE identity and statistics', async (t) => {
  const costs = [500, 40, 41, 42];
  const energy = [0, 10, 10, 9];
  const l = levelizedCost(costs, energy, 0.08, 0.05);
  const disc = (rate: number) => energy.reduce((s, e, n) => s + e / (1 + rate) ** n, 0);
  t.ok(close((l.nominal ?? 0) * disc(0.08), npv(0.08, costs), 1e-9));
  t.ok(close((l.real ?? 0) * disc(0.05), npv(0.08, costs), 1e-9));
  t.equal(levelizedCost(costs, [0, 0, 0, 0], 0.08, 0.05).nominal, null);
  t.ok(close(nominalRate(0.06, 0.025), 0.0865, 1e-12));
  // A pure trend (degradation) is no variability; about the line y = 1.4 + 0.4 i the residuals of
  // [1, 3, 1, 3] are −0.4, 1.2, −1.2, 0.4: √(3.2 / (4 − 2)).
  t.ok(close(detrendedSigma([10, 9, 8, 7]), 0, 1e-12));
  t.ok(close(detrendedSigma([1, 3, 1, 3]), Math.sqrt(1.6), 1e-12));
});
