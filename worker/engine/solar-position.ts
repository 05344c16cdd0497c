// NREL's Solar Position Algorithm (Reda & Andreas 2008, NREL/TP-560-34302): the sun's
// topocentric zenith and azimuth to ±0.0003°. The full algorithm is costly (≈300 periodic
// terms), so the hourly geometry evaluates it once a day and interpolates the slow
// geocentric quantities, as the SPA report itself does for sunrise and sunset.
import { B_TERMS, L_TERMS, NUTATION_TERMS, R_TERMS } from './solar-position.terms.ts';

const DEG = Math.PI / 180;
const SUN_RADIUS_DEG = 0.26667;
/** SPA's default refraction at sunrise and sunset, degrees. */
export const STANDARD_REFRACTION_DEG = 0.5667;

export interface SiteLocation {
  latitude: number;
  /** Degrees east (negative is west). */
  longitude: number;
  elevationM: number;
  /** Annual mean local pressure, mbar, for refraction. */
  pressureMbar: number;
  /** Annual mean local temperature, °C, for refraction. */
  temperatureC: number;
  /** TT − UT1, seconds. */
  deltaT: number;
  /** Refraction at sunrise and sunset, degrees (SPA's atmos_refract). */
  refractionDeg?: number;
}

export interface CalendarTime {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  /** Offset of the clock from UTC, hours (−7 for MST). */
  timezoneHours: number;
}

export interface SunPosition {
  /** Topocentric zenith with refraction, degrees. */
  zenith: number;
  /** Topocentric azimuth, degrees clockwise from north. */
  azimuth: number;
  /** Topocentric elevation without refraction, degrees. */
  elevationTrue: number;
  /** Geocentric declination, degrees. */
  declination: number;
  /** Earth–sun distance, AU. */
  radiusAu: number;
}

/** The slowly varying part of the sun's position, a function of time only. */
export interface GeocentricSun {
  /** Apparent right ascension, degrees. */
  alpha: number;
  /** Apparent declination, degrees. */
  delta: number;
  radiusAu: number;
  /** Nutation correction of sidereal time, Δψ·cos ε, degrees. */
  nutationRa: number;
}

/** Julian day (UT) of a clock time, proleptic Gregorian after 1582-10-15 as in the SPA report. */
export function julianDay(t: CalendarTime): number {
  let { year, month } = t;
  const dayFraction = t.day + (t.hour - t.timezoneHours + (t.minute + t.second / 60) / 60) / 24;
  if (month < 3) {
    month += 12;
    year -= 1;
  }
  let jd = Math.floor(365.25 * (year + 4716)) + Math.floor(30.6001 * (month + 1)) + dayFraction - 1524.5;
  if (jd > 2299160) {
    const a = Math.floor(year / 100);
    jd += 2 - a + Math.floor(a / 4);
  }
  return jd;
}

/** ΔT (TT − UT), seconds: Espenak & Meeus polynomials, enough for a sub-arcsecond sun. */
export function estimateDeltaT(year: number): number {
  if (year < 1961) {
    const t = year - 1950;
    return 29.07 + 0.407 * t - (t * t) / 233 + (t * t * t) / 2547;
  }
  if (year < 1986) {
    const t = year - 1975;
    return 45.45 + 1.067 * t - (t * t) / 260 - (t * t * t) / 718;
  }
  if (year < 2005) {
    const t = year - 2000;
    return 63.86 + t * (0.3345 + t * (-0.060374 + t * (0.0017275 + t * (0.000651814 + t * 0.00002373599))));
  }
  if (year < 2050) {
    const t = year - 2000;
    return 62.92 + 0.32217 * t + 0.005589 * t * t;
  }
  const u = (year - 1820) / 100;
  if (year < 2150) return -20 + 32 * u * u - 0.5628 * (2150 - year);
  return -20 + 32 * u * u;
}

const wrap360 = (deg: number): number => {
  const r = deg % 360;
  return r < 0 ? r + 360 : r;
};

function periodicSum(series: readonly (readonly number[])[], jme: number): number {
  let total = 0;
  let power = 1;
  for (const terms of series) {
    let s = 0;
    for (let i = 0; i < terms.length; i += 3) s += terms[i] * Math.cos(terms[i + 1] + terms[i + 2] * jme);
    total += s * power;
    power *= jme;
  }
  return total / 1e8;
}

