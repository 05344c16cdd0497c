// A distinct synthetic weather year per project year, from (seed, year) alone.
//
// Solar: Ineichen–Perez clear sky × a daily clear-sky index (probit-normal marginal on an
// AR(1) Gaussian, calibrated per month to the input clearness) × hourly fluctuations; GHI
// split by Erbs. Temperature: smoothed monthly means, a sunrise-minimum / afternoon-maximum
// cycle and AR(1) day-to-day anomalies. Wind: an AR(1) Gaussian mapped to Weibull quantiles.
// Each year's total irradiance and mean wind speed are set to the climate value times a
// factor ~ N(1, cv), so the spread of annual totals is the configured one, not an accident
// of sampling. Geometry and tables depend only on the inputs and are cached across years.

import { DAYS_IN_MONTH, HOURS_PER_YEAR } from '../../../shared/calendar.ts';
import type { ResolvedInputs } from '../../../shared/schemas/inputs.ts';
import { pressureFromElevation } from '../../../shared/weather/samcsv.ts';
import type { WeatherYear } from '../../../shared/weather/types.ts';
import { DEG } from '../angles.ts';
import { deriveSeed, lnGamma, normalCdf, normalPdf, normalQuantile, Rng } from './random.ts';

const HOURS = HOURS_PER_YEAR;
const DAYS = 365;
const SOLAR_CONSTANT = 1367;

/** Independent random streams per year, so changing one part of the synthesis leaves the others' draws alone. */
const STREAM = { year: 0, solar: 1, temp: 2, wind: 3 } as const;

/** Daily clear-sky index k = Φ(α + β·z): β sets the spread; β ≈ 1 gives the clear/overcast bimodality. */
const DAILY_BETA = 1.1;
/** Lag-1 autocorrelation of the daily latent clearness (observed daily Kt: ≈ 0.3–0.5). */
const DAILY_PHI = 0.4;
const HOURLY_PHI = 0.6;
/** Highest month-mean clear-sky index we ask of the clear-sky model before lowering turbidity. */
const MAX_MONTH_CLEAR_INDEX = 0.96;
/** Hourly wind latent autocorrelation: gives ≈0.92 on speed, as in hourly mast data. */
const WIND_PHI = 0.94;
const WIND_DIURNAL_AMPLITUDE = 0.06;
const TEMP_DAILY_PHI = 0.75;
/** Solar time of the daily maximum temperature. */
const TEMP_PEAK = 15;
const TEMP_YEAR_SD = 0.4;
const Z_MAX = 6;
const Z_CELLS = 64;

// Spencer (1971) Fourier series on the day angle: declination (rad), equation of time
// (÷229.18 min) and orbit eccentricity; coefficients of [1, cos g, sin g, cos 2g, sin 2g, cos 3g, sin 3g].
const SPENCER_DECLINATION = [0.006918, -0.399912, 0.070257, -0.006758, 0.000907, -0.002697, 0.00148];
const SPENCER_EQUATION_OF_TIME = [0.000075, 0.001868, -0.032077, -0.014615, -0.040849, 0, 0];
const SPENCER_ECCENTRICITY = [1.00011, 0.034221, 0.00128, 0.000719, 0.000077, 0, 0];

function fourier(c: readonly number[], g: number): number {
  let v = c[0];
  for (let n = 1; n <= 3; n++) v += c[2 * n - 1] * Math.cos(n * g) + c[2 * n] * Math.sin(n * g);
  return v;
}

/** Accepts a climate value as one number or twelve monthly values. */
export function monthly(v: number | readonly number[]): number[] {
  return typeof v === 'number' ? Array.from({ length: 12 }, () => v) : Array.from(v);
}

