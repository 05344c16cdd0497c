// The wind model against hand calculations with a published 1.5 MW power curve.
import { readFileSync } from 'node:fs';
import t from 'tap';
import type { WeatherYear } from '../shared/weather/types.ts';
import {
  genericPowerCurve,
  prepareWind,
  R_DRY_AIR,
  RHO_SEA_LEVEL,
  turbineKw,
  windYear,
} from '../worker/engine/wind/wind.ts';
import {
  expNegative,
  farmWakeKw,
  farmWakeKwSteps,
  lnPositive,
  prepareWake,
  thrustBound,
  thrustCoefficient,
} from '../worker/engine/wind/wind.wake.ts';
import { resolvedInputs } from './fixtures/inputs.ts';

const HOURS = 8760;
const curveText = readFileSync(
  new URL('./fixtures/reference/turbine_1500kw_77m_power_curve.csv', import.meta.url),
  'utf8',
);
const CURVE: Array<[number, number]> = curveText
  .trim()
  .split('\n')
  .slice(1)
  .map((line) => {
    const [v, kw] = line.split(',').map(Number);
    return [v, kw];
  });

/** Reference reading of a curve: a plain search, zero outside it. */
function curveAt(curve: Array<[number, number]>, v: number): number {
  for (let i = 1; i < curve.length; i++) {
    const [v0, p0] = curve[i - 1];
    const [v1, p1] = curve[i];
    if (v > v0 && v <= v1) return p0 + ((p1 - p0) * (v - v0)) / (v1 - v0);
  }
  return 0;
}

/** °C that gives exactly ρ₀ at 1013.25 mbar with the model's gas constant: no density correction. */
const SEA_LEVEL_T = 101325 / (R_DRY_AIR * RHO_SEA_LEVEL) - 273.15;

function constantWeather(speed: number, heightM: number, tempC = SEA_LEVEL_T, pressureMbar = 1013.25): WeatherYear {
  const fill = (v: number) => new Float64Array(HOURS).fill(v);
  return {
    ghi: fill(0),
    dni: fill(0),
    dhi: fill(0),
    tempC: fill(tempC),
    windMs: fill(speed),
    pressureMbar: fill(pressureMbar),
    windHeightM: heightM,
  };
}

function farm(capacityMw: number, extra: { losses_percent?: number; hub_height_m?: number } = {}) {
  const inputs = resolvedInputs({
    wind: {
      capacity_mw: capacityMw,
      losses_percent: extra.losses_percent ?? 0,
      turbine: { power_curve: CURVE, hub_height_m: extra.hub_height_m ?? 80 },
    },
  });
  const model = prepareWind(inputs);
  if (!model) throw new Error('expected a wind model');
  return model;
}

function annual(model: NonNullable<ReturnType<typeof prepareWind>>, weather: WeatherYear): Float64Array {
  const out = new Float64Array(HOURS);
  windYear(model, weather, out);
  return out;
}

const sum = (a: Float64Array) => a.reduce((s, x) => s + x, 0);

t.test('the reference curve is what the test assumes', async (t) => {
  t.equal(CURVE.length, 161);
  t.same(
    CURVE.find(([v]) => v === 8),
    [8, 656.49],
  );
  t.same(
    CURVE.find(([v]) => v === 25),
    [25, 1500],
  );
  t.same(
    CURVE.find(([v]) => v === 25.25),
    [25.25, 0],
  );
});

t.test('constant 8 m/s at hub height, sea-level density, no losses', async (t) => {
  const model = farm(1.5);
  t.equal(model.turbines, 1, 'one 1.5 MW turbine');
  const out = annual(model, constantWeather(8, 80));
  // 656.49 kW for 8,760 h = 5,750.85 MWh.
  t.ok(Math.abs(out[0] - 0.65649) < 1e-9, `hour 0 = ${out[0]} MWh`);
  t.ok(Math.abs(sum(out) - 5750.8524) < 1e-5, `year = ${sum(out)} MWh`);
});

t.test('between breakpoints the curve is interpolated linearly', async (t) => {
  const out = annual(farm(1.5), constantWeather(9.1, 80));
  // 9.0 → 940.08 kW and 9.25 → the file's next point.
  const expected = curveAt(CURVE, 9.1) / 1000;
  t.ok(Math.abs(out[100] - expected) < 1e-9, `${out[100]} vs ${expected}`);
  t.ok(out[100] > 0.94008 && out[100] < 1.19, 'between the 9 and 10 m/s values');
});

