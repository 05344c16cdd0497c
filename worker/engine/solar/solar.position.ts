// The sun's position: NREL's SPA (solar.position.spa.ts, re-exported here) and the
// per-hour geometry of a reference year that the solar model reuses for every project year.

import { HOURS_PER_YEAR } from '../../../shared/calendar.ts';
import { DEG } from '../angles.ts';
import {
  completeTopocentric,
  emptyTopocentric,
  estimateDeltaT,
  type GeocentricSun,
  geocentricSun,
  julianDay,
  meanSiderealTime,
  observer,
  topocentric,
} from './solar.position.spa.ts';

export { HOURS_PER_YEAR } from '../../../shared/calendar.ts';
export * from './solar.position.spa.ts';

const HOUR_DAYS = 1 / 24;
/** Days between full evaluations of the geocentric sun; cubic interpolation keeps it within 0.00002°. */
const SAMPLE_DAYS = 3;
/** The sun's elevation changes by at most this × cos(latitude) per hour. */
const EARTH_ROTATION_DEG_PER_HOUR = 15.041;
/** Added to that rate for a bound that holds over hours (the declination moves ≤ 0.017° an hour). */
const DRIFT_DEG_PER_HOUR = 0.2;
/** Kept from the horizon (or the band) when the night's bound says an hour is dark, degrees. */
const DARK_MARGIN_DEG = 0.5;

/** Where the sun is seen from, and the year whose sun it is. */
export interface SunSite {
  latitude: number;
  longitude: number;
  elevationM: number;
  /** Offset of local standard time from UTC, hours. */
  timezoneHours: number;
  /** The calendar year whose sun is used; Feb 29 is skipped when it is a leap year. */
  year: number;
}

export interface HourlyGeometryOptions extends SunSite {
  /** Defaults: the standard atmosphere at the elevation. */
  pressureMbar?: number;
  temperatureC?: number;
  /** Default: estimateDeltaT(year). */
  deltaT?: number;
  /**
   * The true (unrefracted) elevation at which the sun counts as up, degrees. Default 0, the sun's
   * centre, as PVWatts v5 is validated; SSC's irradiance processor for PVWatts v8 takes SPA's
   * sunrise and sunset, the upper limb with standard refraction: −0.8333°.
   */
  horizonDeg?: number;
  /**
   * Instantaneous values: each hour's sun at this minute past the hour, up when it is above the
   * horizon then, with no sunrise or sunset hour of its own (SSC's reading of a weather file with a
   * Minute column). Default: hour means, as above.
   */
  instantMinute?: number;
  /** Default true: skip the evaluations of hours that are surely dark (the same result; false for tests). */
  skipDarkHours?: boolean;
}

/** The sun in each hour of a 365-day year, hour-beginning local standard time. */
export interface HourlySunGeometry {
  /** 1 when the sun is above the horizon for some part of the hour. */
  up: Uint8Array;
  /** Share of the hour with the sun up (0..1). */
  upFraction: Float64Array;
  /** Apparent zenith and azimuth at the hour's evaluation time, degrees (180 and 0 when dark). */
  zenith: Float64Array;
  azimuth: Float64Array;
  cosZenith: Float64Array;
  /** Earth–sun distance, AU. */
  radiusAu: Float64Array;
}