export interface SyntheticPrep {
  /** Extraterrestrial irradiance on a horizontal plane at mid-hour, W/m² (0 at night). */
  readonly h0: Float64Array;
  readonly cosZ: Float64Array;
  readonly ghiClear: Float64Array;
  readonly dayClear: Float64Array;
  readonly monthOfDay: Uint8Array;
  readonly alpha: Float64Array;
  readonly meanClearIndex: Float64Array;
  readonly targetAnnualGhi: number;
  readonly tempMeanDay: Float64Array;
  readonly tempRangeDay: Float64Array;
  readonly tempShape: Float64Array;
  readonly tempDailySd: number;
  readonly windTable: Float64Array;
  readonly windDiurnal: Float64Array;
  readonly pressureMbar: number;
  readonly linkeTurbidity: number;
}

type Climate = Extract<ResolvedInputs['weather'], { source: 'synthetic' }>['climate'];

function climateOf(inputs: ResolvedInputs): Climate {
  if (inputs.weather.source !== 'synthetic') throw new Error('synthetic weather needs weather.source = "synthetic"');
  return inputs.weather.climate;
}

/** Monthly values → one per day, piecewise linear through mid-month, nodes nudged so each month keeps its mean. */
function smoothDaily(values: readonly number[], monthOfDay: Uint8Array): Float64Array {
  const mids: number[] = [];
  let start = 0;
  for (const len of DAYS_IN_MONTH) {
    mids.push(start + (len - 1) / 2);
    start += len;
  }
  const nodes = Array.from(values);
  const out = new Float64Array(DAYS);
  for (let iter = 0; iter < 6; iter++) {
    for (let d = 0; d < DAYS; d++) {
      let m = 11;
      for (let k = 0; k < 12 && mids[k] <= d; k++) m = k;
      const next = (m + 1) % 12;
      const x0 = mids[m] > d ? mids[m] - DAYS : mids[m];
      const x1 = mids[next] <= x0 ? mids[next] + DAYS : mids[next];
      out[d] = nodes[m] + ((nodes[next] - nodes[m]) * (d - x0)) / (x1 - x0);
    }
    const sums = new Float64Array(12);
    for (let d = 0; d < DAYS; d++) sums[monthOfDay[d]] += out[d];
    for (let m = 0; m < 12; m++) nodes[m] += values[m] - sums[m] / DAYS_IN_MONTH[m];
  }
  return out;
}

/** The sun's daily path (Spencer's series) at the site: hourly extraterrestrial irradiance, cos zenith, air mass and the temperature's day shape. */
function sunAndDayShape(site: ResolvedInputs['site'], pressureMbar: number) {
  const { latitude, longitude, timezone_offset_hours: tz } = site;
  const phi = latitude * DEG;
  const h0 = new Float64Array(HOURS);
  const cosZ = new Float64Array(HOURS);
  const airMass = new Float64Array(HOURS);
  const tempShape = new Float64Array(HOURS);
  for (let d = 0; d < DAYS; d++) {
    const g = (2 * Math.PI * d) / DAYS;
    const decl = fourier(SPENCER_DECLINATION, g);
    const eotMin = 229.18 * fourier(SPENCER_EQUATION_OF_TIME, g);
    const ecc = fourier(SPENCER_ECCENTRICITY, g);
    const solarMinusClock = (4 * (longitude - 15 * tz) + eotMin) / 60;
    const sinProd = Math.sin(phi) * Math.sin(decl);
    const cosProd = Math.cos(phi) * Math.cos(decl);
    // Sunrise in solar time; clamped so polar day and night still get a (weak) cycle.
    const cosWs = Math.max(-1, Math.min(1, -Math.tan(phi) * Math.tan(decl)));
    const sunrise = Math.min(10, Math.max(2, 12 - Math.acos(cosWs) / (15 * DEG)));
    let lo = Number.POSITIVE_INFINITY;
    let hi = Number.NEGATIVE_INFINITY;
    let sum = 0;
    for (let h = 0; h < 24; h++) {
      const i = d * 24 + h;
      const solarTime = h + 0.5 + solarMinusClock;
      const c = sinProd + cosProd * Math.cos((solarTime - 12) * 15 * DEG);
      if (c > 0) {
        cosZ[i] = c;
        h0[i] = SOLAR_CONSTANT * ecc * c;
        const zenithDeg = Math.acos(c) / DEG;
        // Kasten & Young (1989) relative air mass, made absolute with the site pressure.
        airMass[i] = pressureMbar / 1013.25 / (c + 0.50572 * (96.07995 - zenithDeg) ** -1.6364);
      }
      const t = ((solarTime % 24) + 24) % 24;
      let s: number;
      // Quick warming after sunrise, a broad afternoon top, faster cooling in the evening than
      // before dawn (shape fitted by eye to Phoenix's TMY2 mean day).
      if (t >= sunrise && t <= TEMP_PEAK)
        s = -1 + 2 * Math.sin((Math.PI / 2) * ((t - sunrise) / (TEMP_PEAK - sunrise)));
      else s = Math.cos(Math.PI * (((t - TEMP_PEAK + 24) % 24) / (24 - (TEMP_PEAK - sunrise))) ** 0.75);
      tempShape[i] = s;
      sum += s;
      if (s < lo) lo = s;
      if (s > hi) hi = s;
    }
    for (let h = 0; h < 24; h++) tempShape[d * 24 + h] = (tempShape[d * 24 + h] - sum / 24) / (hi - lo);
  }
  return { h0, cosZ, airMass, tempShape };
}