t.test('thin warm air reads the sea-level curve at v·(ρ/ρ₀)^(1/3)', async (t) => {
  const out = annual(farm(1.5), constantWeather(8, 80, 35, 900));
  const rho = 90_000 / (R_DRY_AIR * (35 + 273.15));
  t.ok(Math.abs(rho - 1.0175) < 1e-3, `ρ = ${rho}`);
  const u = 8 * (rho / RHO_SEA_LEVEL) ** (1 / 3);
  t.ok(u > 7.5 && u < 7.55, `effective speed ${u}`);
  const expected = curveAt(CURVE, u) / 1000;
  t.ok(Math.abs(out[0] - expected) < 1e-9, `${out[0]} vs ${expected}`);
  t.ok(out[0] < 0.65649, 'less than at sea level');
});

t.test('farm size scales the turbine count, fractional counts included', async (t) => {
  const model = farm(100);
  t.ok(Math.abs(model.turbines - 100 / 1.5) < 1e-12);
  const out = annual(model, constantWeather(14, 80));
  t.ok(Math.abs(out[0] - 100) < 1e-9, 'at rated speed the farm makes its capacity');
});

t.test('losses: a single percentage, or categories that compound', async (t) => {
  const lossy = annual(farm(1.5, { losses_percent: 12 }), constantWeather(8, 80));
  t.ok(Math.abs(lossy[0] - 0.65649 * 0.88) < 1e-12);

  const breakdown = {
    wake: 5,
    availability: 3,
    electrical: 2,
    turbine_performance: 1,
    environmental: 1.5,
    curtailment: 0,
  };
  const inputs = resolvedInputs({
    wind: { capacity_mw: 1.5, losses_breakdown: breakdown, turbine: { power_curve: CURVE, hub_height_m: 80 } },
  });
  const model = prepareWind(inputs);
  if (!model) throw new Error('expected a model');
  const kept = 0.95 * 0.97 * 0.98 * 0.99 * 0.985;
  t.ok(Math.abs(model.keptFraction - kept) < 1e-12, `kept ${model.keptFraction}`);
  t.ok(Math.abs(annual(model, constantWeather(8, 80))[0] - 0.65649 * kept) < 1e-12);
});

t.test('cut-in and cut-out', async (t) => {
  const model = farm(1.5);
  t.equal(annual(model, constantWeather(2.9, 80))[0], 0, 'below cut-in');
  t.equal(annual(model, constantWeather(24.9, 80))[0], 1.5, 'just below cut-out: rated');
  t.equal(annual(model, constantWeather(25.5, 80))[0], 0, 'above cut-out');
  t.equal(annual(model, constantWeather(30, 80))[0], 0, 'far above cut-out');
  t.equal(annual(model, constantWeather(45, 80))[0], 0, 'beyond the curve');
  t.equal(annual(model, constantWeather(0, 80))[0], 0, 'calm');
});

t.test('power-law shear from the measurement height to the hub', async (t) => {
  const model = farm(1.5, { hub_height_m: 80 });
  t.equal(model.shearExponent, 0.14, 'the synthetic climate default');
  // Measured at 10 m, chosen so the hub sees exactly 10 m/s: 10 / 8^0.14.
  const measured = 10 / 8 ** 0.14;
  const out = annual(model, constantWeather(measured, 10));
  t.ok(Math.abs(out[0] - 1.19) < 1e-9, `${out[0]} MWh, expected 1.19`);
  const unsheared = annual(model, constantWeather(measured, 80));
  t.ok(unsheared[0] < 0.8, 'without the height difference the speed is much lower');
});

t.test('the generic curve: ½ρAv³·Cp up to rated, 3 to 25 m/s', async (t) => {
  const curve = genericPowerCurve(3000, 120);
  const area = Math.PI * 60 * 60;
  const at = (v: number) => curve.find(([s]) => s === v)?.[1];
  t.equal(at(2.75), 0, 'below cut-in');
  t.ok(Math.abs((at(5) ?? 0) - (0.5 * RHO_SEA_LEVEL * area * 0.45 * 125) / 1000) < 1e-9, 'cubic region');
  t.equal(at(15), 3000, 'rated');
  t.equal(at(25), 3000, 'rated until cut-out');
  t.equal(at(25.25), 0, 'cut out');
  t.ok(
    curve.every(([, kw], i) => i === 0 || curve[i - 1][0] < curve[i][0] || kw === 0),
    'sorted',
  );

  const inputs = resolvedInputs({
    wind: { capacity_mw: 30, turbine: { rated_kw: 3000, rotor_diameter_m: 120, hub_height_m: 80 } },
  });
  const model = prepareWind(inputs);
  if (!model) throw new Error('expected a model');
  t.equal(model.ratedKw, 3000);
  t.equal(model.turbines, 10);
  const out = annual(model, constantWeather(5, 80));
  t.ok(Math.abs(out[0] - (10 * (at(5) ?? 0) * (1 - inputs.wind.losses_percent / 100)) / 1000) < 1e-9);
});