const isLeap = (y: number): boolean => (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;

/** Standard-atmosphere pressure at an elevation, mbar. */
export function pressureAtElevation(elevationM: number): number {
  return 1013.25 * (1 - 2.25577e-5 * elevationM) ** 5.25588;
}

type Observer = ReturnType<typeof observer>;

/**
 * The sun's topocentric position at any moment of the year: the geocentric sun is evaluated in
 * full every SAMPLE_DAYS (from 6 days before the year to past its end, for any time zone) and
 * interpolated between (Lagrange cubic). Returns the position object it reuses, and the
 * interpolated geocentric values of the last call.
 */
function sunTrack(jd0: number, deltaT: number, obs: Observer) {
  const first = -2 * SAMPLE_DAYS;
  const count = Math.ceil((368 - first) / SAMPLE_DAYS) + 3;
  const alpha = new Float64Array(count);
  const delta = new Float64Array(count);
  const radius = new Float64Array(count);
  const nutation = new Float64Array(count);
  for (let i = 0; i < count; i++) {
    const g = geocentricSun(jd0 + first + i * SAMPLE_DAYS, deltaT);
    let a = g.alpha;
    // Unwrapped, so that interpolation never crosses 360° → 0°.
    if (i > 0) while (a < alpha[i - 1] - 180) a += 360;
    alpha[i] = a;
    delta[i] = g.delta;
    radius[i] = g.radiusAu;
    nutation[i] = g.nutationRa;
  }
  const geo: GeocentricSun = { alpha: 0, delta: 0, radiusAu: 1, nutationRa: 0 };
  const pos = emptyTopocentric();
  const at = (jd: number) => {
    const x = (jd - jd0 - first) / SAMPLE_DAYS;
    const k = Math.floor(x);
    const n = x - k;
    // Lagrange cubic through samples k − 1 … k + 2.
    const w0 = (-n * (n - 1) * (n - 2)) / 6;
    const w1 = ((n + 1) * (n - 1) * (n - 2)) / 2;
    const w2 = (-(n + 1) * n * (n - 2)) / 2;
    const w3 = ((n + 1) * n * (n - 1)) / 6;
    geo.alpha = w0 * alpha[k - 1] + w1 * alpha[k] + w2 * alpha[k + 1] + w3 * alpha[k + 2];
    geo.delta = w0 * delta[k - 1] + w1 * delta[k] + w2 * delta[k + 1] + w3 * delta[k + 2];
    geo.radiusAu = w0 * radius[k - 1] + w1 * radius[k] + w2 * radius[k + 1] + w3 * radius[k + 2];
    geo.nutationRa = w0 * nutation[k - 1] + w1 * nutation[k] + w2 * nutation[k + 1] + w3 * nutation[k + 2];
    return topocentric(geo, meanSiderealTime(jd) + geo.nutationRa, obs, pos);
  };
  return { at, geo, pos };
}

/** Regula falsi (Illinois) for the horizon crossing between a and b (heights of opposite sign). */
function crossing(height: (jd: number) => number, a: number, fa: number, b: number, fb: number): number {
  let side = 0;
  for (let i = 0; i < 40 && Math.abs(b - a) > 1e-6; i++) {
    const c = (a * fb - b * fa) / (fb - fa);
    const fc = height(c);
    if (fc * fb > 0) {
      b = c;
      fb = fc;
      if (side === -1) fa /= 2;
      side = -1;
    } else if (fa * fc > 0) {
      a = c;
      fa = fc;
      if (side === 1) fb /= 2;
      side = 1;
    } else {
      return c;
    }
  }
  return (a * fb - b * fa) / (fb - fa);
}

/**
 * The part of an hour near the horizon with the sun up, from the heights at its start, middle and
 * end; null when it is never up.
 */
function upPart(
  height: (jd: number) => number,
  hour: { start: number; mid: number; end: number },
  f: { start: number; mid: number; end: number },
): { from: number; to: number } | null {
  const { start, mid, end } = hour;
  if (f.start > 0 && f.end <= 0) {
    return {
      from: start,
      to: f.mid > 0 ? crossing(height, mid, f.mid, end, f.end) : crossing(height, start, f.start, mid, f.mid),
    };
  }
  if (f.start <= 0 && f.end > 0) {
    return {
      from: f.mid > 0 ? crossing(height, start, f.start, mid, f.mid) : crossing(height, mid, f.mid, end, f.end),
      to: end,
    };
  }
  if (f.start <= 0 && f.end <= 0) {
    // Up only around the middle: a grazing sun near the poles.
    if (f.mid <= 0) return null;
    return { from: crossing(height, start, f.start, mid, f.mid), to: crossing(height, mid, f.mid, end, f.end) };
  }
  return { from: start, to: end };
}

/**
 * Per-hour sun geometry for one reference year. A full hour is evaluated at its middle; the
 * hour that contains sunrise or sunset (PVWatts), at the middle of the part of the hour when
 * the sun is up. "Up" means, as in PVWatts, that the sun's centre is geometrically above the
 * horizon (no refraction); the positions themselves include refraction. (The Denver PVWatts
 * export fits this rule better than SPA's upper-limb sunrise.)
 */
export function hourlySunGeometry(opts: HourlyGeometryOptions): HourlySunGeometry {
  const deltaT = opts.deltaT ?? estimateDeltaT(opts.year);
  const obs = observer({
    latitude: opts.latitude,
    longitude: opts.longitude,
    elevationM: opts.elevationM,
    pressureMbar: opts.pressureMbar ?? pressureAtElevation(opts.elevationM),
    temperatureC: opts.temperatureC ?? 15 - 0.0065 * opts.elevationM,
    deltaT,
  });
  const jd0 = julianDay({ year: opts.year, month: 1, day: 1, hour: 0, minute: 0, second: 0, timezoneHours: 0 });
  const { at, geo, pos } = sunTrack(jd0, deltaT, obs);
  // Same sign and same zero as the true elevation (less the horizon's), without the arcsine.
  const sinHorizon = Math.sin((opts.horizonDeg ?? 0) * DEG);
  const height =
    sinHorizon === 0
      ? (jd: number): number => at(jd).sinElevationTrue
      : (jd: number): number => at(jd).sinElevationTrue - sinHorizon;

  const out: HourlySunGeometry = {
    up: new Uint8Array(HOURS_PER_YEAR),
    upFraction: new Float64Array(HOURS_PER_YEAR),
    zenith: new Float64Array(HOURS_PER_YEAR).fill(180),
    azimuth: new Float64Array(HOURS_PER_YEAR),
    cosZenith: new Float64Array(HOURS_PER_YEAR).fill(-1),
    radiusAu: new Float64Array(HOURS_PER_YEAR).fill(1),
  };
  // Half an hour from the middle, the sun is at least this far from the horizon if it was there.
  const band = Math.sin(Math.min(90, (EARTH_ROTATION_DEG_PER_HOUR / 2) * Math.cos(opts.latitude * DEG) + 0.1) * DEG);
  const leap = isLeap(opts.year);
  let prevEnd = Number.NaN;
  let prevEndHeight = 0;
  // Deep in the night an hour's evaluation is skipped: the sun rises at most `rate` degrees an
  // hour, so from an elevation well below the horizon it stays below until `darkUntil` (a Julian
  // day). The hours skipped are hours the test below would find dark: the result is the same.
  const rate = EARTH_ROTATION_DEG_PER_HOUR * Math.cos(opts.latitude * DEG) + DRIFT_DEG_PER_HOUR;
  const sinHorizonOrBand = opts.instantMinute !== undefined ? sinHorizon : sinHorizon - band;
  const darkBelowDeg = Math.asin(Math.max(-1, sinHorizonOrBand)) / DEG - DARK_MARGIN_DEG;
  let darkUntil = Number.NEGATIVE_INFINITY;
  /** After a dark evaluation at `jd` with height f: until when every evaluation is dark too. */
  const staysDark = (jd: number, f: number) => {
    const elevationDeg = Math.asin(Math.max(-1, Math.min(1, f + sinHorizon))) / DEG;
    const hours = (darkBelowDeg - elevationDeg) / rate;
    return hours > 0 && opts.skipDarkHours !== false ? jd + hours * HOUR_DAYS : Number.NEGATIVE_INFINITY;
  };
  for (let h = 0; h < HOURS_PER_YEAR; h++) {
    const day = Math.floor(h / 24);
    const start = jd0 + day + (leap && day >= 59 ? 1 : 0) + (h - day * 24 - opts.timezoneHours) * HOUR_DAYS;
    if (opts.instantMinute !== undefined) {
      const at0 = start + (opts.instantMinute / 60) * HOUR_DAYS;
      if (at0 < darkUntil) continue;
      const f0 = height(at0);
      if (f0 <= 0) {
        darkUntil = staysDark(at0, f0);
        continue;
      }
      completeTopocentric(obs, pos);
      out.up[h] = 1;
      out.upFraction[h] = 1;
      out.zenith[h] = pos.zenith;
      out.azimuth[h] = pos.azimuth;
      out.cosZenith[h] = Math.cos(pos.zenith * DEG);
      out.radiusAu[h] = geo.radiusAu;
      continue;
    }
    const hour = { start, mid: start + HOUR_DAYS / 2, end: start + HOUR_DAYS };
    if (hour.mid < darkUntil) continue;
    const fMid = height(hour.mid);
    let part = { from: start, to: hour.end };
    if (fMid <= -band) {
      darkUntil = staysDark(hour.mid, fMid);
      continue;
    }
    if (fMid < band) {
      // Near the horizon: find where in the hour the sun is up.
      const fStart = Math.abs(start - prevEnd) < 1e-9 ? prevEndHeight : height(start);
      const fEnd = height(hour.end);
      prevEnd = hour.end;
      prevEndHeight = fEnd;
      const up = upPart(height, hour, { start: fStart, mid: fMid, end: fEnd });
      if (!up) continue;
      part = up;
      if (part.from !== start || part.to !== hour.end) at((part.from + part.to) / 2);
      else at(hour.mid);
    }
    completeTopocentric(obs, pos);
    out.up[h] = 1;
    out.upFraction[h] =
      part.from === start && part.to === hour.end ? 1 : Math.min(1, (part.to - part.from) / HOUR_DAYS);
    out.zenith[h] = pos.zenith;
    out.azimuth[h] = pos.azimuth;
    out.cosZenith[h] = Math.cos(pos.zenith * DEG);
    out.radiusAu[h] = geo.radiusAu;
  }
  return out;
}
