// The sun's position: NREL's SPA against its published worked example, and the hourly
// geometry the solar model reuses every year (PVWatts' sunrise and sunset hours, polar
// night and day, the skipped Feb 29).
import t from 'tap';
import {
  estimateDeltaT,
  HOURS_PER_YEAR,
  hourlySunGeometry,
  julianDay,
  pressureAtElevation,
  type SiteLocation,
  sunPosition,
  sunPositionAtJd,
} from '../worker/engine/solar/solar.position.ts';

const DEG = Math.PI / 180;
const near = (actual: number, expected: number, tolerance: number) => Math.abs(actual - expected) <= tolerance;
/** Angular difference of two azimuths, degrees. */
const azimuthGap = (a: number, b: number) => Math.abs(((a - b + 540) % 360) - 180);

/** Golden, Colorado (NREL), in 2027: the hourly geometry's options. */
const GOLDEN = { latitude: 39.73, longitude: -105.18, elevationM: 1820, timezoneHours: -7, year: 2027 };

/** The full SPA's site for the hourly geometry's options: standard pressure and temperature at the elevation. */
const spaSite = (o: { latitude: number; longitude: number; elevationM: number; year: number }): SiteLocation => ({
  latitude: o.latitude,
  longitude: o.longitude,
  elevationM: o.elevationM,
  pressureMbar: pressureAtElevation(o.elevationM),
  temperatureC: 15 - 0.0065 * o.elevationM,
  deltaT: estimateDeltaT(o.year),
});

t.test('SPA worked example (NREL/TP-560-34302, Table A5.1)', async (t) => {
  const time = { year: 2003, month: 10, day: 17, hour: 12, minute: 30, second: 30, timezoneHours: -7 };
  const site: SiteLocation = {
    latitude: 39.742476,
    longitude: -105.1786,
    elevationM: 1830.14,
    pressureMbar: 820,
    temperatureC: 11,
    deltaT: 67,
    refractionDeg: 0.5667,
  };
  t.ok(near(julianDay(time), 2452930.312847, 1e-6), `Julian day ${julianDay(time)}`);
  const p = sunPosition(time, site);
  t.ok(near(p.zenith, 50.11162, 1e-4), `topocentric zenith ${p.zenith}`);
  t.ok(near(p.azimuth, 194.34024, 1e-4), `topocentric azimuth ${p.azimuth}`);
});

t.test('equator at the March equinox: the sun is overhead at apparent noon', async (t) => {
  const site: SiteLocation = {
    latitude: 0,
    longitude: 0,
    elevationM: 0,
    pressureMbar: 1013,
    temperatureC: 25,
    deltaT: 69,
  };
  // 12:00 UTC on 2024-03-20 (equinox 03:06 UTC): declination ≈ +0.15°, and the equation of
  // time (≈ −7.4 min) puts the sun ≈ 1.85° short of the meridian, to the east.
  const noonUtc = sunPosition(
    { year: 2024, month: 3, day: 20, hour: 12, minute: 0, second: 0, timezoneHours: 0 },
    site,
  );
  const bound = Math.hypot(0.4, 8 * 0.25);
  t.ok(noonUtc.zenith < bound, `zenith ${noonUtc.zenith} within what declination and EoT allow (${bound.toFixed(2)}°)`);
  t.ok(noonUtc.zenith > 1.5, 'the equation of time keeps it off the zenith at 12:00 UTC');
  t.ok(noonUtc.azimuth > 45 && noonUtc.azimuth < 135, `morning sun in the east (${noonUtc.azimuth})`);
  t.ok(near(noonUtc.declination, 0.15, 0.05), `declination ${noonUtc.declination}`);
  // At apparent noon the zenith is the declination (plus refraction, negligible overhead).
  const apparentNoon = sunPosition(
    { year: 2024, month: 3, day: 20, hour: 12, minute: 7, second: 24, timezoneHours: 0 },
    site,
  );
  t.ok(near(apparentNoon.zenith, Math.abs(apparentNoon.declination), 0.02), `zenith ${apparentNoon.zenith}`);
});

t.test('the hourly geometry agrees with the full SPA at mid-hour', async (t) => {
  const g = hourlySunGeometry(GOLDEN);
  const site = spaSite(GOLDEN);
  const jan1 = julianDay({ year: 2027, month: 1, day: 1, hour: 0, minute: 0, second: 0, timezoneHours: -7 });
  let worst = 0;
  let checked = 0;
  for (let h = 5; h < HOURS_PER_YEAR; h += 13) {
    if (g.upFraction[h] !== 1) continue;
    const p = sunPositionAtJd(jan1 + Math.floor(h / 24) + ((h % 24) + 0.5) / 24, site);
    worst = Math.max(worst, Math.abs(p.zenith - g.zenith[h]), azimuthGap(p.azimuth, g.azimuth[h]));
    checked++;
  }
  t.ok(checked > 250, `${checked} daylight hours checked`);
  t.ok(worst < 1e-4, `largest difference ${worst.toExponential(2)}°`);
  t.ok(near(g.cosZenith[4000], Math.cos(g.zenith[4000] * DEG), 1e-15), 'cosZenith is cos(zenith)');
});

