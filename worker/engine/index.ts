// The calculation: 25 years of hourly weather, solar and wind output,
// degradation, the export limit and revenue, then the financial statements.
// Pure: no clock, no I/O, no randomness except the weather's seed.
import { HOURS_PER_YEAR, YEARS } from '../../shared/calendar.ts';
import type { HourlyRecord, HourlySeriesName } from '../../shared/hourly.series.ts';
import type { ResolvedInputs } from '../../shared/schemas/inputs.ts';
import type { ScenarioResult } from '../../shared/schemas/result.ts';
import { CalculationInputError } from './engine.error.ts';
import { solvePpaPrice } from './finance/finance.solve.ts';
import { financeModel } from './finance/finance.ts';
import { loadKpis } from './load/load.ts';
import { prepareMarket } from './market/market.ts';
import { generationProfiles, type ProgressReporter } from './plant/generation.ts';
import { curtailmentPercent, type HourlyBuffers, operateYears, plantSeries, type YearReporter } from './plant/plant.ts';
import type { ProfileCache, ProfileKeys } from './plant/profiles.ts';
import { storageKpis } from './storage/storage.plant.ts';
import { windRose } from './wind/wind.rose.ts';

export { CalculationInputError } from './engine.error.ts';
export type { ProgressReporter } from './plant/generation.ts';
export type { HourlyBuffers, YearReporter } from './plant/plant.ts';
export type { GenerationProfile, ProfileCache } from './plant/profiles.ts';
export { profileKeys } from './plant/profiles.ts';
export { loadReserveSolver } from './storage/storage.reserves.ts';

/** The statements without the scenario id; hourly series (shared/hourly.series.ts) as year-major 25 × 8,760 arrays of MWh. */
export type EngineResult = Omit<ScenarioResult, 'scenario_id' | HourlySeriesName> & HourlyRecord<Float64Array>;

export interface CalculateOptions {
  onProgress?: ProgressReporter;
  onYear?: YearReporter;
  /** Generation profiles kept between calculations (a sweep's variants share them). */
  cache?: ProfileCache;
  /**
   * The cache's keys, when the caller made them (from the stored inputs, whose library references
   * name a file by its id: cheaper to hash than the file's text). Default: profileKeys(inputs).
   */
  profileKeys?: ProfileKeys;
  /**
   * Where to write the hourly results (the result's solar_hourly and wind_hourly are then these
   * arrays): a caller that keeps no result's arrays passes the same two every time.
   */
  hourly?: HourlyBuffers;
}

// Shares of the progress bar: generation is most of the work; the years and finance are quick
// but reported on their own.
const GENERATION_SHARE = 0.8;
const OPERATION_SHARE = 0.97;

/**
 * The engine's stages: (1–2) weather and per-MW generation profiles, (3–4) each operating year's
 * scaling, degradation, export limit and revenue, (5) finance.
 */
export function calculate(inputs: ResolvedInputs, options: CalculateOptions = {}): EngineResult {
  const report = options.onProgress ?? (() => {});
  checkInputs(inputs);
  const market = prepareMarket(inputs);
  const generation = generationProfiles(inputs, report, GENERATION_SHARE, options.cache, options.profileKeys);
  const plant = operateYears(
    inputs,
    generation,
    market,
    { report, from: GENERATION_SHARE, to: OPERATION_SHARE },
    options.onYear,
    options.hourly,
  );
  const storage = plant.storage
    ? { dischargeMwh: plant.storage.discharge, replacements: plant.storage.run.replacements }
    : undefined;
  const l = plant.load;
  const load = l && { deliveredMwh: l.delivered, gridEnergyCost: l.gridEnergyCost, penalty: l.penalty };
  const finance =
    inputs.market.ppa_price_per_mwh === 'solve'
      ? solvePpaPrice(inputs, market, plant.marketYears, { ...plant.energy, storage })
      : financeModel(inputs, { revenue: plant.revenue, ...plant.energy, storage, ...(load ? { load } : {}) });
  if (plant.storage && plant.storageContext) {
    const { battery, curtailedWithout, producedWithout } = plant.storageContext;
    const ppaYear1 = finance.kpis.solved_ppa_price_per_mwh ?? market.ppaPrice;
    Object.assign(
      finance.kpis,
      storageKpis(battery, market, plant.storage, curtailedWithout, producedWithout, ppaYear1),
    );
  } else {
    finance.kpis.curtailment_percent = curtailmentPercent(plant);
  }
  if (plant.capacity) finance.kpis.capacity_credit_percent = plant.capacity.percent;
  if (l) {
    Object.assign(finance.kpis, loadKpis(inputs, l));
    // Its revenue with a load is not the PPA-priced change of the export that storage_revenue measures.
    delete finance.kpis.storage_revenue;
  }
  checkFinite(finance);
  const rose = windRose(inputs);
  report('finance', 1);
  return {
    currency: inputs.market.currency,
    energy_unit: 'MWh',
    start_year: inputs.start_year,
    years: YEARS,
    hours_per_year: HOURS_PER_YEAR,
    ...plantSeries(plant),
    annual: plant.annual,
    ...(rose ? { wind_rose: rose } : {}),
    ...finance,
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

function checkFinite(finance: ReturnType<typeof financeModel>): void {
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
