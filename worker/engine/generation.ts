// Stages 1–2 of the engine: the weather of every weather year and, from it, the undegraded output
// of one MW of each technology (its generation profile). The expensive part of a calculation, and
// the part a sweep's variants share through the ProfileCache.
import { HOURS_PER_YEAR, YEARS } from '../../shared/calendar.ts';
import type { ResolvedInputs } from '../../shared/schemas/inputs.ts';
import { parseSamCsv, weatherYearFromSamCsv, weatherYearFromSupplied } from '../../shared/weather/samcsv.ts';
import type { WeatherYear } from '../../shared/weather/types.ts';
import { CalculationInputError } from './engine.error.ts';
import { type GenerationProfile, type ProfileCache, profileKeys } from './profiles.ts';
import { prepareSolar, solarYear } from './solar.ts';
import { syntheticYear } from './weather.synthetic.ts';
import { prepareWind, windYear } from './wind.ts';

/** Called ~30–60 times with the stage just finished and the overall fraction done (0..1, never decreasing). */
export type ProgressReporter = (stage: string, fraction: number) => void;

/** Each technology's profile, or null when it is absent (capacity 0). */
export interface Generation {
  solar: GenerationProfile | null;
  wind: GenerationProfile | null;
}

// The output of an absent technology.
const ZERO_YEAR = new Float64Array(HOURS_PER_YEAR);

/** Operating year i's hours of a profile (a profile of one weather year serves every year). */
export function profileYear(profile: GenerationProfile | null, i: number): Float64Array {
  if (!profile) return ZERO_YEAR;
  const y = i % profile.years;
  return profile.perMw.subarray(y * HOURS_PER_YEAR, (y + 1) * HOURS_PER_YEAR);
}

/**
 * The profiles of `inputs`, from `cache` when it has them; the ones computed here are left in it.
 * Reports progress from 0 up to `share`.
 */
export function generationProfiles(
  inputs: ResolvedInputs,
  report: ProgressReporter,
  share: number,
  cache?: ProfileCache,
): Generation {
  const keys = cache ? profileKeys(inputs) : null;
  const cachedSolar = keys?.solar ? cache?.get(keys.solar) : undefined;
  const cachedWind = keys?.wind ? cache?.get(keys.wind) : undefined;
  const solarModel = inputs.solar.capacity_mw_dc > 0 && !cachedSolar ? prepareSolar(perUnit(inputs, 'solar')) : null;
  const windModel = inputs.wind.capacity_mw > 0 && !cachedWind ? prepareWind(perUnit(inputs, 'wind')) : null;
  const synthetic = inputs.weather.source === 'synthetic';
  const weatherYears = synthetic ? YEARS : 1;
  const fresh = (model: unknown): GenerationProfile | null =>
    model ? { years: weatherYears, perMw: new Float64Array(weatherYears * HOURS_PER_YEAR) } : null;
  const generation: Generation = { solar: cachedSolar ?? fresh(solarModel), wind: cachedWind ?? fresh(windModel) };
  if (!solarModel && !windModel) {
    report('generation', share);
    return generation;
  }

  // Synthetic weather is drawn year by year into one reused buffer; a supplied year is read once.
  let weather: WeatherYear | undefined;
  for (let i = 0; i < weatherYears; i++) {
    weather = synthetic ? syntheticYear(inputs, i, weather) : loadWeather(inputs);
    if (solarModel) solarYear(solarModel, weather, profileYear(generation.solar, i));
    if (windModel) windYear(windModel, weather, profileYear(generation.wind, i));
    report('generation', (share * (i + 1)) / weatherYears);
  }
  if (cache && keys) {
    if (keys.solar && solarModel && generation.solar) cache.set(keys.solar, generation.solar);
    if (keys.wind && windModel && generation.wind) cache.set(keys.wind, generation.wind);
  }
  return generation;
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
