// PVWatts v8 against NREL SSC's own test figures (test/ssc_test/cmod_pvwattsv8_test.cpp and
// test/input_json/TechnologyModels/pvwattsv8/, SSC 2025.4.16, commit e97a19f8e). SSC's default case
// (test/input_cases/pvwatts_cases.h): the Phoenix TMY2 file, 4 kW, standard module, fixed open rack,
// tilt 20°, azimuth 180°, GCR 0.4, losses 14.0757 %, inverter 96 %, DC/AC 1.2, albedo from the
// weather file (which has none: SSC's 0.2). SSC's tolerances are absolute (0.001 to 0.1 kWh on
// thousands); where they are, ours is 0.1 %.
import { readFileSync } from 'node:fs';
import t from 'tap';
import type { ScenarioInputs } from '../shared/schemas/inputs.ts';
import { validateScenario } from '../shared/validate.ts';
import { hourlyFileMinute, parseSamCsv, weatherYearFromSamCsv } from '../shared/weather/samcsv.ts';
import { calculate } from '../worker/engine/index.ts';
import { groundDerate, groundDerateOf, groundTerms } from '../worker/engine/solar/solar.selfshade.ts';
import { instantSun } from '../worker/engine/solar/solar.timestep.ts';
import { cecMaxPower, powerTable, tablePower } from '../worker/engine/solar/solar.v8.module.ts';
import { hourlyAlbedo, prepareSolarV8, solarV8Detail, solarV8Year } from '../worker/engine/solar/solar.v8.ts';
import { loadWeather } from '../worker/engine/weather/weather.load.ts';
import { type DeepPartial, resolvedInputs } from './fixtures/inputs.ts';
import { PHOENIX_SITE, PHOENIX_TMY2, SSC_PVWATTS_SOLAR } from './fixtures/ssc.pvwatts.ts';

const fixture = (name: string) => readFileSync(new URL(`./fixtures/reference/${name}`, import.meta.url), 'utf8');
const PHOENIX = PHOENIX_TMY2;
const within = (ours: number, ssc: number, tolerance = 0.001) => Math.abs(ours / ssc - 1) <= tolerance;
const pct = (ours: number, ssc: number) => `${((ours / ssc - 1) * 100).toFixed(3)} %`;

type Solar = DeepPartial<ScenarioInputs['solar']>;

/** SSC's default case, with `solar` merged in; `kw` the DC size. */
function sscCase(solar: Solar = {}, kw = 4) {
  return resolvedInputs({
    site: PHOENIX_SITE,
    weather: { source: 'sam_csv', text: PHOENIX },
    solar: { ...SSC_PVWATTS_SOLAR, model: 'pvwatts_v8', capacity_mw_dc: kw / 1000, albedo: 'weather_file', ...solar },
    wind: { capacity_mw: 0 },
  });
}

/** Year 1's AC, kWh, through the whole engine (nothing curtails it). */
const annualKwh = (solar: Solar = {}, kw = 4, year = 0) => calculate(sscCase(solar, kw)).annual[year].solar_mwh * 1000;

/** The hourly AC of the first weather year, kWh (kw = 1,000 × the MW the model is prepared for), and the detail. */
function hourly(solar: Solar = {}, kw = 4) {
  const inputs = sscCase(solar, kw);
  const unit = { ...inputs, solar: { ...inputs.solar, capacity_mw_dc: 1 } };
  const model = prepareSolarV8(unit, kw);
  const ac = new Float64Array(8760);
  const detail = solarV8Detail();
  solarV8Year(model, loadWeather(inputs, 0), ac, detail);
  for (let h = 0; h < ac.length; h++) ac[h] *= kw;
  return { model, ac, detail };
}

t.test('DifferentTechnologyInputs: three module types, five array types, each within 0.1 % of SSC', async (t) => {
  const cases: [Solar, number][] = [
    [{ module_type: 'standard' }, 7043.197],
    [{ module_type: 'premium' }, 7040.913],
    [{ module_type: 'thin_film' }, 7099.417],
    [{ array_type: 'fixed_open_rack' }, 7043.197],
    [{ array_type: 'fixed_roof_mount' }, 7014.26],
    [{ array_type: 'single_axis' }, 8859.963],
    [{ array_type: 'single_axis_backtracking' }, 8802.08],
    [{ array_type: 'two_axis' }, 9910.386],
  ];
  for (const [solar, ssc] of cases) {
    const ours = annualKwh(solar);
    t.ok(within(ours, ssc), `${JSON.stringify(solar)}: ${ours.toFixed(3)} kWh vs SSC ${ssc} (${pct(ours, ssc)})`);
  }
});

