// NREL's Solar Position Algorithm (Reda & Andreas 2008, NREL/TP-560-34302): the sun's
// topocentric zenith and azimuth to ±0.0003° at any instant. The hourly geometry in
// solar.position.ts evaluates its costly geocentric part every few days and interpolates.
import { DEG } from '../angles.ts';
import { B_TERMS, L_TERMS, NUTATION_TERMS, R_TERMS } from './solar.position.terms.ts';

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

/** Julian day (UT) of a clock time: Gregorian calendar from 1582-10-15, Julian before (SPA Eq. 4). */
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
            u *
              (1999.25 +
                u * (-51.38 + u * (-249.67 + u * (-39.05 + u * (7.12 + u * (27.87 + u * (5.79 + u * 2.45)))))))));
  const eps = eps0 / 3600 + dEps;
  const aberration = -20.4898 / (3600 * radiusAu);
  const lambda = (theta + dPsi + aberration) * DEG;
  const epsR = eps * DEG;
  const betaR = beta * DEG;
  const alpha = wrap360(
    Math.atan2(Math.sin(lambda) * Math.cos(epsR) - Math.tan(betaR) * Math.sin(epsR), Math.cos(lambda)) / DEG,
  );
  const delta = Math.asin(Math.sin(betaR) * Math.cos(epsR) + Math.cos(betaR) * Math.sin(epsR) * Math.sin(lambda)) / DEG;
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
  // Intermediate terms kept for `completeTopocentric`.
  sinHourAngle: number;
  cosHourAngle: number;
  tanDeclination: number;
}

export function emptyTopocentric(): Topocentric {
  return {
    sinElevationTrue: 0,
    elevationTrue: 0,
    zenith: 0,
    azimuth: 0,
    sinHourAngle: 0,
    cosHourAngle: 0,
    tanDeclination: 0,
  };
}

/**
 * Topocentric elevation from the geocentric position and the apparent sidereal time (SPA
 * steps 3.11–3.13 and the true elevation of 3.14): fills `sinElevationTrue`, the cheap test for sunrise. The parallax
 * angles enter only through their sines and cosines, which follow from the atan2 arguments
 * without calling atan2. `completeTopocentric` adds refraction and azimuth.
 */
export function topocentric(geo: GeocentricSun, siderealDeg: number, obs: Observer, out: Topocentric): Topocentric {
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
  out.sinHourAngle = sinH * cosDA - cosH * sinDA;
  out.cosHourAngle = cosHP;
  out.tanDeclination = sinDeltaP / cosDeltaP;
  out.sinElevationTrue = obs.sinLat * sinDeltaP + obs.cosLat * cosDeltaP * cosHP;
  return out;
}

/** SPA steps 3.14–3.15: refraction, zenith and azimuth. */
export function completeTopocentric(obs: Observer, out: Topocentric): Topocentric {
  const e0 = Math.asin(out.sinElevationTrue) / DEG;
  out.elevationTrue = e0;
  let dE = 0;
  if (e0 >= -(SUN_RADIUS_DEG + obs.refractionDeg)) {
    dE =
      ((obs.pressureMbar / 1010) * (283 / (273 + obs.temperatureC)) * 1.02) /
      (60 * Math.tan((e0 + 10.3 / (e0 + 5.11)) * DEG));
  }
  out.zenith = 90 - (e0 + dE);
  const gamma = Math.atan2(out.sinHourAngle, out.cosHourAngle * obs.sinLat - out.tanDeclination * obs.cosLat) / DEG;
  out.azimuth = wrap360(gamma + 180);
  return out;
}

/** The sun's position for a clock time at a site: the complete SPA. */
export function sunPosition(time: CalendarTime, site: SiteLocation): SunPosition {
  return sunPositionAtJd(julianDay(time), site);
}

export function sunPositionAtJd(jd: number, site: SiteLocation): SunPosition {
  const geo = geocentricSun(jd, site.deltaT);
  const obs = observer(site);
  const t = completeTopocentric(obs, topocentric(geo, meanSiderealTime(jd) + geo.nutationRa, obs, emptyTopocentric()));
  return {
    zenith: t.zenith,
    azimuth: t.azimuth,
    elevationTrue: t.elevationTrue,
    declination: geo.delta,
    radiusAu: geo.radiusAu,
  };
}
