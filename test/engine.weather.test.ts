// Synthetic weather statistics over many seeds, determinism, the default climate, and
// SAM CSV weather files (the Phoenix TMY2 reference file and broken copies of it).
import { readFileSync } from 'node:fs';
import t from 'tap';
import { defaultMonthlyClimate } from '../shared/climate.defaults.ts';
import type { ResolvedInputs } from '../shared/schemas/inputs.ts';
import {
  parseSamCsv,
  pressureFromElevation,
  WeatherFileError,
  weatherYearFromSamCsv,
  weatherYearFromSupplied,
} from '../shared/weather/samcsv.ts';
import type { WeatherYear } from '../shared/weather/types.ts';
import { deriveSeed, Rng } from '../worker/engine/weather/random.ts';
import {
  extraterrestrialHorizontal,
  monthly,
  prepareSynthetic,
  syntheticYear,
} from '../worker/engine/weather/weather.synthetic.ts';
import { resolvedInputs } from './fixtures/inputs.ts';

const HOURS = 8760;
const MONTH_DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
const MONTH_OF_HOUR = new Uint8Array(HOURS);
for (let m = 0, h = 0; m < 12; m++) for (let i = 0; i < MONTH_DAYS[m] * 24; i++) MONTH_OF_HOUR[h++] = m;
const SEEDS = 20;
const YEARS = 25;
const phoenix = readFileSync(new URL('./fixtures/reference/phoenix_az_tmy2.csv', import.meta.url), 'utf8');

const sum = (a: ArrayLike<number>) => {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i];
  return s;
};
const mean = (a: number[]) => sum(a) / a.length;
const cv = (a: number[]) => {
  const m = mean(a);
  return Math.sqrt(a.reduce((s, x) => s + (x - m) ** 2, 0) / (a.length - 1)) / m;
};
const gamma = (x: number) => {
  // Stirling with two correction terms, shifted up for accuracy; ample for fitting k.
  let shift = 1;
  while (x < 8) shift *= x++;
  return (Math.sqrt((2 * Math.PI) / x) * (x / Math.E) ** x * (1 + 1 / (12 * x) + 1 / (288 * x * x))) / shift;
};
/** Weibull k from a sample's coefficient of variation (method of moments). */
function weibullK(sampleCv: number): number {
  let lo = 0.5;
  let hi = 10;
  for (let i = 0; i < 60; i++) {
    const k = (lo + hi) / 2;
    const c = Math.sqrt(gamma(1 + 2 / k) / gamma(1 + 1 / k) ** 2 - 1);
    if (c > sampleCv) lo = k;
    else hi = k;
  }
  return (lo + hi) / 2;
}

/** Runs SEEDS × YEARS synthetic years and collects what the tests look at. */
function survey(inputs: ResolvedInputs) {
  const h0 = extraterrestrialHorizontal(inputs);
  const h0Month = new Float64Array(12);
  for (let h = 0; h < HOURS; h++) h0Month[MONTH_OF_HOUR[h]] += h0[h];
  const ghiMonth = new Float64Array(12);
  const tempMonth = new Float64Array(12);
  const annualGhi: number[] = [];
  const annualWind: number[] = [];
  const ks: number[] = [];
  const lag1: number[] = [];
  let w: WeatherYear | undefined;
  for (let s = 0; s < SEEDS; s++) {
    const seeded = { ...inputs, seed: 1000 + 7919 * s };
    for (let y = 0; y < YEARS; y++) {
      w = syntheticYear(seeded, y, w);
      for (let h = 0; h < HOURS; h++) {
        ghiMonth[MONTH_OF_HOUR[h]] += w.ghi[h];
        tempMonth[MONTH_OF_HOUR[h]] += w.tempC[h];
      }
      const m = sum(w.windMs) / HOURS;
      let v2 = 0;
      let cov = 0;
      for (let h = 0; h < HOURS; h++) {
        v2 += (w.windMs[h] - m) ** 2;
        if (h > 0) cov += (w.windMs[h] - m) * (w.windMs[h - 1] - m);
      }
      annualGhi.push(sum(w.ghi) / 1000);
      annualWind.push(m);
      ks.push(weibullK(Math.sqrt(v2 / HOURS) / m));
      lag1.push(cov / v2);
    }
  }
  const n = SEEDS * YEARS;
  return {
    kt: Array.from(ghiMonth, (g, m) => g / n / h0Month[m]),
    temp: Array.from(tempMonth, (x, m) => x / n / (MONTH_DAYS[m] * 24)),
    annualGhi,
    annualWind,
    k: mean(ks),
    lag1: mean(lag1),
  };
}