/** Geocentric apparent right ascension and declination at a Julian day (UT). */
export function geocentricSun(jd: number, deltaT: number): GeocentricSun {
  const jce = (jd + deltaT / 86400 - 2451545) / 36525;
  const jme = jce / 10;

  const lHelio = wrap360(periodicSum(L_TERMS, jme) / DEG);
  const bHelio = periodicSum(B_TERMS, jme) / DEG;
  const radiusAu = periodicSum(R_TERMS, jme);
  const theta = wrap360(lHelio + 180);
  const beta = -bHelio;

  const x0 = 297.85036 + jce * (445267.11148 + jce * (-0.0019142 + jce / 189474));
  const x1 = 357.52772 + jce * (35999.05034 + jce * (-0.0001603 - jce / 300000));
  const x2 = 134.96298 + jce * (477198.867398 + jce * (0.0086972 + jce / 56250));
  const x3 = 93.27191 + jce * (483202.017538 + jce * (-0.0036825 + jce / 327270));
  const x4 = 125.04452 + jce * (-1934.136261 + jce * (0.0020708 + jce / 450000));
  let dPsi = 0;
  let dEps = 0;
  for (const row of NUTATION_TERMS) {
    const arg = (x0 * row[0] + x1 * row[1] + x2 * row[2] + x3 * row[3] + x4 * row[4]) * DEG;
    dPsi += (row[5] + row[6] * jce) * Math.sin(arg);
    dEps += (row[7] + row[8] * jce) * Math.cos(arg);
  }
  dPsi /= 36000000;
  dEps /= 36000000;

  const u = jme / 10;
  const eps0 =
    84381.448 +
    u *
      (-4680.93 +
        u *
          (-1.55 +
            u * (1999.25 + u * (-51.38 + u * (-249.67 + u * (-39.05 + u * (7.12 + u * (27.87 + u * (5.79 + u * 2.45)))))))));
  const eps = eps0 / 3600 + dEps;
  const aberration = -20.4898 / (3600 * radiusAu);
  const lambda = (theta + dPsi + aberration) * DEG;
  const epsR = eps * DEG;
  const betaR = beta * DEG;
  const alpha = wrap360(
    Math.atan2(Math.sin(lambda) * Math.cos(epsR) - Math.tan(betaR) * Math.sin(epsR), Math.cos(lambda)) / DEG,
  );
  const delta =
    Math.asin(Math.sin(betaR) * Math.cos(epsR) + Math.cos(betaR) * Math.sin(epsR) * Math.sin(lambda)) / DEG;
  return { alpha, delta, radiusAu, nutationRa: dPsi * Math.cos(epsR) };
}

/** Greenwich mean sidereal time at a Julian day (UT), degrees, before the nutation correction. */
export function meanSiderealTime(jd: number): number {
  const d = jd - 2451545;
  const jc = d / 36525;
  return wrap360(280.46061837 + 360.98564736629 * d + jc * jc * (0.000387933 - jc / 38710000));
}

/** Site constants of the parallax correction, computed once per site. */
export interface Observer {
  sinLat: number;
  cosLat: number;
  longitude: number;
  /** ρ·cos φ′ and ρ·sin φ′ of the SPA report (x and y). */
  x: number;
  y: number;
  pressureMbar: number;
  temperatureC: number;
  refractionDeg: number;
}

export function observer(site: SiteLocation): Observer {
  const lat = site.latitude * DEG;
  const u = Math.atan(0.99664719 * Math.tan(lat));
  return {
    sinLat: Math.sin(lat),
    cosLat: Math.cos(lat),
    longitude: site.longitude,
    x: Math.cos(u) + (site.elevationM / 6378140) * Math.cos(lat),
    y: 0.99664719 * Math.sin(u) + (site.elevationM / 6378140) * Math.sin(lat),
    pressureMbar: site.pressureMbar,
    temperatureC: site.temperatureC,
    refractionDeg: site.refractionDeg ?? STANDARD_REFRACTION_DEG,
  };
}

/** Reused result of `topocentric`, so the hourly loops allocate nothing. */
export interface Topocentric {
  /** Sine of the topocentric elevation without refraction. */
  sinElevationTrue: number;
  elevationTrue: number;
  zenith: number;
  azimuth: number;
}

/**
 * Topocentric position from the geocentric one and the apparent sidereal time (SPA steps
 * 3.11–3.15). The parallax angles enter only through their sines and cosines, which follow
 * from the atan2 arguments without calling atan2. With `full` false only
 * `sinElevationTrue` is filled: the cheap test for sunrise.
 */