t.test('DefaultNoFinancialModel: every month within 0.1 % of SSC', async (t) => {
  const ssc = [
    441.117, 488.02, 601.263, 685.43, 730.075, 681.335, 679.185, 662.545, 610.097, 583.053, 461.662, 419.413,
  ];
  const { ac } = hourly();
  const days = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
  let h = 0;
  days.forEach((n, m) => {
    let sum = 0;
    for (const end = h + n * 24; h < end; h++) sum += ac[h];
    t.ok(within(sum, ssc[m]), `month ${m + 1}: ${sum.toFixed(3)} kWh vs SSC ${ssc[m]} (${pct(sum, ssc[m])})`);
  });
});

t.test('LargeSystem: 1 MW, five array types, each within 0.1 % of SSC', async (t) => {
  const ssc = [1759882.2, 1753564.9, 2212064.0, 2197863.4, 2477596.6];
  const types = ['fixed_open_rack', 'fixed_roof_mount', 'single_axis', 'single_axis_backtracking', 'two_axis'] as const;
  types.forEach((array_type, i) => {
    const ours = annualKwh({ array_type }, 1000);
    t.ok(within(ours, ssc[i]), `${array_type}: ${ours.toFixed(1)} kWh vs SSC ${ssc[i]} (${pct(ours, ssc[i])})`);
  });
});

t.test('LifetimeMode: year 1 undegraded, a year degraded by 0.5 % within 0.1 % of SSC', async (t) => {
  // SSC degrades DC before the inverter; the engine degrades the AC output (compounded from year 2).
  const year1 = annualKwh({ degradation_percent_per_year: 0.5 }, 4, 0);
  const year2 = annualKwh({ degradation_percent_per_year: 0.5 }, 4, 1);
  t.ok(within(year1, 7043.197), `year 1: ${year1.toFixed(3)} kWh vs SSC 7043.197 (${pct(year1, 7043.197)})`);
  t.ok(within(year2, 7007.669), `degraded 0.5 %: ${year2.toFixed(3)} kWh vs SSC 7007.669 (${pct(year2, 7007.669)})`);
  t.ok(Math.abs(year2 / year1 - 0.995) < 1e-12, 'the engine degrades by 0.5 % a year, compounded');
});

t.test('IntermediateOutputTesting: one instant (Jan 1 12:30, 34.82° S) as SSC computes it', async (t) => {
  const inputs = resolvedInputs({
    site: { latitude: -34.82, longitude: -58.53, elevation_m: 20, timezone_offset_hours: -3 },
    solar: { ...sscCase().solar, albedo: 0.17 },
    wind: { capacity_mw: 0 },
  });
  const sun = instantSun(
    { latitude: -34.82, longitude: -58.53, elevationM: 20, timezoneHours: -3 },
    {
      year: 1988,
      month: 1,
      day: 1,
      hour: 12,
      minute: 30,
      dni: 592,
      dhi: 355,
      tempC: 31,
      windMs: 2.6,
      pressureMbar: 1007,
    },
  );
  const model = prepareSolarV8({ ...inputs, solar: { ...inputs.solar, capacity_mw_dc: 1 } }, 4, sun);
  const one = (v: number) => Float64Array.of(v);
  const weather = {
    ghi: one(0),
    dni: one(592),
    dhi: one(355),
    tempC: one(31),
    windMs: one(2.6),
    pressureMbar: one(1007),
    windHeightM: 10,
  };
  const ac = new Float64Array(1);
  const detail = solarV8Detail(1);
  solarV8Year(model, weather, ac, detail);
  const w = (mw: number) => mw * 4000;
  t.ok(Math.abs(model.surface.aoiDeg[0] - 32.195) < 0.01, `AOI ${model.surface.aoiDeg[0].toFixed(3)}° vs SSC 32.195`);
  t.ok(Math.abs(detail.poaFront[0] - 830.539) < 0.01, `POA ${detail.poaFront[0].toFixed(3)} vs SSC 830.539 W/m²`);
  t.ok(Math.abs(detail.cellTempC[0] - 48.579) < 0.01, `cell ${detail.cellTempC[0].toFixed(3)} vs SSC 48.579 °C`);
  t.ok(within(w(detail.dc[0]), 2537.023, 1e-5), `DC ${w(detail.dc[0]).toFixed(3)} W vs SSC 2537.023`);
  t.ok(within(w(ac[0]), 2431.272, 1e-5), `AC ${w(ac[0]).toFixed(3)} W vs SSC 2431.272`);
});