const amarillo = resolvedInputs();
const climate = amarillo.weather.source === 'synthetic' ? amarillo.weather.climate : null;
if (!climate) throw new Error('the fixture should use synthetic weather');

t.test('wind: the mean speed, Weibull k and persistence of the inputs', async (t) => {
  for (const k of [2, 3]) {
    const inputs = resolvedInputs({ weather: { source: 'synthetic', climate: { wind_mean_ms: 7.5, weibull_k: k } } });
    const r = survey(inputs);
    const m = mean(r.annualWind);
    t.ok(Math.abs(m / 7.5 - 1) < 0.02, `k=${k}: mean ${m.toFixed(3)} m/s for 7.5`);
    t.ok(Math.abs(r.k / k - 1) < 0.03, `k=${k}: fitted k ${r.k.toFixed(3)}`);
    t.ok(r.lag1 > 0.88 && r.lag1 < 0.96, `k=${k}: lag-1 autocorrelation ${r.lag1.toFixed(3)}`);
  }
});

t.test('solar: monthly clearness matches the input; annual totals vary with the configured cv', async (t) => {
  const r = survey(amarillo);
  for (let m = 0; m < 12; m++) {
    const err = r.kt[m] / climate.clearness_index[m] - 1;
    t.ok(Math.abs(err) < 0.03, `month ${m + 1}: Kt ${r.kt[m].toFixed(3)} for ${climate.clearness_index[m]}`);
    t.ok(Math.abs(r.temp[m] - climate.temp_mean_c[m]) < 0.5, `month ${m + 1}: ${r.temp[m].toFixed(2)} °C`);
  }
  const ghiCv = cv(r.annualGhi);
  const windCv = cv(r.annualWind);
  t.ok(Math.abs(ghiCv / climate.solar_interannual_cv - 1) < 0.2, `annual GHI cv ${ghiCv.toFixed(4)}`);
  t.ok(Math.abs(windCv / climate.wind_interannual_cv - 1) < 0.2, `annual wind cv ${windCv.toFixed(4)}`);
  const ghi = mean(r.annualGhi);
  t.ok(ghi > 1700 && ghi < 2200, `Amarillo mean annual GHI ${ghi.toFixed(0)} kWh/m²`);
});

t.test('with no inter-annual variability every year has the same totals', async (t) => {
  const inputs = resolvedInputs({
    weather: { source: 'synthetic', climate: { solar_interannual_cv: 0, wind_interannual_cv: 0 } },
  });
  const a = syntheticYear(inputs, 0);
  const b = syntheticYear(inputs, 9);
  t.ok(Math.abs(sum(a.ghi) / sum(b.ghi) - 1) < 1e-9, 'same annual GHI');
  t.ok(Math.abs(sum(a.windMs) / sum(b.windMs) - 1) < 1e-9, 'same mean wind');
  t.not(a.ghi[4000], b.ghi[4000], 'but different hours');
});

t.test('same seed and year, same bytes; another seed or year, another year', async (t) => {
  const bytes = (w: WeatherYear) =>
    Buffer.concat([w.ghi, w.dni, w.dhi, w.tempC, w.windMs, w.pressureMbar].map((a) => Buffer.from(a.buffer)));
  const a = bytes(syntheticYear(amarillo, 3));
  // A fresh copy of the inputs: nothing may depend on cached state.
  const again = bytes(syntheticYear(structuredClone(amarillo), 3));
  t.ok(a.equals(again), 'identical');
  t.notOk(a.equals(bytes(syntheticYear(amarillo, 4))), 'next year differs');
  t.notOk(a.equals(bytes(syntheticYear({ ...amarillo, seed: amarillo.seed + 1 }, 3))), 'next seed differs');
  const r1 = new Rng(deriveSeed(7, 0, 0));
  const r2 = new Rng(deriveSeed(7, 0, 0));
  t.same([r1.uniform(), r1.normal(), r1.nextUint32()], [r2.uniform(), r2.normal(), r2.nextUint32()]);
  t.not(deriveSeed(7, 0, 1), deriveSeed(7, 1, 0), 'year and stream are not interchangeable');
});