export function topocentric(
  geo: GeocentricSun,
  siderealDeg: number,
  obs: Observer,
  out: Topocentric,
  full = true,
): Topocentric {
  const h = (siderealDeg + obs.longitude - geo.alpha) * DEG;
  const sinXi = Math.sin(((8.794 / 3600) * DEG) / geo.radiusAu);
  const delta = geo.delta * DEG;
  const cosH = Math.cos(h);
  const sinH = Math.sin(h);
  // Parallax in right ascension Δα = atan2(p, q), and the topocentric declination δ′.
  const p = -obs.x * sinXi * sinH;
  const q = Math.cos(delta) - obs.x * sinXi * cosH;
  const pq = Math.sqrt(p * p + q * q);
  const sinDA = p / pq;
  const cosDA = q / pq;
  const num = (Math.sin(delta) - obs.y * sinXi) * cosDA;
  const nq = Math.sqrt(num * num + q * q);
  const sinDeltaP = num / nq;
  const cosDeltaP = q / nq;
  // H′ = H − Δα.
  const cosHP = cosH * cosDA + sinH * sinDA;
  const sinHP = sinH * cosDA - cosH * sinDA;
  const sinE0 = obs.sinLat * sinDeltaP + obs.cosLat * cosDeltaP * cosHP;
  out.sinElevationTrue = sinE0;
  if (!full) return out;
  const e0 = Math.asin(sinE0) / DEG;
  out.elevationTrue = e0;
  let dE = 0;
  if (e0 >= -(SUN_RADIUS_DEG + obs.refractionDeg)) {
    dE =
      ((obs.pressureMbar / 1010) * (283 / (273 + obs.temperatureC)) * 1.02) /
      (60 * Math.tan((e0 + 10.3 / (e0 + 5.11)) * DEG));
  }
  out.zenith = 90 - (e0 + dE);
  const gamma = Math.atan2(sinHP, cosHP * obs.sinLat - (sinDeltaP / cosDeltaP) * obs.cosLat) / DEG;
  out.azimuth = wrap360(gamma + 180);
  return out;
}

/** The sun's position for a clock time at a site: the complete SPA. */
export function sunPosition(time: CalendarTime, site: SiteLocation): SunPosition {
  return sunPositionAtJd(julianDay(time), site);
}

export function sunPositionAtJd(jd: number, site: SiteLocation): SunPosition {
  const geo = geocentricSun(jd, site.deltaT);
  const t = topocentric(geo, meanSiderealTime(jd) + geo.nutationRa, observer(site), {
    sinElevationTrue: 0,
    elevationTrue: 0,
    zenith: 0,
    azimuth: 0,
  });
  return {
    zenith: t.zenith,
    azimuth: t.azimuth,
    elevationTrue: t.elevationTrue,
    declination: geo.delta,
    radiusAu: geo.radiusAu,
  };
}

export const HOURS_PER_YEAR = 8760;
const HOUR_DAYS = 1 / 24;

export interface HourlyGeometryOptions {
  latitude: number;
  longitude: number;
  elevationM: number;
  /** Offset of local standard time from UTC, hours. */
  timezoneHours: number;
  /** The calendar year whose sun is used; Feb 29 is skipped when it is a leap year. */
  year: number;
  /** Defaults: the standard atmosphere at the elevation. */
  pressureMbar?: number;
  temperatureC?: number;
  /** Default: estimateDeltaT(year). */
  deltaT?: number;
}