t.test('no wind farm: no model', async (t) => {
  t.equal(prepareWind(resolvedInputs({ wind: { capacity_mw: 0 }, solar: { capacity_mw_dc: 10 } })), null);
});

t.test('an unsorted curve (the validator rejects it) does not crash the model', async (t) => {
  const shuffled = [...CURVE].reverse();
  const inputs = resolvedInputs({ wind: { capacity_mw: 1.5, losses_percent: 0, turbine: { hub_height_m: 80 } } });
  inputs.wind.turbine.power_curve = shuffled;
  const model = prepareWind(inputs);
  if (!model) throw new Error('expected a model');
  const speeds = new Float64Array(HOURS).map((_, i) => (i % 400) / 10);
  const weather = { ...constantWeather(0, 80), windMs: speeds };
  const out = annual(model, weather);
  t.ok(out.every(Number.isFinite), 'every hour is finite');
  t.ok(Math.abs(out[80] - 0.65649) < 1e-9, 'and sorted, it reads as the sorted curve');
});

t.test('varying speeds match a plain reference evaluation hour by hour', async (t) => {
  const model = farm(1.5);
  const speeds = new Float64Array(HOURS).map((_, i) => ((i * 7919) % 3000) / 100);
  const temps = new Float64Array(HOURS).map((_, i) => -20 + (i % 50));
  const weather = { ...constantWeather(0, 80, 0, 950), windMs: speeds, tempC: temps };
  const out = annual(model, weather);
  let worst = 0;
  for (let h = 0; h < HOURS; h++) {
    const rho = 95_000 / (R_DRY_AIR * (temps[h] + 273.15));
    const expected = curveAt(CURVE, speeds[h] * (rho / RHO_SEA_LEVEL) ** (1 / 3)) / 1000;
    worst = Math.max(worst, Math.abs(out[h] - expected));
  }
  t.ok(worst < 1e-9, `largest difference ${worst} MWh`);
});

t.test("the simple wake model's e^(−q) agrees with Math.exp within 1.6e-10 relatively, 0 ≤ q ≤ 99", async (t) => {
  let worst = 0;
  for (let i = 0; i <= 990_000; i++) {
    const q = i / 10_000 + (i % 7) * 1e-7;
    const exact = Math.exp(-q);
    worst = Math.max(worst, Math.abs(expNegative(q) / exact - 1));
  }
  t.ok(worst < 1.6e-10, `largest relative difference ${worst.toExponential(2)}`);
  t.ok(worst > 1e-12, 'the series is cut at r³ (a larger error than this says the table changed)');
  t.equal(expNegative(0), 1);
});

t.test("the wake geometry's ln x agrees with Math.log within 2 units in the last place, 10⁻⁶ ≤ x ≤ 10⁶", async (t) => {
  let worst = 0;
  for (let i = 0; i <= 1_000_000; i++) {
    const x = 10 ** (-6 + i * 12e-6) * (1 + (i % 7) * 1e-9);
    const exact = Math.log(x);
    worst = Math.max(
      worst,
      Math.abs(lnPositive(x) - exact) / Math.max(Number.EPSILON, Math.abs(exact) * Number.EPSILON),
    );
  }
  t.ok(worst <= 2, `largest difference ${worst.toFixed(2)} units in the last place`);
  t.ok(Math.abs(lnPositive(1)) < 1e-17, 'ln 1 within 10⁻¹⁷ of 0');
  t.equal(lnPositive(2), Math.LN2);
  t.equal(lnPositive(1e-310), Math.log(1e-310), 'below the normal numbers: Math.log');
  t.ok(Number.isNaN(lnPositive(-1)) && lnPositive(0) === -Infinity && lnPositive(Infinity) === Infinity);
});

