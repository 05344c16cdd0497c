// P50 and P90 of the annual delivered energy, as energy yield assessments and SAM state them for
// a normal distribution: P50 is the mean; a P90 is exceeded with 90 % probability,
// P50 − 1.2816 σ. Two independent uncertainties make up σ:
// - inter-annual variability (the weather of one year against another), which averages out over
//   years: over an N-year mean its σ shrinks by √N;
// - model and measurement uncertainty, which does not average out.
// With synthetic weather the inter-annual σ is that of the simulated years (their annual totals
// about a least-squares line, so that degradation is not counted as variability); with one
// measured year, repeated every year, it comes from the `uncertainty` inputs. Each technology's σ
// is its percentage of its own mean annual energy; solar and wind combine as independent
// (root-sum-square) in both parts.
import type { ResolvedInputs } from '../../shared/schemas/inputs.ts';

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

/** Sample standard deviation of the values about their least-squares line over the index. */
export function detrendedSigma(values: ArrayLike<number>): number {
  const n = values.length;
  if (n < 3) return 0;
  const xMean = (n - 1) / 2;
  const yMean = mean(values);
  let sxy = 0;
  let sxx = 0;
  for (let i = 0; i < n; i++) {
    sxy += (i - xMean) * (values[i] - yMean);
    sxx += (i - xMean) ** 2;
  }
  const slope = sxy / sxx;
  let ss = 0;
  for (let i = 0; i < n; i++) ss += (values[i] - (yMean + slope * (i - xMean))) ** 2;
  return Math.sqrt(ss / (n - 2));
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
  let sigmaInterannual: number;
  if (inputs.weather.source === 'synthetic') {
    const total = Float64Array.from({ length: solarMwh.length }, (_, i) => solarMwh[i] + windMwh[i]);
    sigmaInterannual = detrendedSigma(total);
  } else {
    sigmaInterannual = rss((u.solar.interannual_percent / 100) * solar, (u.wind.interannual_percent / 100) * wind);
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