/** The sun in each hour of a 365-day year, hour-beginning local standard time. */
export interface HourlySunGeometry {
  /** 1 when the sun is above the horizon for some part of the hour. */
  up: Uint8Array;
  /** Share of the hour with the sun up (0..1). */
  upFraction: Float64Array;
  /** Apparent zenith and azimuth at the hour's evaluation time (PVWatts rule), degrees. */
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

/**
 * Per-hour sun geometry for one reference year. A full hour is evaluated at its middle; in
 * the hour that contains sunrise or sunset (PVWatts), at the middle of the part of the hour
 * when the sun is up. "Up" means the sun's upper limb is above the horizon with standard
 * refraction, as in SPA's sunrise. Geocentric terms are evaluated once per UT day and
 * interpolated (quadratic, SPA Eq. A.13 style), which keeps the hourly positions within
 * 0.0001° of the full algorithm at a hundredth of its cost.
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
  const sinHorizon = Math.sin(-(SUN_RADIUS_DEG + obs.refractionDeg) * DEG);
  const jd0 = julianDay({ year: opts.year, month: 1, day: 1, hour: 0, minute: 0, second: 0, timezoneHours: 0 });

  // Daily samples from day −2 to day 368 cover every hour of any time zone.
  const first = -2;
  const count = 371;
  const alpha = new Float64Array(count);
  const delta = new Float64Array(count);
  const radius = new Float64Array(count);
  const nut = new Float64Array(count);
  for (let i = 0; i < count; i++) {
    const g = geocentricSun(jd0 + first + i, deltaT);
    let a = g.alpha;
    // Unwrapped, so that interpolation never crosses 360° → 0°.
    if (i > 0) while (a < alpha[i - 1] - 180) a += 360;
    alpha[i] = a;
    delta[i] = g.delta;
    radius[i] = g.radiusAu;
    nut[i] = g.nutationRa;
  }
  const geo: GeocentricSun = { alpha: 0, delta: 0, radiusAu: 1, nutationRa: 0 };
  const interp = (y: Float64Array, k: number, n: number): number => {
    const a = y[k] - y[k - 1];
    const b = y[k + 1] - y[k];
    return y[k] + (n / 2) * (a + b + n * (b - a));
  };
  const pos: Topocentric = { sinElevationTrue: 0, elevationTrue: 0, zenith: 0, azimuth: 0 };
  const at = (jd: number, full: boolean): Topocentric => {
    const x = jd - jd0 - first;
    const k = Math.floor(x);
    const n = x - k;
    geo.alpha = interp(alpha, k, n);
    geo.delta = interp(delta, k, n);
    geo.radiusAu = interp(radius, k, n);
    geo.nutationRa = interp(nut, k, n);
    return topocentric(geo, meanSiderealTime(jd) + geo.nutationRa, obs, pos, full);
  };
  // Same sign and same zero as elevation − horizon, without the arcsine.
  const height = (jd: number): number => at(jd, false).sinElevationTrue - sinHorizon;
  // Regula falsi (Illinois) for the crossing between a (below) and b (above) or the reverse.
  const crossing = (a: number, fa: number, b: number, fb: number): number => {
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
  };

  const out: HourlySunGeometry = {
    up: new Uint8Array(HOURS_PER_YEAR),
    upFraction: new Float64Array(HOURS_PER_YEAR),
    zenith: new Float64Array(HOURS_PER_YEAR).fill(180),
    azimuth: new Float64Array(HOURS_PER_YEAR),
    cosZenith: new Float64Array(HOURS_PER_YEAR).fill(-1),
    radiusAu: new Float64Array(HOURS_PER_YEAR).fill(1),
  };
  const leap = isLeap(opts.year);
  let prevEnd = Number.NaN;
  let prevEndHeight = 0;
  for (let h = 0; h < HOURS_PER_YEAR; h++) {
    const day = Math.floor(h / 24);
    const start = jd0 + day + (leap && day >= 59 ? 1 : 0) + (h - day * 24 - opts.timezoneHours) * HOUR_DAYS;
    const end = start + HOUR_DAYS;
    const fStart = start === prevEnd ? prevEndHeight : height(start);
    const fEnd = height(end);
    prevEnd = end;
    prevEndHeight = fEnd;
    let from = start;
    let to = end;
    if (fStart > 0 && fEnd <= 0) to = crossing(start, fStart, end, fEnd);
    else if (fStart <= 0 && fEnd > 0) from = crossing(start, fStart, end, fEnd);
    else if (fStart <= 0 && fEnd <= 0) {
      // The sun can peek above the horizon inside an hour only near its culmination.
      if (Math.max(fStart, fEnd) < -0.035) continue;
      const mid = start + HOUR_DAYS / 2;
      const fMid = height(mid);
      if (fMid <= 0) continue;
      from = crossing(start, fStart, mid, fMid);
      to = crossing(mid, fMid, end, fEnd);
    }
    const p = at((from + to) / 2, true);
    out.up[h] = 1;
    out.upFraction[h] = Math.min(1, (to - from) / HOUR_DAYS);
    out.zenith[h] = p.zenith;
    out.azimuth[h] = p.azimuth;
    out.cosZenith[h] = Math.cos(p.zenith * DEG);
    out.radiusAu[h] = geo.radiusAu;
  }
  return out;
}