/**
 * Ineichen & Perez (2002) clear-sky GHI. Turbidity 3 suits most rural sites; where the input
 * clearness would need a clearer sky than that, the sky is made clearer.
 */
function clearSky(
  sun: { h0: Float64Array; airMass: Float64Array },
  elevation: number,
  kt: number[],
  monthOfDay: Uint8Array,
) {
  const { h0, airMass } = sun;
  const h0Month = new Float64Array(12);
  for (let i = 0; i < HOURS; i++) h0Month[monthOfDay[(i / 24) | 0]] += h0[i];
  const brightest = Math.max(...h0Month);
  const ghiClear = new Float64Array(HOURS);
  const cg1 = 5.09e-5 * elevation + 0.868;
  const cg2 = 3.92e-5 * elevation + 0.0387;
  const fh1 = Math.exp(-elevation / 8000);
  const fh2 = Math.exp(-elevation / 1250);
  const meanClearIndex = new Float64Array(12);
  let linke = 3;
  for (;;) {
    const clearMonth = new Float64Array(12);
    for (let i = 0; i < HOURS; i++) {
      if (h0[i] <= 0) continue;
      ghiClear[i] = cg1 * h0[i] * Math.exp(-cg2 * airMass[i] * (fh1 + fh2 * (linke - 1)));
      clearMonth[monthOfDay[(i / 24) | 0]] += ghiClear[i];
    }
    // Dark polar months carry little energy and a clear sky at grazing sun is uncertain anyway:
    // they do not get to make the whole year's sky clearer.
    let worst = 0;
    for (let m = 0; m < 12; m++) {
      meanClearIndex[m] = clearMonth[m] > 0 ? (kt[m] * h0Month[m]) / clearMonth[m] : 0;
      if (h0Month[m] >= 0.25 * brightest) worst = Math.max(worst, meanClearIndex[m]);
    }
    if (worst <= MAX_MONTH_CLEAR_INDEX || linke <= 1.75) break;
    linke -= 0.25;
  }
  let targetAnnualGhi = 0;
  for (let m = 0; m < 12; m++) targetAnnualGhi += kt[m] * h0Month[m];
  return { ghiClear, meanClearIndex, linke, targetAnnualGhi };
}

