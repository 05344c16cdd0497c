// The calculation: 25 years of hourly weather, solar and wind output,
// degradation, the export limit and revenue, then the financial statements.
// Pure: no clock, no I/O, no randomness except the weather's seed.
import type { ResolvedInputs } from '../../shared/schemas/inputs.ts';
import type { ScenarioResult } from '../../shared/schemas/result.ts';
import { parseSamCsv, weatherYearFromSamCsv, weatherYearFromSupplied } from '../../shared/weather/samcsv.ts';
import type { WeatherYear } from '../../shared/weather/types.ts';
import { CalculationInputError } from './engine.error.ts';
import { solvePpaPrice } from './finance.solve.ts';
import { financeModel } from './finance.ts';
import { degradationFactor, hybridYear } from './hybrid.ts';
import { emptyMarketYear, type MarketYear, marketYear, prepareMarket } from './market.ts';
import { type GenerationProfile, type ProfileCache, profileKeys } from './profiles.ts';
import { prepareSolar, solarYear } from './solar.ts';
import { syntheticYear } from './weather.synthetic.ts';
import { prepareWind, windYear } from './wind.ts';

export { CalculationInputError } from './engine.error.ts';
export type { GenerationProfile, ProfileCache } from './profiles.ts';
export { profileKeys } from './profiles.ts';

// As in the result schema; the engine imports only types from the shared schemas.
const YEARS = 25;
const HOURS_PER_YEAR = 8760;
// The output of an absent technology.
const ZERO_YEAR = new Float64Array(HOURS_PER_YEAR);

/** The statements without the scenario id; hourly series as year-major 25 × 8,760 arrays of delivered MWh. */
export type EngineResult = Omit<ScenarioResult, 'scenario_id' | 'solar_hourly' | 'wind_hourly'> & {
  solar_hourly: Float64Array;
  wind_hourly: Float64Array;
};

/** Called ~30–60 times with the stage just finished and the overall fraction done (0..1, never decreasing). */
export type ProgressReporter = (stage: string, fraction: number) => void;

/** Called once per year, in order, with that year's final delivered MWh (views into the result's arrays). */
export type YearReporter = (yearIndex: number, solar: Float64Array, wind: Float64Array) => void;

// Share of the work before finance; finance is quick but reported on its own.
const GENERATION_SHARE = 0.97;

