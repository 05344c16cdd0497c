// The calculation: 25 years of hourly weather, solar and wind output,
// degradation, the export limit and revenue, then the financial statements.
// Pure: no clock, no I/O, no randomness except the weather's seed.
import { HOURS_PER_YEAR, YEARS } from '../../shared/calendar.ts';
import type { HourlyRecord, HourlySeriesName } from '../../shared/hourly.series.ts';
import type { ResolvedInputs } from '../../shared/schemas/inputs.ts';
import type { ScenarioResult } from '../../shared/schemas/result.ts';
import { CalculationInputError } from './engine.error.ts';
import { plantSeries } from './plant/plant.ts';
import { type CalculateOptions, EngineRun, STAGES } from './plant/stages.ts';

export { CalculationInputError } from './engine.error.ts';
export type { ProgressReporter } from './plant/generation.ts';
export { PlantMemo } from './plant/plant.memo.ts';
export { loadReserveSolver } from './plant/plant.storage.ts';
export type { HourlyBuffers, YearReporter } from './plant/plant.ts';
export type { GenerationProfile, ProfileCache } from './plant/profiles.ts';
export { profileKeys } from './plant/profiles.ts';
export type { CalculateOptions } from './plant/stages.ts';

/** The statements without the scenario id; hourly series (shared/hourly.series.ts) as year-major 25 × 8,760 arrays of MWh. */
export type EngineResult = Omit<ScenarioResult, 'scenario_id' | HourlySeriesName> & HourlyRecord<Float64Array>;

/**
 * The engine's stages (plant/stages.ts `STAGES`, in order): every stage's prepare, then every
 * run (weather and generation profiles, the hybrid plant, the battery, the load, each year's
 * revenue, finance, the wind rose), then every stage's KPIs; then the result, failed if it is not
 * finite.
 */
export function calculate(inputs: ResolvedInputs, options: CalculateOptions = {}): EngineResult {
  checkInputs(inputs);
  const run = new EngineRun(inputs, options);
  for (const stage of STAGES) stage.prepare?.(run);
  for (const stage of STAGES) stage.run?.(run);
  for (const stage of STAGES) stage.kpis?.(run);
  checkFinite(run.finance);
  run.report('finance', 1);
  return {
    currency: inputs.market.currency,
    energy_unit: 'MWh',
    start_year: inputs.start_year,
    years: YEARS,
    hours_per_year: HOURS_PER_YEAR,
    ...plantSeries(run.plant),
    annual: run.plant.annual,
    ...(run.rose ? { wind_rose: run.rose } : {}),
    ...run.finance,
  };
}

/** What the schema cannot say and validation may not have seen (stored inputs are trusted, not re-validated). */
function checkInputs(inputs: ResolvedInputs): void {
  const curve = inputs.wind.turbine.power_curve;
  if (curve && inputs.wind.capacity_mw > 0) {
    for (let i = 1; i < curve.length; i++) {
      if (!(curve[i][0] > curve[i - 1][0])) {
        throw new CalculationInputError(
          'invalid_power_curve',
          `the power curve's wind speeds must increase strictly: ${curve[i][0]} m/s follows ${curve[i - 1][0]} m/s`,
        );
      }
    }
    if (curve.every(([, kw]) => kw <= 0)) {
      throw new CalculationInputError('invalid_power_curve', 'the power curve never produces power');
    }
  }
}

function checkFinite(finance: EngineRun['finance']): void {
  // The statements hold thousands of numbers: they are walked without building a path, which is
  // found (by the slower walk) only when one is not finite.
  if (allFinite(finance)) return;
  const bad = (value: unknown, path: string): string | null => {
    if (typeof value === 'number') return Number.isFinite(value) ? null : path;
    if (value && typeof value === 'object') {
      for (const [k, v] of Object.entries(value)) {
        const found = bad(v, `${path}.${k}`);
        if (found) return found;
      }
    }
    return null;
  };
  const path = bad(finance, 'statements');
  if (path) throw new CalculationInputError('non_finite_result', `${path} is not a finite number`);
}

/** Whether every number in `value` (objects and arrays, walked as Object.entries would) is finite. */
function allFinite(value: unknown): boolean {
  if (typeof value === 'number') return Number.isFinite(value);
  if (!value || typeof value !== 'object') return true;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) if (!allFinite(value[i])) return false;
    return true;
  }
  for (const k of Object.keys(value)) if (!allFinite((value as Record<string, unknown>)[k])) return false;
  return true;
}