t.test('the tabulated maximum power is the single-diode solve within 4e-5', async (t) => {
  for (const type of ['standard', 'premium', 'thin_film'] as const) {
    const table = powerTable(type);
    let worst = 0;
    for (let g = 2; g <= 1400; g *= 1.07) {
      for (let c = -30; c <= 90; c += 3.7) {
        worst = Math.max(worst, Math.abs(tablePower(table, g, c) / cecMaxPower(table.module, g, c) - 1));
      }
    }
    t.ok(worst < 4e-5, `${type}: worst relative difference ${worst.toExponential(2)}`);
  }
  // At reference conditions the model gives the module's own Vmp × Imp.
  const m = powerTable('standard').module;
  t.ok(within(cecMaxPower(m, 1000, 25), m.vmp * m.imp, 0.002), 'STC power of the CEC module');
});

t.test('SnowModelTests: January energies and snow derates within 0.1 % of SSC', async (t) => {
  const cases: [Solar, number][] = [
    [{ array_type: 'fixed_open_rack' }, 416.63],
    [{ array_type: 'single_axis' }, 511.283],
    [{ array_type: 'single_axis_backtracking' }, 506.989],
  ];
  for (const [solar, ssc] of cases) {
    const { ac, detail } = hourly({ ...solar, snow_model: true });
    let january = 0;
    for (let h = 0; h < 31 * 24; h++) january += ac[h];
    t.ok(
      within(january, ssc),
      `${solar.array_type}: January ${january.toFixed(3)} kWh vs SSC ${ssc} (${pct(january, ssc)})`,
    );
    const derates = Array.from(detail.snowDeratePercent.subarray(0, 300));
    if (solar.array_type === 'fixed_open_rack') {
      // Two modules up a fixed row: 0, 50 or 100 %. From 6 am on Jan 12, as SSC checks.
      t.same(Array.from(detail.snowDeratePercent.subarray(270, 278)), [0, 50, 50, 50, 50, 50, 50, 0]);
    } else {
      t.ok(
        derates.every((d) => d === 0 || d === 100),
        'one module up a tracker row: 0 or 100 %',
      );
      t.ok(
        derates.some((d) => d === 100),
        'and the snow event is there',
      );
    }
  }
});

t.test("BifacialTest: bifaciality 0.65 gains more than SSC's 2.7 %; with snow on backtracking trackers", async (t) => {
  const mono = annualKwh({ bifaciality: 0 });
  const bi = annualKwh({ bifaciality: 0.65 });
  t.ok(bi / mono > 1.027, `gain ${((bi / mono - 1) * 100).toFixed(2)} % (SSC asserts > 2.7 %)`);
  // SnowModelTests' last case: backtracking, bifaciality 0.7, snow.
  const { ac } = hourly({ array_type: 'single_axis_backtracking', bifaciality: 0.7, snow_model: true });
  let january = 0;
  for (let h = 0; h < 31 * 24; h++) january += ac[h];
  t.ok(within(january, 532.193), `January ${january.toFixed(3)} kWh vs SSC 532.193 (${pct(january, 532.193)})`);
});

t.test('AlbedoTest: the weather file, one value or twelve, and SSC defaults where not valid', async (t) => {
  // Our SAM CSV reader requires a GHI column (PVWatts reads beam and diffuse only): one is added.
  const withGhi = (text: string) =>
    text
      .split('\n')
      .map((line, i) => (i < 2 || line.trim() === '' ? line : `${line.replace(/\r$/, '')},${i === 2 ? 'GHI' : '0'}`))
      .join('\n');
  const read = (name: string) => weatherYearFromSamCsv(parseSamCsv(withGhi(fixture(name))));
  const withAlbedo = read('ssc_pv_albedo_test.csv');
  const noAlbedo = read('ssc_pv_albedo_test_no_albedo.csv');
  const base = sscCase();
  const albedoOf = (choice: Solar['albedo'], snow: boolean, weather = withAlbedo) => {
    const model = prepareSolarV8({ ...base, solar: { ...base.solar, albedo: choice as never, snow_model: snow } }, 4);
    return hourlyAlbedo(model, weather, new Float64Array(8760));
  };
  const at = (a: Float64Array) => [0, 1, 2, 3228, 3229].map((h) => a[h]);
  t.same(at(albedoOf('weather_file', false)), [0.87, 0.2, 0.2, 0.1, 0.2], 'file: invalid hours take 0.2');
  t.same(at(albedoOf('weather_file', true)), [0.87, 0.6, 0.6, 0.1, 0.2], 'with snow: 0.6 on snow');
  t.same(at(albedoOf('weather_file', false, noAlbedo)), [0.2, 0.2, 0.2, 0.2, 0.2], 'no albedo column');
  t.same(at(albedoOf('weather_file', true, noAlbedo)), [0.6, 0.6, 0.6, 0.2, 0.2], 'no column, snow');
  t.same(at(albedoOf(0.45, true)), [0.45, 0.45, 0.45, 0.45, 0.45], 'one value');
  const monthly = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.9, 0.91, 0.92];
  const m = albedoOf(monthly, false);
  t.same([m[0], m[1776], m[3228]], [0.1, 0.3, 0.5], 'twelve values, by month');
  // What SSC would replace by its defaults, we refuse (the scenario validator: a 400 naming the field).
  const errors = (albedo: unknown, weather: unknown = { source: 'sam_csv', text: PHOENIX }) => {
    const r = validateScenario({ name: 'x', site: { latitude: 35, longitude: -100 }, weather, solar: { albedo } });
    return r.ok ? [] : r.errors.map((e) => e.path);
  };
  t.ok(errors(1).every((p) => p.startsWith('/solar/albedo')) && errors(1).length > 0, 'albedo 1 is refused');
  t.ok(errors([1, 2, 0.3, 4, 5, 6, 7, 8, 9, 0, 91, 92]).length > 0, 'monthly values outside (0, 1) are refused');
  t.ok(errors([0.2, 0.2]).length > 0, 'two values are refused');
  t.same([errors(0.45), errors(monthly), errors('weather_file')], [[], [], []], 'valid choices pass');
  t.same(errors('weather_file', { source: 'synthetic' }), ['/solar/albedo'], 'the weather file’s, without a file');
});

