// #20: the measured resource. Reading a ~1 MB SRW file (eastern Arizona, 4 heights) and preparing
// its hub-height hours, and a ~1 MB EPW file (the Phoenix TMY2 year written as EPW) and preparing
// its weather year, each beside the SAM CSV TMY2 file (0.47 MB) read the same way in the same run;
// and the engine on that site with 80 turbines laid out as SSC's AZ farm, simple wake model, beside
// the same scenario with the flat (constant) wake percentage: the wake model's cost over 25 years.
import { readFileSync } from 'node:fs';
import { parseEpw, weatherYearFromEpw } from '../shared/weather/epw.ts';
import { parseSamCsv, weatherYearFromSamCsv } from '../shared/weather/samcsv.ts';
import { srwHubSteps } from '../shared/weather/srw.hub.ts';
import { parseSrw } from '../shared/weather/srw.ts';
import { resolvedInputs } from '../test/fixtures/inputs.ts';
import { epw } from '../test/fixtures/weather.writers.ts';
import { calculate } from '../worker/engine/index.ts';
import { median } from './stats.ts';

export interface ResourceFigures {
  srwMs: number;
  srwMb: number;
  epwMs: number;
  epwMb: number;
  samCsvMs: number;
  samCsvMb: number;
  constantWakeMs: number;
  simpleWakeMs: number;
  turbines: number;
}

const reference = (name: string) =>
  readFileSync(new URL(`../test/fixtures/reference/${name}`, import.meta.url), 'utf8');

function timed(runs: number, warmup: number, fn: () => unknown): number {
  const times: number[] = [];
  for (let i = 0; i < warmup + runs; i++) {
    const t0 = performance.now();
    fn();
    if (i >= warmup) times.push(performance.now() - t0);
  }
  return median(times);
}

/** #20's AZ farm (SSC's 80 turbines, 100 m rotors at 80 m) on the eastern-Arizona SRW file and the Phoenix year, with the given wake model. */
export function azFarmScenario(wake_model: 'constant' | 'simple' | 'park') {
  const az = JSON.parse(reference('ssc_wind_cases.json')).az_80x2500kw;
  return resolvedInputs({
    site: { latitude: 33.43, longitude: -112.02, elevation_m: 339, timezone_offset_hours: -7 },
    weather: { source: 'sam_csv', text: reference('phoenix_az_tmy2.csv') },
    wind_resource: { source: 'srw', text: reference('az_eastern_rolling_hills.srw') },
    wind: {
      wake_model,
      layout: { x_m: az.layout_x_m, y_m: az.layout_y_m },
      turbine: {
        hub_height_m: 80,
        rotor_diameter_m: 100,
        power_curve: az.power_curve_ms.map((v: number, i: number) => [v, az.power_curve_kw[i]]),
      },
    },
  });
}

export function measureResource(warmup: number, runs: number): ResourceFigures {
  const tmy = reference('phoenix_az_tmy2.csv');
  const srw = reference('az_eastern_rolling_hills.srw');
  const epwText = epw(parseSamCsv(tmy), false);
  const scenario = azFarmScenario;
  const constant = scenario('constant');
  const simple = scenario('simple');
  const mb = (s: string) => Buffer.byteLength(s) / 1e6;
  return {
    srwMs: timed(runs, warmup, () => srwHubSteps(parseSrw(srw), 80, 0.14)),
    srwMb: mb(srw),
    epwMs: timed(runs, warmup, () => weatherYearFromEpw(parseEpw(epwText))),
    epwMb: mb(epwText),
    samCsvMs: timed(runs, warmup, () => weatherYearFromSamCsv(parseSamCsv(tmy))),
    samCsvMb: mb(tmy),
    constantWakeMs: timed(runs, Math.min(warmup, 2), () => calculate(constant)),
    simpleWakeMs: timed(runs, Math.min(warmup, 2), () => calculate(simple)),
    turbines: simple.wind.layout?.x_m.length ?? 0,
  };
}