export function calculate(
  inputs: ResolvedInputs,
  onProgress?: ProgressReporter,
  onYear?: YearReporter,
  cache?: ProfileCache,
): EngineResult {
  const report = onProgress ?? (() => {});
  checkInputs(inputs);
  const market = prepareMarket(inputs);
  const limitMw = inputs.grid.export_limit_mw ?? Number.POSITIVE_INFINITY;
  const solarMw = inputs.solar.capacity_mw_dc;
  const windMw = inputs.wind.capacity_mw;

  // Stages 1–2, weather and per-unit generation: taken from the cache when it has them.
  const synthetic = inputs.weather.source === 'synthetic';
  const weatherYears = synthetic ? YEARS : 1;
  const keys = cache ? profileKeys(inputs) : null;
  const cachedSolar = keys?.solar ? cache?.get(keys.solar) : undefined;
  const cachedWind = keys?.wind ? cache?.get(keys.wind) : undefined;
  const solarModel = solarMw > 0 && !cachedSolar ? prepareSolar(perUnit(inputs, 'solar')) : null;
  const windModel = windMw > 0 && !cachedWind ? prepareWind(perUnit(inputs, 'wind')) : null;
  const solarProfile: GenerationProfile | null =
    cachedSolar ??
    (solarModel ? { years: weatherYears, perMw: new Float64Array(weatherYears * HOURS_PER_YEAR) } : null);
  const windProfile: GenerationProfile | null =
    cachedWind ?? (windModel ? { years: weatherYears, perMw: new Float64Array(weatherYears * HOURS_PER_YEAR) } : null);
  const solarHourly = new Float64Array(YEARS * HOURS_PER_YEAR);
  const windHourly = new Float64Array(YEARS * HOURS_PER_YEAR);
  const mustGenerate = solarModel !== null || windModel !== null;
  // Weather year i's hours inside a profile.
  const slice = (profile: GenerationProfile | null, i: number) => {
    if (!profile) return ZERO_YEAR;
    const y = profile.years === 1 ? 0 : i;
    return profile.perMw.subarray(y * HOURS_PER_YEAR, (y + 1) * HOURS_PER_YEAR);
  };
  const generate = (weather: WeatherYear, i: number) => {
    if (solarModel) solarYear(solarModel, weather, slice(solarProfile, i));
    if (windModel) windYear(windModel, weather, slice(windProfile, i));
  };

  // A supplied year is the same every year: its weather and output are computed once.
  let weather: WeatherYear | undefined;
  let yearStart = 0;
  if (!synthetic) {
    if (mustGenerate) {
      weather = loadWeather(inputs);
      report('weather', 0.1);
      generate(weather, 0);
    }
    report('generation', 0.3);
    yearStart = 0.3;
  }

  const marketOut = emptyMarketYear();
  // Stage 4's sums of each year: a solved PPA price re-runs only the market and finance from them.
  const marketYears: MarketYear[] = [];
  const revenue: ScenarioResult['income_statement'][number]['revenue'][] = [];
  const delivered = new Float64Array(YEARS);
  const solarDelivered = new Float64Array(YEARS);
  const windDelivered = new Float64Array(YEARS);
  const annual: ScenarioResult['annual'] = [];
  const solarCapacityMwh = inputs.solar.capacity_mw_dc * HOURS_PER_YEAR;
  const windCapacityMwh = inputs.wind.capacity_mw * HOURS_PER_YEAR;
  const perYear = (GENERATION_SHARE - yearStart) / YEARS;

  for (let i = 0; i < YEARS; i++) {
    const year = i + 1;
    const done = yearStart + i * perYear;
    if (synthetic && mustGenerate) {
      weather = syntheticYear(inputs, i, weather);
      report('weather', done + 0.4 * perYear);
      generate(weather, i);
    }
    const solarOut = solarHourly.subarray(i * HOURS_PER_YEAR, year * HOURS_PER_YEAR);
    const windOut = windHourly.subarray(i * HOURS_PER_YEAR, year * HOURS_PER_YEAR);
    // Stage 3: capacity × degradation, then the export limit.
    const curtailed = hybridYear(
      slice(solarProfile, i),
      slice(windProfile, i),
      solarMw * degradationFactor(inputs.solar.degradation_percent_per_year, year),
      windMw * degradationFactor(inputs.wind.degradation_percent_per_year, year),
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
    revenue.push({ ...m.revenue });
    marketYears.push({ ...m, revenue: { ...m.revenue } });
    delivered[i] = m.solarMwh + m.windMwh;
    solarDelivered[i] = m.solarMwh;
    windDelivered[i] = m.windMwh;
    annual.push({
      year,
      solar_mwh: m.solarMwh,
      wind_mwh: m.windMwh,
      curtailed_mwh: curtailed,
      export_mwh: m.solarMwh + m.windMwh,
      solar_capacity_factor: solarCapacityMwh > 0 ? m.solarMwh / solarCapacityMwh : null,
      wind_capacity_factor: windCapacityMwh > 0 ? m.windMwh / windCapacityMwh : null,
    });
    report(synthetic ? 'generation' : 'market', done + perYear);
  }

  if (cache && keys) {
    if (keys.solar && solarModel && solarProfile) cache.set(keys.solar, solarProfile);
    if (keys.wind && windModel && windProfile) cache.set(keys.wind, windProfile);
  }
  const energy = { deliveredMwh: delivered, solarMwh: solarDelivered, windMwh: windDelivered };
  const finance =
    inputs.market.ppa_price_per_mwh === 'solve'
      ? solvePpaPrice(inputs, market, marketYears, energy)
      : financeModel(inputs, { revenue, ...energy });
  checkFinite(finance);
  report('finance', 1);
  return {
    currency: inputs.market.currency,
    energy_unit: 'MWh',
    start_year: inputs.start_year,
    years: YEARS,
    hours_per_year: HOURS_PER_YEAR,
    solar_hourly: solarHourly,
    wind_hourly: windHourly,
    annual,
    ...finance,
  };
}

/** The one year of a supplied or SAM CSV weather source; a file that cannot be read is the scenario's error. */
function loadWeather(inputs: ResolvedInputs): WeatherYear {
  const w = inputs.weather;
  try {
    if (w.source === 'supplied') return weatherYearFromSupplied(w, inputs.site.elevation_m);
    if (w.source === 'sam_csv') {
      return weatherYearFromSamCsv(parseSamCsv(w.text), {
        windHeightM: w.wind_height_m,
        siteElevationM: inputs.site.elevation_m,
      });
    }
    throw new CalculationInputError('invalid_weather', `weather source ${w.source} is not a single supplied year`);
  } catch (err) {
    if (err instanceof CalculationInputError) throw err;
    throw new CalculationInputError('invalid_weather', err instanceof Error ? err.message : String(err));
  }
}

/** The inputs of one MW of a technology: its profile is the per-unit output. */
function perUnit(inputs: ResolvedInputs, tech: 'solar' | 'wind'): ResolvedInputs {
  return tech === 'solar'
    ? { ...inputs, solar: { ...inputs.solar, capacity_mw_dc: 1 } }
    : { ...inputs, wind: { ...inputs.wind, capacity_mw: 1 } };
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