t.test(
  'the JSON cases: 100 MW single-axis on the Phoenix PSM3 TMY, six DC/AC ratios, within 0.1 % of SSC',
  async (t) => {
    // The file has a Minute column: SSC reads it as instantaneous values (the sun at hh:30 each
    // hour, no sunrise hour of its own), and so does v8 (hourlyFileMinute).
    const psm3 = fixture('phoenix_az_psm3_60_tmy.csv');
    t.same(
      [hourlyFileMinute(psm3), hourlyFileMinute(PHOENIX)],
      [30, null],
      'PSM3 at :30; the TMY2 file has no minutes',
    );
    const cases: [number, number][] = [
      [0.02, 121511777.51851366],
      [0.5, 209582372.34288067],
      [1, 211580007.20949063],
      [1.5, 207766827.93589377],
      [2, 175629716.3893752],
      [10, 40423883.57024845],
    ];
    for (const [ratio, ssc] of cases) {
      const inputs = resolvedInputs({
        site: { latitude: 33.45, longitude: -111.98, elevation_m: 358, timezone_offset_hours: -7 },
        weather: { source: 'sam_csv', text: psm3 },
        solar: {
          ...sscCase().solar,
          capacity_mw_dc: 100,
          array_type: 'single_axis',
          tilt_deg: 0,
          gcr: 0.3,
          dc_ac_ratio: ratio,
          losses_percent: 14.075660688264469,
        },
        wind: { capacity_mw: 0 },
      });
      const ours = calculate(inputs).annual[0].solar_mwh * 1000;
      t.ok(within(ours, ssc), `DC/AC ${ratio}: ${ours.toFixed(0)} kWh vs SSC ${ssc.toFixed(0)} (${pct(ours, ssc)})`);
    }
  },
);

t.test('the ground-reflected factor from terms computed once is groundDerate bit for bit', (t) => {
  // v8 computes the factor's geometric terms once per model (they are the same every weather year);
  // v5 computes the factor whole, each hour. Both must give the very same number, NaN included.
  const terms = { cosZenith: 0, openView: 0, sunlitView: 0, allView: 0 };
  let checked = 0;
  let differ = 0;
  for (const gcr of [0.2, 0.3, 0.4, 0.7]) {
    for (let tilt = -60; tilt <= 90; tilt += 3.7) {
      for (let zenith = 0; zenith <= 95; zenith += 2.3) {
        groundTerms(tilt, zenith, gcr, terms);
        for (const [dni, dhi, albedo, rows] of [
          [800, 120, 0.2, 1000],
          [0, 60, 0.6, 37],
          [310.5, 0, 0.25, 3],
          [-5, 40, 0.2, 1000],
        ]) {
          const whole = groundDerate(tilt, zenith, dni, dhi, gcr, albedo, rows);
          const split = groundDerateOf(
            terms.cosZenith,
            terms.openView,
            terms.sunlitView,
            terms.allView,
            dni,
            dhi,
            albedo,
            rows,
          );
          checked++;
          if (!Object.is(whole, split)) differ++;
        }
      }
    }
  }
  t.ok(checked > 10_000, `${checked} cases`);
  t.equal(differ, 0, 'no case differs in any bit');
  t.end();
});
