// Stages 1–2 of the engine: the weather of every weather year and, from it, the undegraded output
// of one MW of each technology (its generation profile). The expensive part of a calculation, and
// the part a sweep's variants share through the ProfileCache.
import { HOURS_PER_YEAR, YEARS } from '../../../shared/calendar.ts';
import type { ResolvedInputs } from '../../../shared/schemas/inputs.ts';
import type { WindRose } from '../../../shared/schemas/result.ts';
import type { WeatherYear } from '../../../shared/weather/types.ts';
import { prepareSolar, type SolarModel, solarYear } from '../solar/solar.ts';
import { prepareSolarV8, type SolarV8Model, solarV8Year } from '../solar/solar.v8.ts';
import { loadWeather, loadWindSteps, measuredYears, windResourceYears } from '../weather/weather.load.ts';
import { syntheticYear } from '../weather/weather.synthetic.ts';
import { RoseCounts, windRose } from '../wind/wind.rose.ts';
import { prepareWind, windStepsYear, windYear } from '../wind/wind.ts';
import { type GenerationProfile, type ProfileCache, type ProfileKeys, profileKeys } from './profiles.ts';

/** Called ~30–60 times with the stage just finished and the overall fraction done (0..1, never decreasing). */
export type ProgressReporter = (stage: string, fraction: number) => void;

/** Each technology's profile, or null when it is absent (capacity 0). */
export interface Generation {
  solar: GenerationProfile | null;
  wind: GenerationProfile | null;
  /** The wind resource's rose, when the wind profile was computed from it here (its steps at hand). */
  rose?: WindRose | null;
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
 * Solar (and wind without a wind_resource) covers the weather's years: 25 synthetic, k real, or
 * one measured year; wind from a wind_resource covers its own k files. Reports progress from 0 up
 * to `share`.
 */
export function generationProfiles(
  inputs: ResolvedInputs,
  report: ProgressReporter,
  share: number,
  cache?: ProfileCache,
  givenKeys?: ProfileKeys,
): Generation {
  const keys = cache ? (givenKeys ?? profileKeys(inputs)) : null;
  const cachedSolar = keys?.solar ? cache?.get(keys.solar) : undefined;
  const cachedWind = keys?.wind ? cache?.get(keys.wind) : undefined;
  const solarSupplied = inputs.solar.profile;
  const windSupplied = inputs.wind.profile;
  const solarModel =
    inputs.solar.capacity_mw_dc > 0 && !cachedSolar && !solarSupplied ? prepareSolarModel(inputs) : null;
  const windModel =
    inputs.wind.capacity_mw > 0 && !cachedWind && !windSupplied ? prepareWind(perUnit(inputs, 'wind')) : null;
  const synthetic = inputs.weather.source === 'synthetic';
  const weatherYears = synthetic ? YEARS : measuredYears(inputs);
  const windYears = windResourceYears(inputs);
  const fresh = (model: unknown, years: number): GenerationProfile | null =>
    model ? { years, perMw: new Float64Array(years * HOURS_PER_YEAR) } : null;
  const generation: Generation = {
    solar:
      cachedSolar ??
      (solarSupplied && inputs.solar.capacity_mw_dc > 0
        ? suppliedProfile(solarSupplied.hourly_mw, solarSupplied.for_capacity_mw_dc)
        : fresh(solarModel, weatherYears)),
    wind:
      cachedWind ??
      (windSupplied && inputs.wind.capacity_mw > 0
        ? suppliedProfile(windSupplied.hourly_mw, windSupplied.for_capacity_mw)
        : fresh(windModel, windYears ?? weatherYears)),
  };
  const windFromWeather = windModel && windYears === null ? windModel : null;
  const work = (solarModel || windFromWeather ? weatherYears : 0) + (windModel && windYears !== null ? windYears : 0);
  let done = 0;
  const step = () => report('generation', work > 0 ? (share * ++done) / work : share);

  if (solarModel || windFromWeather) {
    // Synthetic weather is drawn year by year into one reused buffer; measured years are read one by one.
    let weather: WeatherYear | undefined;
    for (let i = 0; i < weatherYears; i++) {
      weather = synthetic ? syntheticYear(inputs, i, weather) : loadWeather(inputs, i);
      if (solarModel) solarModelYear(solarModel, weather, profileYear(generation.solar, i));
      if (windFromWeather) windYear(windFromWeather, weather, profileYear(generation.wind, i));
      step();
    }
  }
  if (windModel && windYears !== null) {
    const rose = new RoseCounts();
    for (let i = 0; i < windYears; i++) {
      const steps = loadWindSteps(inputs, i);
      rose.add(steps);
      windStepsYear(windModel, steps, profileYear(generation.wind, i), i < windYears - 1);
      step();
    }
    generation.rose = rose.rose(inputs.wind.turbine.hub_height_m);
  }
  if (work === 0) step();
  if (cache && keys) {
    if (keys.solar && !cachedSolar && generation.solar) cache.set(keys.solar, generation.solar);
    if (keys.wind && !cachedWind && generation.wind) cache.set(keys.wind, generation.wind);
  }
  return generation;
}

/**
 * A profile from another tool as the engine's per-MW profile: each hour's MW ÷ the capacity it was
 * made for (an hour is 1 h, so MW = MWh); its years are used in turn, as real weather years are.
 */
function suppliedProfile(hourlyMw: readonly number[], forCapacityMw: number): GenerationProfile {
  const perMw = new Float64Array(hourlyMw.length);
  for (let i = 0; i < perMw.length; i++) perMw[i] = hourlyMw[i] / forCapacityMw;
  return { years: perMw.length / HOURS_PER_YEAR, perMw };
}

/**
 * The solar model the inputs choose, for one MW DC. PVWatts v8's layout (its rows, their length)
 * is estimated from the plant's real size, so its profile depends on that size (profiles.ts).
 */
function prepareSolarModel(inputs: ResolvedInputs): SolarModel | SolarV8Model | null {
  const unit = perUnit(inputs, 'solar');
  // Stored inputs without a model were written before v8 existed (sql/0009_solar_model.sql marks
  // them; an old web process during a rolling deploy could still write one): they are v5.
  if (inputs.solar.model !== 'pvwatts_v8') return prepareSolar(unit);
  return prepareSolarV8(unit, inputs.solar.capacity_mw_dc * 1000);
}

function solarModelYear(model: SolarModel | SolarV8Model, weather: WeatherYear, out: Float64Array): void {
  if ('kind' in model) solarV8Year(model, weather, out);
  else solarYear(model, weather, out);
}

/** The inputs of one MW of a technology: its profile is the per-unit output. */
function perUnit(inputs: ResolvedInputs, tech: 'solar' | 'wind'): ResolvedInputs {
  return tech === 'solar'
    ? { ...inputs, solar: { ...inputs.solar, capacity_mw_dc: 1 } }
    : { ...inputs, wind: { ...inputs.wind, capacity_mw: 1 } };
}

/** The wind rose of `inputs.wind_resource` at hub height, or null (wind/wind.rose.ts). */
export function resourceRose(inputs: ResolvedInputs): WindRose | null {
  const years = windResourceYears(inputs);
  return windRose(inputs.wind.turbine.hub_height_m, years, (i) => loadWindSteps(inputs, i));
}