/** The standardised (mean 1) Weibull quantile of Φ(z), tabulated on z, and the wind's diurnal shape. */
function windShape(climate: ReturnType<typeof climateOf>) {
  const k = climate.weibull_k;
  const scale1 = 1 / Math.exp(lnGamma(1 + 1 / k));
  const windTable = new Float64Array(2 * Z_MAX * Z_CELLS + 2);
  for (let j = 0; j < windTable.length; j++) {
    const z = j / Z_CELLS - Z_MAX;
    windTable[j] = scale1 * (-Math.log(normalCdf(-z))) ** (1 / k);
  }
  // Near the ground wind peaks in the afternoon; at hub height it peaks at night.
  const peakHour = climate.wind_reference_height_m < 50 ? 15 : 23;
  const windDiurnal = new Float64Array(24);
  for (let h = 0; h < 24; h++)
    windDiurnal[h] = 1 + WIND_DIURNAL_AMPLITUDE * Math.cos(((h + 0.5 - peakHour) * Math.PI) / 12);
  return { windTable, windDiurnal };
}

function buildPrep(inputs: ResolvedInputs): SyntheticPrep {
  const climate = climateOf(inputs);
  const kt = monthly(climate.clearness_index);
  const monthOfDay = new Uint8Array(DAYS);
  for (let m = 0, d = 0; m < 12; m++) for (let i = 0; i < DAYS_IN_MONTH[m]; i++) monthOfDay[d++] = m;
  const pressureMbar = pressureFromElevation(inputs.site.elevation_m);
  const sun = sunAndDayShape(inputs.site, pressureMbar);
  const sky = clearSky(sun, inputs.site.elevation_m, kt, monthOfDay);
  const alpha = new Float64Array(12);
  const spread = Math.sqrt(1 + DAILY_BETA * DAILY_BETA);
  for (let m = 0; m < 12; m++) {
    // E[Φ(α + βZ)] = Φ(α / √(1 + β²)), so the monthly mean is hit exactly in expectation.
    alpha[m] = normalQuantile(Math.min(0.98, Math.max(0.02, sky.meanClearIndex[m]))) * spread;
  }
  const dayClear = new Float64Array(DAYS);
  for (let i = 0; i < HOURS; i++) dayClear[(i / 24) | 0] += sky.ghiClear[i];
  return {
    h0: sun.h0,
    cosZ: sun.cosZ,
    ghiClear: sky.ghiClear,
    dayClear,
    monthOfDay,
    alpha,
    meanClearIndex: sky.meanClearIndex,
    targetAnnualGhi: sky.targetAnnualGhi,
    tempMeanDay: smoothDaily(monthly(climate.temp_mean_c), monthOfDay),
    tempRangeDay: smoothDaily(monthly(climate.temp_diurnal_range_c), monthOfDay),
    tempShape: sun.tempShape,
    tempDailySd: 0.8 + 0.05 * Math.min(Math.abs(inputs.site.latitude), 60),
    ...windShape(climate),
    pressureMbar,
    linkeTurbidity: sky.linke,
  };
}

// Keyed by the site and climate objects: inputs are immutable once resolved, and a copy of
// the inputs with another seed (as in tests) reuses the geometry.
const cache = new WeakMap<object, WeakMap<object, SyntheticPrep>>();

export function prepareSynthetic(inputs: ResolvedInputs): SyntheticPrep {
  const climate = climateOf(inputs);
  let bySite = cache.get(inputs.site);
  if (!bySite) {
    bySite = new WeakMap();
    cache.set(inputs.site, bySite);
  }
  let prep = bySite.get(climate);
  if (!prep) {
    prep = buildPrep(inputs);
    bySite.set(climate, prep);
  }
  return prep;
}

/** Extraterrestrial horizontal irradiance per hour, the denominator of the clearness index. */
export function extraterrestrialHorizontal(inputs: ResolvedInputs): Float64Array {
  return prepareSynthetic(inputs).h0;
}

/** The year's irradiance and wind-speed multipliers and temperature offset. */
export function yearFactors(
  inputs: ResolvedInputs,
  yearIndex: number,
): { solar: number; wind: number; tempOffsetC: number } {
  const climate = climateOf(inputs);
  const rng = new Rng(deriveSeed(inputs.seed, yearIndex, STREAM.year));
  return {
    solar: Math.max(0.3, 1 + climate.solar_interannual_cv * rng.normal()),
    wind: Math.max(0.3, 1 + climate.wind_interannual_cv * rng.normal()),
    tempOffsetC: TEMP_YEAR_SD * rng.normal(),
  };
}

