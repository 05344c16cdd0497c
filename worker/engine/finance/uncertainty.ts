// P50 and P90 of the annual delivered energy, as energy yield assessments and SAM state them for
// a normal distribution: P50 is the mean; a P90 is exceeded with 90 % probability,
// P50 − 1.2816 σ. Two independent uncertainties make up σ:
// - inter-annual variability (the weather of one year against another), which averages out over
//   years: over an N-year mean its σ shrinks by √N;
// - model and measurement uncertainty, which does not average out.
// Where the inter-annual σ comes from, for each technology:
// - synthetic weather: the simulated years (their annual totals about a least-squares line, so
//   that degradation is not counted as variability);
// - k ≥ 2 real years (weather.years, wind_resource.years): the spread of those real years. Each
//   operating year n uses real year n mod k; each real year's energy is the mean, over the
//   operating years that use it, of the delivered energy about the least-squares line; σ is the
//   sample standard deviation (k − 1) of those k energies;
// - one measured year, repeated every year: the `uncertainty` inputs' percentage of its mean.
// When solar and wind come from the same years (both synthetic, or the same number k of real
// years) σ is taken from their total, so the years' correlation counts; otherwise the two combine
// as independent (root-sum-square), as the model part always does.
import type { ResolvedInputs } from '../../../shared/schemas/inputs.ts';

/** z of the 10 % one-sided normal quantile. */
export const Z_P90 = 1.2816;

export interface EnergyPercentiles {
  p50: number;
  p90: number;
  p90_10y: number;
  sigmaInterannual: number;
  sigmaModel: number;
}

const mean = (v: ArrayLike<number>) => {
  let s = 0;
  for (let i = 0; i < v.length; i++) s += v[i];
  return v.length > 0 ? s / v.length : 0;
};

/** Each operating year's deviation from the least-squares line over the years. */
function residuals(values: ArrayLike<number>): Float64Array {
  const n = values.length;
  const xMean = (n - 1) / 2;
  const yMean = mean(values);
  let sxy = 0;
  let sxx = 0;
  for (let i = 0; i < n; i++) {
    sxy += (i - xMean) * (values[i] - yMean);
    sxx += (i - xMean) ** 2;
  }
  const slope = sxx > 0 ? sxy / sxx : 0;
  return Float64Array.from({ length: n }, (_, i) => values[i] - (yMean + slope * (i - xMean)));
}

/** Sample standard deviation of the values about their least-squares line over the index. */
export function detrendedSigma(values: ArrayLike<number>): number {
  const n = values.length;
  if (n < 3) return 0;
  let ss = 0;
  for (const r of residuals(values)) ss += r * r;
  return Math.sqrt(ss / (n - 2));
}

/** σ of k real years behind operating years that cycle through them (year n uses n mod k). */
export function realYearSigma(values: ArrayLike<number>, k: number): number {
  if (k < 2 || values.length < k) return 0;
  const r = residuals(values);
  const sums = new Float64Array(k);
  const counts = new Float64Array(k);
  for (let i = 0; i < r.length; i++) {
    sums[i % k] += r[i];
    counts[i % k]++;
  }
  const years = Float64Array.from(sums, (s, y) => s / counts[y]);
  const m = mean(years);
  let ss = 0;
  for (const v of years) ss += (v - m) ** 2;
  return Math.sqrt(ss / (k - 1));
}

type YearsKind = { kind: 'synthetic' } | { kind: 'real'; k: number } | { kind: 'single' };

/** Where each technology's years come from. */
function yearsOf(inputs: ResolvedInputs): { solar: YearsKind; wind: YearsKind } {
  const w = inputs.weather;
  const weather: YearsKind =
    w.source === 'synthetic'
      ? { kind: 'synthetic' }
      : w.source === 'years' && w.years.length > 1
        ? { kind: 'real', k: w.years.length }
        : { kind: 'single' };
  const r = inputs.wind_resource;
  const wind: YearsKind = !r
    ? weather
    : r.source === 'years' && r.years.length > 1
      ? { kind: 'real', k: r.years.length }
      : { kind: 'single' };
  return { solar: weather, wind };
}

function sigmaOf(kind: YearsKind, values: ArrayLike<number>, singlePercent: number): number {
  if (kind.kind === 'synthetic') return detrendedSigma(values);
  if (kind.kind === 'real') return realYearSigma(values, kind.k);
  return (singlePercent / 100) * mean(values);
}

/** Delivered MWh of each operating year, by technology. */
export function energyPercentiles(
  inputs: ResolvedInputs,
  solarMwh: ArrayLike<number>,
  windMwh: ArrayLike<number>,
): EnergyPercentiles {
  const u = inputs.uncertainty;
  const solar = mean(solarMwh);
  const wind = mean(windMwh);
  const p50 = solar + wind;
  const rss = (a: number, b: number) => Math.sqrt(a * a + b * b);
  const years = yearsOf(inputs);
  const shared =
    years.solar.kind !== 'single' &&
    years.solar.kind === years.wind.kind &&
    (years.solar.kind !== 'real' || years.solar.k === (years.wind as { k: number }).k);
  let sigmaInterannual: number;
  if (shared) {
    const total = Float64Array.from({ length: solarMwh.length }, (_, i) => solarMwh[i] + windMwh[i]);
    sigmaInterannual = sigmaOf(years.solar, total, 0);
  } else {
    sigmaInterannual = rss(
      sigmaOf(years.solar, solarMwh, u.solar.interannual_percent),
      sigmaOf(years.wind, windMwh, u.wind.interannual_percent),
    );
  }
  const sigmaModel = rss((u.solar.model_percent / 100) * solar, (u.wind.model_percent / 100) * wind);
  return {
    p50,
    p90: p50 - Z_P90 * rss(sigmaInterannual, sigmaModel),
    p90_10y: p50 - Z_P90 * rss(sigmaInterannual / Math.sqrt(10), sigmaModel),
    sigmaInterannual,
    sigmaModel,
  };
}
