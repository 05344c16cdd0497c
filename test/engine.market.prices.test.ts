// A merchant price forecast (8,760 × n hourly prices): each year's merchant revenue is Σ delivered ×
// that year's price, not escalated; the battery dispatches on that year's prices; a forecast shorter
// than the project repeats its last year.
import t, { type Test } from 'tap';
import { HOURS_PER_YEAR, YEARS } from '../shared/calendar.ts';
import type { ScenarioInputs } from '../shared/schemas/inputs.ts';
import { calculate, type EngineResult } from '../worker/engine/index.ts';
import { type DeepPartial, resolvedInputs } from './fixtures/inputs.ts';

/** Year y's prices: a daily wave whose peak moves 12 hours a year, a level and a trend distinct per year. */
function forecast(years: number): number[] {
  const out: number[] = [];
  for (let y = 1; y <= years; y++) {
    for (let h = 0; h < HOURS_PER_YEAR; h++) {
      const hod = h % 24;
      out.push(20 + 1.7 * y + 25 * Math.sin((2 * Math.PI * (hod - 12 * y)) / 24) + (h % 7) * 0.01 * y);
    }
  }
  return out;
}

const priceOf = (prices: number[], y: number, h: number) => {
  const n = prices.length / HOURS_PER_YEAR;
  return prices[(Math.min(y, n) - 1) * HOURS_PER_YEAR + h];
};

/** Σ exported MWh × that year's price, and the year's merchant revenue lines. */
function checkYears(t: Test, r: EngineResult, prices: number[]): void {
  for (let i = 0; i < YEARS; i++) {
    let expected = 0;
    for (let h = 0; h < HOURS_PER_YEAR; h++) {
      const k = i * HOURS_PER_YEAR + h;
      const exported =
        r.solar_hourly[k] +
        r.wind_hourly[k] -
        (r.storage_charge_hourly?.[k] ?? 0) +
        (r.storage_discharge_hourly?.[k] ?? 0);
      expected += exported * priceOf(prices, i + 1, h);
    }
    const rev = r.income_statement[i].revenue;
    const merchant = rev.merchant_solar + rev.merchant_wind + (rev.merchant_storage ?? 0);
    t.ok(
      Math.abs(merchant - expected) < 0.005,
      `year ${i + 1}: merchant ${merchant} = Σ delivered × price ${expected}`,
    );
    t.equal(rev.ppa_solar + rev.ppa_wind, 0, 'no PPA share');
  }
}

const merchantOnly = (prices: number[], more: DeepPartial<ScenarioInputs> = {}) =>
  resolvedInputs({
    ...more,
    market: { ppa_share: 0, merchant_escalation_percent: 3, merchant_hourly_prices: prices },
  });

t.test('25 distinct yearly price vectors: each year = Σ delivered × price, to the cent, not escalated', async (t) => {
  const prices = forecast(YEARS);
  const r = calculate(merchantOnly(prices));
  checkYears(t, r, prices);
});

t.test('with a battery: each year to the cent, and the dispatch follows that year’s prices', async (t) => {
  const prices = forecast(YEARS);
  const r = calculate(merchantOnly(prices, { storage: { power_mw: 20, energy_mwh: 80 } }));
  checkYears(t, r, prices);
  const charge = r.storage_charge_hourly as Float64Array;
  const discharge = r.storage_discharge_hourly as Float64Array;
  for (let i = 1; i < YEARS; i++) {
    let own = 0;
    let previous = 0;
    for (let h = 0; h < HOURS_PER_YEAR; h++) {
      const k = i * HOURS_PER_YEAR + h;
      own += (discharge[k] - charge[k]) * priceOf(prices, i + 1, h);
      previous += (discharge[k] - charge[k]) * priceOf(prices, i, h);
    }
    // The previous year's peak is 12 hours away: a dispatch on another year's prices would lose at these.
    t.ok(own > 0, `year ${i + 1}: arbitrage at its own prices earns ${own.toFixed(0)}`);
    t.ok(previous < 0, `year ${i + 1}: the same dispatch at year ${i}'s prices loses ${previous.toFixed(0)}`);
  }
});

t.test('a 3-year forecast: years 4–25 repeat year 3, not escalated', async (t) => {
  const prices = forecast(3);
  const r = calculate(merchantOnly(prices));
  checkYears(t, r, prices);
});

t.test('one year of prices is still escalated (the forecast rule starts at two years)', async (t) => {
  const prices = forecast(1);
  const r = calculate(merchantOnly(prices));
  const rev = r.income_statement[9].revenue;
  let expected = 0;
  for (let h = 0; h < HOURS_PER_YEAR; h++) {
    const k = 9 * HOURS_PER_YEAR + h;
    expected += (r.solar_hourly[k] + r.wind_hourly[k]) * prices[h] * 1.03 ** 9;
  }
  t.ok(Math.abs(rev.merchant_solar + rev.merchant_wind - expected) < 0.005, 'year 10 = Σ delivered × price × 1.03⁹');
});