export function allocWeatherYear(windHeightM: number): WeatherYear {
  const f = () => new Float64Array(HOURS);
  return { ghi: f(), dni: f(), dhi: f(), tempC: f(), windMs: f(), pressureMbar: f(), windHeightM };
}

// Per-year scratch, reused: the engine is single-threaded per process.
const dailyK = new Float64Array(DAYS);
const dailyLatent = new Float64Array(DAYS);
const tempAnomaly = new Float64Array(DAYS + 2);

/** Daily clear-sky indices; their clear-sky-weighted total is solved to `target` by shifting every α. */
function dailyClearness(prep: SyntheticPrep, rng: Rng, target: number): void {
  let z = rng.normal();
  for (let d = 0; d < DAYS; d++) {
    if (d > 0) z = DAILY_PHI * z + Math.sqrt(1 - DAILY_PHI * DAILY_PHI) * rng.normal();
    dailyLatent[d] = prep.alpha[prep.monthOfDay[d]] + DAILY_BETA * z;
  }
  let possible = 0;
  for (let d = 0; d < DAYS; d++) possible += prep.dayClear[d];
  const goal = Math.min(target, 0.98 * possible);
  let shift = 0;
  for (let iter = 0; iter < 6; iter++) {
    let f = -goal;
    let df = 0;
    for (let d = 0; d < DAYS; d++) {
      const x = dailyLatent[d] + shift;
      f += prep.dayClear[d] * normalCdf(x);
      df += prep.dayClear[d] * normalPdf(x);
    }
    if (df <= 0) break;
    const step = Math.max(-1, Math.min(1, f / df));
    shift -= step;
    if (Math.abs(step) < 1e-6) break;
  }
  for (let d = 0; d < DAYS; d++) dailyK[d] = normalCdf(dailyLatent[d] + shift);
}

export function syntheticYear(inputs: ResolvedInputs, yearIndex: number, out?: WeatherYear): WeatherYear {
  const climate = climateOf(inputs);
  const prep = prepareSynthetic(inputs);
  const w = out ?? allocWeatherYear(climate.wind_reference_height_m);
  w.windHeightM = climate.wind_reference_height_m;
  const factors = yearFactors(inputs, yearIndex);
  const rng = new Rng(deriveSeed(inputs.seed, yearIndex, STREAM.solar));
  dailyClearness(prep, rng, prep.targetAnnualGhi * factors.solar);
  hourlyIrradiance(prep, rng, prep.targetAnnualGhi * factors.solar, w);
  hourlyTemperature(prep, new Rng(deriveSeed(inputs.seed, yearIndex, STREAM.temp)), factors.tempOffsetC, w.tempC);
  const windMean = climate.wind_mean_ms * factors.wind;
  hourlyWind(prep, new Rng(deriveSeed(inputs.seed, yearIndex, STREAM.wind)), windMean, w.windMs);
  w.pressureMbar.fill(prep.pressureMbar);
  return w;
}

