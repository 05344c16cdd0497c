// The measured resource through the engine's generation stage: wind from an SRW file (not the
// weather's wind columns), a laid-out farm, several real years cycling through the operating
// years, and P50/P90 from the spread of those years.
import { readFileSync } from 'node:fs';
import t from 'tap';
import { HOURS_PER_YEAR } from '../shared/calendar.ts';
import type { ScenarioInputs } from '../shared/schemas/inputs.ts';
import { srwHubSteps } from '../shared/weather/srw.hub.ts';
import { parseSrw } from '../shared/weather/srw.ts';
import { realYearSigma } from '../worker/engine/finance/uncertainty.ts';
import { calculate } from '../worker/engine/index.ts';
import { generationProfiles, profileYear } from '../worker/engine/plant/generation.ts';
import { prepareWind, windStepsYear } from '../worker/engine/wind/wind.ts';
import { type DeepPartial, resolvedInputs } from './fixtures/inputs.ts';

const reference = (name: string) => readFileSync(new URL(`./fixtures/reference/${name}`, import.meta.url), 'utf8');
const TMY = reference('phoenix_az_tmy2.csv');
const SRW = reference('az_eastern_rolling_hills.srw');
const CASE = JSON.parse(reference('ssc_wind_cases.json')).az_80x2500kw as {
  power_curve_ms: number[];
  power_curve_kw: number[];
  layout_x_m: number[];
  layout_y_m: number[];
};
const turbine = {
  hub_height_m: 80,
  rotor_diameter_m: 100,
  power_curve: CASE.power_curve_ms.map((v, i) => [v, CASE.power_curve_kw[i]] as [number, number]),
};
const layout = { x_m: CASE.layout_x_m.slice(0, 32), y_m: CASE.layout_y_m.slice(0, 32) };
const site = { latitude: 33.43, longitude: -112.02, elevation_m: 339, timezone_offset_hours: -7 };
/** GHI, DNI and DHI: the solar model reads DNI and DHI. */
const IRRADIANCE = [4, 5, 6];
const sum = (a: Float64Array) => a.reduce((s, x) => s + x, 0);

function scenario(overrides: DeepPartial<ScenarioInputs>) {
  return resolvedInputs({
    site,
    weather: { source: 'sam_csv', text: TMY },
    wind_resource: { source: 'srw', text: SRW },
    wind: { turbine, layout, wake_model: 'simple', losses_percent: 0 },
    ...overrides,
  } as DeepPartial<ScenarioInputs>);
}

/** A copy of the TMY file with columns (0-based) scaled. */
function scaled(columns: number[], factor: number): string {
  return TMY.trimEnd()
    .split('\n')
    .map((line, i) => {
      if (i < 3) return line;
      const cells = line.split(',');
      for (const c of columns) cells[c] = String(Number(cells[c]) * factor);
      return cells.join(',');
    })
    .join('\n');
}

t.test('wind from the SRW file, per MW of the laid-out farm; the weather’s wind columns unused', async (t) => {
  const inputs = scenario({});
  t.equal(inputs.wind.capacity_mw, 80, '32 turbines × 2.5 MW');
  const generation = generationProfiles(inputs, () => {}, 1);
  const wind = generation.wind;
  if (!wind) throw new Error('expected a wind profile');
  t.equal(wind.years, 1, 'one SRW year');
  const direct = new Float64Array(HOURS_PER_YEAR);
  const model = prepareWind(inputs);
  if (!model) throw new Error('expected a wind model');
  windStepsYear(model, srwHubSteps(parseSrw(SRW), 80, 0.14), direct);
  t.ok(Math.abs(sum(profileYear(wind, 0)) * 80 - sum(direct)) < 1e-6 * sum(direct), 'profile × 80 MW = the farm');
  const calmer = generationProfiles(scenario({ weather: { source: 'sam_csv', text: scaled([11], 0.5) } }), () => {}, 1);
  t.same(calmer.wind?.perMw, wind.perMw, 'halving the TMY wind speeds changes nothing');
  t.notSame(calmer.solar?.perMw, undefined);
  const park = generationProfiles(
    scenario({ wind: { turbine, layout, wake_model: 'park', losses_percent: 0 } }),
    () => {},
    1,
  );
  t.ok(sum(profileYear(park.wind, 0)) < sum(profileYear(wind, 0)), 'Park loses more than simple here, as in SSC');
});

t.test('several real years: operating year n uses year n mod k', async (t) => {
  const years = [TMY, scaled(IRRADIANCE, 0.8), scaled(IRRADIANCE, 1.1)].map((text) => ({
    source: 'sam_csv' as const,
    text,
    shear_exponent: 0.14,
  }));
  const inputs = scenario({ weather: { source: 'years', years }, wind: { capacity_mw: 0 }, wind_resource: undefined });
  const { solar } = generationProfiles(inputs, () => {}, 1);
  if (!solar) throw new Error('expected a solar profile');
  t.equal(solar.years, 3);
  const totals = [0, 1, 2, 3, 4].map((i) => sum(profileYear(solar, i)));
  t.equal(totals[3], totals[0], 'year 3 = year 0');
  t.equal(totals[4], totals[1], 'year 4 = year 1');
  t.ok(totals[1] < totals[0] && totals[0] < totals[2], 'less sun, more sun');
});

t.test('P50/P90 from the spread of the real years', async (t) => {
  // Three real years cycling over 25 operating years with a 0.5 %/yr decline: σ is the years' own.
  const real = [100, 90, 110];
  const delivered = Array.from({ length: 25 }, (_, i) => real[i % 3] * 0.995 ** i);
  const sigma = realYearSigma(delivered, 3);
  // The sample σ of 100, 90 and 110 is 10; delivered energy is 0.94 of it on average after degradation.
  const degraded = 10 * (delivered.reduce((s, _, i) => s + 0.995 ** i, 0) / 25);
  t.ok(Math.abs(sigma - degraded) < 0.1, `σ ${sigma.toFixed(3)} ≈ ${degraded.toFixed(3)}`);
  t.equal(realYearSigma(delivered, 1), 0, 'one year has no spread');

  const years = [TMY, scaled(IRRADIANCE, 0.8), scaled(IRRADIANCE, 1.1)].map((text) => ({
    source: 'sam_csv' as const,
    text,
    shear_exponent: 0.14,
  }));
  const base = { wind: { capacity_mw: 0 }, wind_resource: undefined, uncertainty: { solar: { model_percent: 0 } } };
  const three = calculate(scenario({ ...base, weather: { source: 'years', years } }));
  // Each real year alone, repeated 25 times: its mean delivered energy.
  const alone = years.map((y) => calculate(scenario({ ...base, weather: { source: 'years', years: [y] } })));
  const p50s = alone.map((r) => r.kpis.energy_p50_mwh);
  const m = p50s.reduce((a, b) => a + b, 0) / 3;
  const sampleSigma = Math.sqrt(p50s.reduce((a, b) => a + (b - m) ** 2, 0) / 2);
  const gap = three.kpis.energy_p50_mwh - three.kpis.energy_p90_mwh;
  t.ok(
    Math.abs(gap - 1.2816 * sampleSigma) < 0.03 * gap,
    `P50 − P90 = ${gap.toFixed(0)} MWh ≈ 1.2816 × the σ of the three years' means (${sampleSigma.toFixed(0)} MWh)`,
  );
  const oneGap = alone[0].kpis.energy_p50_mwh - alone[0].kpis.energy_p90_mwh;
  t.ok(Math.abs(oneGap - 1.2816 * 0.05 * p50s[0]) < 1e-6 * oneGap, 'one year: the 5 % of the uncertainty input');
});