t.test('sunrise and sunset hours are evaluated in the middle of their sunlit part (PVWatts)', async (t) => {
  const g = hourlySunGeometry(GOLDEN);
  const site = spaSite(GOLDEN);
  // January 1: the sun rises in the 07:00 hour and sets in the 16:00 hour (MST).
  const jan1 = julianDay({ year: 2027, month: 1, day: 1, hour: 0, minute: 0, second: 0, timezoneHours: -7 });
  const elevation = (jd: number) => sunPositionAtJd(jd, site).elevationTrue;
  const bisect = (lo: number, hi: number) => {
    const rising = elevation(lo) < 0;
    for (let i = 0; i < 50; i++) {
      const mid = (lo + hi) / 2;
      if (elevation(mid) < 0 === rising) lo = mid;
      else hi = mid;
    }
    return (lo + hi) / 2;
  };
  t.equal(g.up[6], 0, '06:00–07:00 is dark');
  t.equal(g.up[17], 0, '17:00–18:00 is dark');
  const sunrise = bisect(jan1 + 7 / 24, jan1 + 8 / 24);
  const sunset = bisect(jan1 + 16 / 24, jan1 + 17 / 24);
  const atRise = sunPositionAtJd((sunrise + jan1 + 8 / 24) / 2, site);
  const atSet = sunPositionAtJd((jan1 + 16 / 24 + sunset) / 2, site);
  t.ok(near(g.upFraction[7], (jan1 + 8 / 24 - sunrise) * 24, 1e-4), `sunlit share of 07:00 ${g.upFraction[7]}`);
  t.ok(near(g.zenith[7], atRise.zenith, 1e-3), `sunrise hour zenith ${g.zenith[7]} vs ${atRise.zenith}`);
  t.ok(near(g.upFraction[16], (sunset - jan1 - 16 / 24) * 24, 1e-4), `sunlit share of 16:00 ${g.upFraction[16]}`);
  t.ok(near(g.zenith[16], atSet.zenith, 1e-3), `sunset hour zenith ${g.zenith[16]} vs ${atSet.zenith}`);
  t.ok(g.zenith[7] < 90 && g.zenith[16] < 90, 'the evaluated sun is above the horizon');
});

t.test('Feb 29 is skipped: hour 1428 of a leap year is March 1, 12:00–13:00', async (t) => {
  const opts = { latitude: 10, longitude: 20, elevationM: 0, timezoneHours: 1, year: 2028 };
  const g = hourlySunGeometry(opts);
  const site = spaSite(opts);
  const h = 59 * 24 + 12;
  const march1 = sunPosition({ year: 2028, month: 3, day: 1, hour: 12, minute: 30, second: 0, timezoneHours: 1 }, site);
  t.ok(near(g.zenith[h], march1.zenith, 1e-4), `zenith ${g.zenith[h]} vs ${march1.zenith}`);
  t.ok(azimuthGap(g.azimuth[h], march1.azimuth) < 1e-4, 'azimuth matches March 1');
});

t.test('polar night and polar day at 80° N', async (t) => {
  const g = hourlySunGeometry({ latitude: 80, longitude: 15, elevationM: 0, timezoneHours: 1, year: 2027 });
  let lit = 0;
  // December 18–31: not one hour of sun.
  for (let h = 351 * 24; h < HOURS_PER_YEAR; h++) lit += g.up[h];
  t.equal(lit, 0, 'late December: all 24 hours dark, every day');
  let sunlitShare = 0;
  for (let h = 170 * 24; h < 177 * 24; h++) sunlitShare += g.upFraction[h];
  t.equal(sunlitShare, 7 * 24, 'late June: the sun never sets');
  const midnight = 172 * 24;
  t.ok(g.zenith[midnight] < 90 && azimuthGap(g.azimuth[midnight], 0) < 20, 'the midnight sun is in the north');
});

t.test('southern hemisphere: the noon sun is in the north', async (t) => {
  const g = hourlySunGeometry({ latitude: -33.9, longitude: 18.4, elevationM: 0, timezoneHours: 2, year: 2027 });
  const june21Noon = 171 * 24 + 12;
  const dec21Noon = 354 * 24 + 12;
  t.ok(azimuthGap(g.azimuth[june21Noon], 0) < 30, `June noon azimuth ${g.azimuth[june21Noon]}`);
  t.ok(near(g.zenith[june21Noon], 33.9 + 23.44, 2), `June noon zenith ${g.zenith[june21Noon]}`);
  t.ok(near(g.zenith[dec21Noon], 33.9 - 23.44, 2), `December noon zenith ${g.zenith[dec21Noon]}`);
});

t.test('the geometry is deterministic', async (t) => {
  const opts = { latitude: -12.3, longitude: 130.9, elevationM: 40, timezoneHours: 9.5, year: 2031 };
  const a = hourlySunGeometry(opts);
  const b = hourlySunGeometry(opts);
  t.same(Buffer.from(a.zenith.buffer), Buffer.from(b.zenith.buffer));
  t.same(Buffer.from(a.azimuth.buffer), Buffer.from(b.azimuth.buffer));
});

t.test(
  'skipping the surely dark hours changes nothing: every latitude, both horizons, hour means and instants',
  async (t) => {
    const fields = ['up', 'upFraction', 'zenith', 'azimuth', 'cosZenith', 'radiusAu'] as const;
    let skipped = 0;
    for (let latitude = -89; latitude <= 89; latitude += 8) {
      for (const horizonDeg of [0, -0.8333]) {
        for (const instantMinute of [undefined, 30]) {
          const opts = {
            latitude,
            longitude: 40 - latitude,
            elevationM: 300,
            timezoneHours: 3,
            year: 2028,
            horizonDeg,
          };
          const both = [true, false].map((skipDarkHours) =>
            hourlySunGeometry({ ...opts, skipDarkHours, ...(instantMinute === undefined ? {} : { instantMinute }) }),
          );
          const differ = fields.filter((f) => both[0][f].some((v, h) => !Object.is(v, both[1][f][h])));
          if (differ.length > 0)
            t.fail(`latitude ${latitude}, horizon ${horizonDeg}, minute ${instantMinute}: ${differ}`);
          skipped += both[0].up.filter((u) => !u).length;
        }
      }
    }
    t.ok(skipped > 0, 'dark hours in the cases');
    t.pass('the same to the bit');
  },
);
