// Plausible monthly climate from latitude and elevation alone, for scenarios that give
// none. Smooth zonal fits, not a climate database: good enough for a first look, and
// every value is stored with the scenario so the user can see and replace it.

interface MonthlyClimate {
  clearness_index: number[];
  temp_mean_c: number[];
  temp_diurnal_range_c: number[];
}

const MID_MONTH_DAY = [15, 45, 74, 105, 135, 166, 196, 227, 258, 288, 319, 349];
const LAPSE_C_PER_M = 0.0065;

const clamp = (v: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, v));
const round = (v: number, digits: number) => Math.round(v * 10 ** digits) / 10 ** digits;

export function defaultMonthlyClimate(latitude: number, elevation_m: number): MonthlyClimate {
  const a = Math.abs(latitude);
  // Seasons are half a year apart across the equator.
  const dayShift = latitude >= 0 ? 0 : 182.5;
  // Southern hemisphere: more ocean, milder seasons.
  const oceanic = latitude >= 0 ? 1 : 0.6;

  // Zonal annual mean ≈ 27 °C at the equator, ≈ 12 °C at 45°, ≈ 1 °C at 60° (sea level).
  const annualMean = 27 - 0.0072 * a * a - LAPSE_C_PER_M * elevation_m;
  const seasonalAmplitude = Math.min(20, 1 + 0.25 * a) * oceanic;
  // Land lags the sun by about a month: coldest ≈ Jan 20, warmest ≈ Jul 20 (north).
  const coldestDay = 20;

  // Cloudy near the equator (ITCZ), clear in the subtropical deserts (~27°), cloudier again poleward.
  const annualKt =
    0.5 +
    0.13 * Math.exp(-(((a - 27) / 15) ** 2)) -
    0.08 * clamp((a - 45) / 25, 0, 1) -
    0.04 * Math.exp(-((a / 10) ** 2)) +
    Math.min(0.05, (0.015 * Math.max(0, elevation_m)) / 1000);
  // Mid- and high-latitude summers are clearer than their winters.
  const ktSeason = 0.05 * clamp((a - 20) / 25, 0, 1);
  // Larger day-night swings in summer (long days); 10 °C on average over the year.
  const rangeSeason = 1.5 * clamp(a / 30, 0, 1);

  const clearness_index: number[] = [];
  const temp_mean_c: number[] = [];
  const temp_diurnal_range_c: number[] = [];
  for (const day of MID_MONTH_DAY) {
    const d = day + dayShift;
    const tempPhase = Math.cos((2 * Math.PI * (d - coldestDay)) / 365);
    const sunPhase = Math.cos((2 * Math.PI * (d - 172)) / 365);
    // Kept inside the schema's range so a stored default always validates.
    temp_mean_c.push(round(clamp(annualMean - seasonalAmplitude * tempPhase, -60, 50), 1));
    // Low sun means a long path through the air: winter clearness falls steeply toward the poles.
    const decl = 23.44 * Math.sin((2 * Math.PI * (day - 81)) / 365);
    const noonElevation = 90 - Math.abs(latitude - decl);
    const lowSun = 0.3 * clamp((20 - noonElevation) / 20, 0, 1);
    clearness_index.push(round(clamp(annualKt + ktSeason * sunPhase - lowSun, 0.1, 0.75), 3));
    temp_diurnal_range_c.push(round(10 + rangeSeason * sunPhase, 1));
  }
  return { clearness_index, temp_mean_c, temp_diurnal_range_c };
}