t.test('a synthetic year is physically consistent', async (t) => {
  const w = syntheticYear(amarillo, 0);
  const prep = prepareSynthetic(amarillo);
  let bad = 0;
  for (let h = 0; h < HOURS; h++) {
    if (prep.h0[h] === 0 && w.ghi[h] !== 0) bad++;
    if (w.dhi[h] > w.ghi[h] + 1e-9 || w.dni[h] < 0 || w.dhi[h] < 0 || w.ghi[h] > 1400) bad++;
    if (prep.cosZ[h] >= 0.065 && Math.abs(w.dni[h] * prep.cosZ[h] + w.dhi[h] - w.ghi[h]) > 1e-6) bad++;
    if (w.windMs[h] < 0 || !Number.isFinite(w.tempC[h])) bad++;
  }
  t.equal(bad, 0, 'no night sun, DHI ≤ GHI, closure DNI·cos Z + DHI = GHI, no negative wind');
  t.equal(w.windHeightM, climate.wind_reference_height_m);
  t.ok(Math.abs(w.pressureMbar[0] - pressureFromElevation(amarillo.site.elevation_m)) < 1e-9);
  // The warmest hour of the mean day is mid-afternoon, the coldest near sunrise.
  const byHour = Array.from({ length: 24 }, (_, h) => {
    let s = 0;
    for (let d = 0; d < 365; d++) s += w.tempC[d * 24 + h];
    return s / 365;
  });
  const warmest = byHour.indexOf(Math.max(...byHour));
  const coldest = byHour.indexOf(Math.min(...byHour));
  t.ok(warmest >= 13 && warmest <= 17, `warmest hour ${warmest}`);
  t.ok(coldest >= 4 && coldest <= 8, `coldest hour ${coldest}`);
});