t.test("the thrust bound is above every speed's thrust coefficient, and close to the largest", async (t) => {
  const az = JSON.parse(
    readFileSync(new URL('./fixtures/reference/ssc_wind_cases.json', import.meta.url), 'utf8'),
  ).az_80x2500kw;
  const curves: Array<[string, Array<[number, number]>, number]> = [
    ['1.5 MW, 77 m', CURVE, 77],
    ['AZ 2.5 MW, 100 m', az.power_curve_ms.map((v: number, i: number) => [v, az.power_curve_kw[i]]), 100],
    ['generic 3 MW, 120 m', genericPowerCurve(3000, 120), 120],
  ];
  for (const [name, power_curve, rotor_diameter_m] of curves) {
    const model = prepareWind(resolvedInputs({ wind: { capacity_mw: 1, turbine: { power_curve, rotor_diameter_m } } }));
    if (!model) throw new Error('no model');
    const bound = thrustBound(model, rotor_diameter_m, RHO_SEA_LEVEL);
    let most = 0;
    for (let i = 0; i <= 800_000; i++) {
      const u = i / 20_000;
      most = Math.max(most, thrustCoefficient(turbineKw(model, u), u, rotor_diameter_m, RHO_SEA_LEVEL));
    }
    t.ok(most > 0.1 && most <= bound && bound < most * (1 + 1e-6), `${name}: largest ${most}, bound ${bound}`);
  }
  const calm = { speeds: new Float64Array([0, 5]), powersKw: new Float64Array([10, 20]) };
  const flat = {
    intercept: new Float64Array([10]),
    slope: new Float64Array([2]),
    cellSegment: new Int32Array(1),
    cellsPerMs: 1,
  };
  t.equal(thrustBound({ ...calm, ...flat }, 77, RHO_SEA_LEVEL), Infinity, 'power at 0 m/s: no bound');
});

t.test('the wake of many steps at once (by direction, in batches) is each step alone, to the bit', async (t) => {
  const model = prepareWind(resolvedInputs({ wind: { capacity_mw: 1, turbine: { power_curve: CURVE } } }));
  if (!model) throw new Error('no model');
  const curve = { table: model, rhoSeaLevel: RHO_SEA_LEVEL };
  // Together: with the thrust bound, the pairs whose deficit is nil after a turbine's last other
  // one left out; alone: every pair.
  const bound = thrustBound(model, 77, RHO_SEA_LEVEL);
  // 5 × 6 turbines, every other row shifted; 20,000 steps over 7 directions (batches of up to 32,
  // and past them), calm, rated and cut-out speeds among them.
  const x_m: number[] = [];
  const y_m: number[] = [];
  for (let r = 0; r < 5; r++)
    for (let i = 0; i < 6; i++) {
      x_m.push(i * 400 + (r % 2) * 200);
      y_m.push(r * 350);
    }
  const steps = 20_000;
  const u = new Float64Array(steps);
  const dir = new Float64Array(steps);
  for (let s = 0; s < steps; s++) {
    u[s] = ((s * 7919) % 2600) / 100;
    dir[s] = [0, 45.5, 90, 181, 270, 333.25, 359.9][(s * 31) % 7];
  }
  for (const wake_model of ['simple', 'park'] as const) {
    for (const ti of [0.1, 0.25]) {
      const wind = resolvedInputs({ wind: { layout: { x_m, y_m }, wake_model, turbulence_intensity: ti } }).wind;
      const together = new Float64Array(steps);
      // Geometries kept for later calls (several resource years) or built in the scratch (the last).
      const batched = prepareWake({ x_m, y_m }, 77, wind, bound);
      farmWakeKwSteps(curve, batched, u, dir, together, ti === 0.1);
      const alone = prepareWake({ x_m, y_m }, 77, wind);
      let differ = 0;
      let wakes = 0;
      for (let s = 0; s < steps; s++) {
        const one = farmWakeKw(curve, alone, u[s], dir[s]);
        if (!Object.is(one, together[s])) differ++;
        if (one > 0 && one < 30 * turbineKw(model, u[s])) wakes++;
      }
      t.equal(differ, 0, `${wake_model}, turbulence ${ti}: every step the same`);
      if (ti === 0.1) {
        const pairs = (w: typeof alone) => [...w.byDirection.values()].reduce((sum, g) => sum + g.upwind.length, 0);
        const left = pairs(alone) - pairs(batched);
        if (wake_model === 'simple') t.ok(left > 0, `simple: ${left} of ${pairs(alone)} pairs left out`);
        else t.equal(left, 0, 'park: no pair left out');
      }
      t.ok(wakes > steps / 4, `${wake_model}, turbulence ${ti}: ${wakes} steps with wake losses`);
    }
  }
});
