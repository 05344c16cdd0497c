// Stages 3–4 of the engine, year by year: each technology's profile × (capacity × degradation),
// the export limit, then the year's revenue. Cheap (a few passes over 8,760 hours a year), so a
// variant that reuses cached profiles costs milliseconds.
import { HOURS_PER_YEAR, YEARS } from '../../shared/calendar.ts';
import type { ResolvedInputs } from '../../shared/schemas/inputs.ts';
import type { ScenarioResult } from '../../shared/schemas/result.ts';
import { CalculationInputError } from './engine.error.ts';
import { type Generation, type ProgressReporter, profileYear } from './generation.ts';
import { degradationFactor, hybridYear } from './hybrid.ts';
import { emptyMarketYear, type MarketModel, type MarketYear, marketYear } from './market.ts';

/** Called once per year, in order, with that year's final delivered MWh (views into the result's arrays). */
export type YearReporter = (yearIndex: number, solar: Float64Array, wind: Float64Array) => void;

/** What finance needs of the operating years, and the hourly and annual results. */
export interface PlantYears {
  solarHourly: Float64Array;
  windHourly: Float64Array;
  annual: ScenarioResult['annual'];
  revenue: ScenarioResult['income_statement'][number]['revenue'][];
  /** Stage 4's sums of each year: a solved PPA price re-runs only the market and finance from them. */
  marketYears: MarketYear[];
  energy: { deliveredMwh: Float64Array; solarMwh: Float64Array; windMwh: Float64Array };
}

/** Arrays of 25 × 8,760 that the hourly results are written into (every hour is written). */
export interface HourlyBuffers {
  solar: Float64Array;
  wind: Float64Array;
}

/**
 * The 25 operating years; progress from `from` up to `to`. `hourly`: where to write the hourly
 * results, for a caller that reuses two arrays instead of 3.5 MB of fresh ones a calculation.
 */
export function operateYears(
  inputs: ResolvedInputs,
  generation: Generation,
  market: MarketModel,
  progress: { report: ProgressReporter; from: number; to: number },
  onYear?: YearReporter,
  hourly?: HourlyBuffers,
): PlantYears {
  const limitMw = inputs.grid.export_limit_mw ?? Number.POSITIVE_INFINITY;
  const { capacity_mw_dc: solarMw, degradation_percent_per_year: solarDegradation } = inputs.solar;
  const { capacity_mw: windMw, degradation_percent_per_year: windDegradation } = inputs.wind;
  const out: PlantYears = {
    solarHourly: hourly?.solar ?? new Float64Array(YEARS * HOURS_PER_YEAR),
    windHourly: hourly?.wind ?? new Float64Array(YEARS * HOURS_PER_YEAR),
    annual: [],
    revenue: [],
    marketYears: [],
    energy: {
      deliveredMwh: new Float64Array(YEARS),
      solarMwh: new Float64Array(YEARS),
      windMwh: new Float64Array(YEARS),
    },
  };
  const marketOut = emptyMarketYear();
  const perYear = (progress.to - progress.from) / YEARS;
  for (let i = 0; i < YEARS; i++) {
    const year = i + 1;
    const solarOut = out.solarHourly.subarray(i * HOURS_PER_YEAR, year * HOURS_PER_YEAR);
    const windOut = out.windHourly.subarray(i * HOURS_PER_YEAR, year * HOURS_PER_YEAR);
    const curtailed = hybridYear(
      profileYear(generation.solar, i),
      profileYear(generation.wind, i),
      solarMw * degradationFactor(solarDegradation, year),
      windMw * degradationFactor(windDegradation, year),
      limitMw,
      solarOut,
      windOut,
    );
    const m = marketYear(market, year, solarOut, windOut, marketOut);
    // NaN and Infinity propagate into the sums, so one check covers every hour.
    if (!Number.isFinite(m.solarMwh + m.windMwh + curtailed + m.revenue.total)) {
      throw new CalculationInputError(
        'non_finite_result',
        `year ${year}: the hourly generation or revenue is not a finite number`,
      );
    }
    onYear?.(i, solarOut, windOut);
    out.revenue.push({ ...m.revenue });
    out.marketYears.push({ ...m, revenue: { ...m.revenue } });
    out.energy.deliveredMwh[i] = m.solarMwh + m.windMwh;
    out.energy.solarMwh[i] = m.solarMwh;
    out.energy.windMwh[i] = m.windMwh;
    out.annual.push(annualRow(inputs, year, m, curtailed));
    progress.report('market', progress.from + (i + 1) * perYear);
  }
  return out;
}

function annualRow(inputs: ResolvedInputs, year: number, m: MarketYear, curtailed: number) {
  const solarCapacityMwh = inputs.solar.capacity_mw_dc * HOURS_PER_YEAR;
  const windCapacityMwh = inputs.wind.capacity_mw * HOURS_PER_YEAR;
  return {
    year,
    solar_mwh: m.solarMwh,
    wind_mwh: m.windMwh,
    curtailed_mwh: curtailed,
    export_mwh: m.solarMwh + m.windMwh,
    solar_capacity_factor: solarCapacityMwh > 0 ? m.solarMwh / solarCapacityMwh : null,
    wind_capacity_factor: windCapacityMwh > 0 ? m.windMwh / windCapacityMwh : null,
  };
}