t.test('a climate given as single numbers works like twelve equal months', async (t) => {
  t.same(
    monthly(0.55),
    Array.from({ length: 12 }, () => 0.55),
  );
  t.same(monthly([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]), [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
  const single = structuredClone(amarillo);
  const twelve = structuredClone(amarillo);
  if (single.weather.source !== 'synthetic' || twelve.weather.source !== 'synthetic') throw new Error('synthetic');
  (single.weather.climate as { clearness_index: number | number[] }).clearness_index = 0.55;
  twelve.weather.climate.clearness_index = monthly(0.55);
  t.same(syntheticYear(single, 2).ghi, syntheticYear(twelve, 2).ghi);
});

t.test('default monthly climate: seasons, hemispheres, elevation', async (t) => {
  const north = defaultMonthlyClimate(40, 0);
  const south = defaultMonthlyClimate(-40, 0);
  const high = defaultMonthlyClimate(40, 2000);
  for (const c of [north, south, high]) {
    t.equal(c.clearness_index.length, 12);
    t.ok(c.clearness_index.every((k) => k >= 0.1 && k <= 0.75));
    t.ok(c.temp_diurnal_range_c.every((r) => r > 5 && r < 15));
  }
  t.ok(north.temp_mean_c[6] > north.temp_mean_c[0] + 10, 'northern July warmer than January');
  t.ok(south.temp_mean_c[0] > south.temp_mean_c[6] + 5, 'southern January warmer than July');
  t.ok(north.clearness_index[6] > north.clearness_index[0], 'clearer northern summer');
  const drop = mean(north.temp_mean_c) - mean(high.temp_mean_c);
  t.ok(Math.abs(drop - 13) < 0.2, `2 km colder by ${drop.toFixed(2)} °C`);
  const kt = (lat: number) => mean(defaultMonthlyClimate(lat, 0).clearness_index);
  t.ok(kt(25) > kt(0) && kt(25) > kt(55), 'subtropics clearer than the equator and high latitudes');
  t.ok(kt(40) >= 0.5 && kt(40) <= 0.6, `mid-latitude Kt ${kt(40).toFixed(3)}`);
});

t.test('SAM CSV: the Phoenix TMY2 file', async (t) => {
  const d = parseSamCsv(phoenix);
  t.equal(d.ghi.length, HOURS);
  t.ok(Math.abs(d.latitude - 33.43) < 0.01, `latitude ${d.latitude}`);
  t.equal(d.longitude, -112.016667);
  t.equal(d.timezoneHours, -7);
  t.equal(d.elevationM, 339);
  t.equal(d.windHeightM, null);
  const ghi = sum(d.ghi) / 1000;
  t.ok(ghi > 2000 && ghi < 2300, `annual GHI ${ghi.toFixed(0)} kWh/m²`);
  t.ok(sum(d.dni) / 1000 > 2300, 'a sunny desert has a large DNI');
  t.equal(d.tempC[0], 5.6);
  t.equal(d.windMs[1], 2.6);
  t.ok(d.pressureMbar && d.pressureMbar[0] === 983, 'pressure in mbar');
  const w = weatherYearFromSamCsv(d);
  t.equal(w.windHeightM, 10, 'TMY wind is measured at 10 m');
  t.equal(weatherYearFromSamCsv(d, { windHeightM: 30 }).windHeightM, 30);
  t.equal(w.ghi, d.ghi);
});

t.test('SAM CSV: broken files are rejected with the line number', async (t) => {
  const lines = phoenix.split('\n');
  const edit = (fn: (l: string[]) => void) => {
    const copy = [...lines];
    fn(copy);
    return copy.join('\n');
  };
  const fails = (text: string, line: number, pattern: RegExp, what: string) => {
    try {
      parseSamCsv(text);
      t.fail(`${what}: accepted`);
    } catch (err) {
      t.ok(err instanceof WeatherFileError, `${what}: a WeatherFileError`);
      if (err instanceof WeatherFileError) {
        t.equal(err.line, line, `${what}: line ${err.line}`);
        t.match(err.message, pattern, `${what}: ${err.message}`);
      }
    }
  };
  fails(
    edit((l) => {
      l[56] = '1988,1,3,8';
    }),
    57,
    /^line 57: expected 15 columns, found 4$/,
    'short row',
  );
  fails(
    edit((l) => {
      l[99] = l[99].replace(/^(\d+,\d+,\d+,\d+),\d+/, '$1,abc');
    }),
    100,
    /^line 100: GHI is not a number/,
    'text in GHI',
  );
  fails(
    edit((l) => {
      l[2] = l[2].replace('GHI', 'Global Irr');
    }),
    3,
    /^line 3: no GHI column$/,
    'no GHI column',
  );
  fails(
    edit((l) => {
      l[0] = l[0].replace('Latitude', 'Lattitude');
    }),
    1,
    /Latitude/,
    'no latitude',
  );
  fails(
    edit((l) => l.splice(5000, 10)),
    8753,
    /found 8750 data rows/,
    'missing rows',
  );
  fails(
    edit((l) => {
      l[200] = l[200].replace(/^(\d+,\d+,\d+,\d+,\d+,\d+,\d+),[-\d.]+/, '$1,99');
    }),
    201,
    /temperature 99 is outside/,
    'impossible temperature',
  );
});

t.test('SAM CSV: variants, a leap year, pressure in Pa', async (t) => {
  const lines = phoenix.trimEnd().split('\n');
  const renamed = [...lines];
  renamed[2] = 'Year,Month,Day,Hour,ghi,DNI,dhi,Temperature,Tdew,RH,Pressure,Wind Speed,Wdir,Snow,POA';
  renamed[0] = renamed[0].replace('Time Zone', 'tz');
  const r = parseSamCsv(renamed.join('\r\n'));
  t.same(r.ghi, parseSamCsv(phoenix).ghi, 'lower-case names, CRLF, tz');

  // Pa instead of mbar, as some SAM wind files have.
  const pa = lines.map((l, i) =>
    i < 3 ? l : l.replace(/^((?:[^,]*,){10})(\d+)/, (_, head, p) => `${head}${Number(p) * 100}`),
  );
  t.equal(parseSamCsv(pa.join('\n')).pressureMbar?.[0], 983);

  // 8,784 rows with Feb 29 inserted after Feb 28: dropped again.
  const feb28 = 3 + 58 * 24;
  const leapDay = lines.slice(feb28, feb28 + 24).map((l) => {
    const cells = l.split(',');
    cells[2] = '29';
    cells[4] = '777';
    return cells.join(',');
  });
  const leap = [...lines.slice(0, feb28 + 24), ...leapDay, ...lines.slice(feb28 + 24)];
  t.equal(leap.length, 3 + 8784);
  const d = parseSamCsv(leap.join('\n'));
  t.same(d.ghi, parseSamCsv(phoenix).ghi, 'Feb 29 removed');
});

t.test('supplied arrays become a weather year; pressure defaults from elevation', async (t) => {
  const fill = (v: number) => Array.from({ length: HOURS }, () => v);
  const w = weatherYearFromSupplied(
    {
      source: 'supplied',
      ghi: fill(100),
      dni: fill(50),
      dhi: fill(60),
      temp_air_c: fill(20),
      wind_speed_ms: fill(6),
      wind_height_m: 50,
      shear_exponent: 0.2,
    },
    1000,
  );
  t.equal(w.windHeightM, 50);
  t.equal(w.ghi.length, HOURS);
  t.equal(w.tempC[17], 20);
  t.ok(Math.abs(w.pressureMbar[0] - 898.75) < 0.1, `pressure at 1 km ${w.pressureMbar[0]}`);
  t.ok(Math.abs(pressureFromElevation(0) - 1013.25) < 1e-12);
});