/** GHI from the daily clearness with hourly noise, rescaled to the year's total, then split into DNI and DHI. */
function hourlyIrradiance(prep: SyntheticPrep, rng: Rng, target: number, w: WeatherYear): void {
  const { ghi, dni, dhi } = w;
  const { ghiClear, h0, cosZ } = prep;
  let total = 0;
  for (let d = 0; d < DAYS; d++) {
    const kd = dailyK[d];
    // Intermediate days are the variable ones; clear and overcast days are steady.
    const sd = 0.02 + 0.8 * kd * (1 - kd);
    let e = rng.normal();
    for (let h = d * 24, end = h + 24; h < end; h++) {
      const cs = ghiClear[h];
      if (cs <= 0) {
        ghi[h] = 0;
        continue;
      }
      e = HOURLY_PHI * e + 0.8 * rng.normal();
      const k = kd + sd * e;
      const g = Math.min(1.08, Math.max(0.02, k)) * cs;
      ghi[h] = g;
      total += g;
    }
  }
  // Hourly noise moved the total a little; restore it, then split with Erbs et al. (1982).
  // The cap only matters when the target asked for more than the clear sky can give.
  const rescale = total > 0 ? Math.min(target / total, 1.03) : 0;
  for (let h = 0; h < HOURS; h++) {
    const g = ghi[h] * rescale;
    ghi[h] = g;
    if (g <= 0) {
      dni[h] = 0;
      dhi[h] = 0;
      continue;
    }
    const c = cosZ[h];
    if (c < 0.065) {
      dni[h] = 0;
      dhi[h] = g;
      continue;
    }
    const kt = Math.min(1, g / h0[h]);
    let fd: number;
    if (kt <= 0.22) fd = 1 - 0.09 * kt;
    else if (kt <= 0.8) fd = 0.9511 + kt * (-0.1604 + kt * (4.388 + kt * (-16.638 + kt * 12.336)));
    else fd = 0.165;
    const diffuse = fd * g;
    dhi[h] = diffuse;
    dni[h] = Math.min((g - diffuse) / c, h0[h] / c);
  }
}

/** Temperature: anomalies anchored at noon, linear between, so midnight has no jump. */
function hourlyTemperature(prep: SyntheticPrep, trng: Rng, yearOffsetC: number, tempC: Float64Array): void {
  const sdT = prep.tempDailySd;
  let a = sdT * trng.normal();
  for (let d = 0; d < DAYS + 2; d++) {
    if (d > 0) a = TEMP_DAILY_PHI * a + sdT * Math.sqrt(1 - TEMP_DAILY_PHI * TEMP_DAILY_PHI) * trng.normal();
    tempAnomaly[d] = a;
  }
  const { tempMeanDay, tempRangeDay, tempShape, meanClearIndex, monthOfDay } = prep;
  for (let d = 0; d < DAYS; d++) {
    const base = tempMeanDay[d] + yearOffsetC;
    // Clear days swing more than cloudy ones; the ratio averages ≈1 so the mean range holds.
    const mu = meanClearIndex[monthOfDay[d]];
    const swing = tempRangeDay[d] * (mu > 0 ? Math.min(1.6, Math.max(0.3, 0.55 + (0.45 * dailyK[d]) / mu)) : 1);
    const aPrev = tempAnomaly[d];
    const aNow = tempAnomaly[d + 1];
    const aNext = tempAnomaly[d + 2];
    for (let h = 0; h < 24; h++) {
      const i = d * 24 + h;
      const x = (h + 0.5 - 12) / 24;
      const anomaly = x < 0 ? aNow + (aNow - aPrev) * x : aNow + (aNext - aNow) * x;
      tempC[i] = base + anomaly + swing * tempShape[i];
    }
  }
}

/** Wind speed: an AR(1) latent through the Weibull quantile table and the diurnal shape, scaled to the year's mean. */
function hourlyWind(prep: SyntheticPrep, wrng: Rng, meanMs: number, windMs: Float64Array): void {
  const { windTable, windDiurnal } = prep;
  const innovation = Math.sqrt(1 - WIND_PHI * WIND_PHI);
  const top = windTable.length - 2;
  let z = wrng.normal();
  let sum = 0;
  for (let h = 0; h < HOURS; h++) {
    z = WIND_PHI * z + innovation * wrng.normal();
    let x = (z + Z_MAX) * Z_CELLS;
    x = Math.min(top, Math.max(0, x));
    const j = x | 0;
    const v = (windTable[j] + (windTable[j + 1] - windTable[j]) * (x - j)) * windDiurnal[h % 24];
    windMs[h] = v;
    sum += v;
  }
  const windScale = sum > 0 ? (meanMs * HOURS) / sum : 0;
  for (let h = 0; h < HOURS; h++) windMs[h] *= windScale;
}
