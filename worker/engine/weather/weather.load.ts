// The measured resource of a scenario, year by year: the weather of a supplied, SAM CSV, EPW or
// several-real-years source, and the hub-height wind of a wind resource (SRW) file. A file that
// cannot be read (the validator reads it first, so this is a changed parser) is the scenario's error.
import type { ResolvedInputs } from '../../../shared/schemas/inputs.ts';
import { parseEpw, weatherYearFromEpw } from '../../../shared/weather/epw.ts';
import { parseSamCsv, weatherYearFromSamCsv, weatherYearFromSupplied } from '../../../shared/weather/samcsv.ts';
import { srwHubSteps } from '../../../shared/weather/srw.hub.ts';
import { parseSrw } from '../../../shared/weather/srw.ts';
import type { WeatherYear, WindSteps } from '../../../shared/weather/types.ts';
import { CalculationInputError } from '../engine.error.ts';

type FileWeather = Exclude<ResolvedInputs['weather'], { source: 'synthetic' } | { source: 'years' }>;

/** Weather years of the source: 1 for a single measured year, k for k real years (synthetic: see generation.ts). */
export function measuredYears(inputs: ResolvedInputs): number {
  return inputs.weather.source === 'years' ? inputs.weather.years.length : 1;
}

/** Wind resource years: the SRW files', or null when the wind comes from the weather. */
export function windResourceYears(inputs: ResolvedInputs): number | null {
  const r = inputs.wind_resource;
  if (!r) return null;
  return r.source === 'years' ? r.years.length : 1;
}

function asCalculationError(err: unknown, code: string): CalculationInputError {
  if (err instanceof CalculationInputError) return err;
  return new CalculationInputError(code, err instanceof Error ? err.message : String(err));
}

/**
 * Files parsed in this thread, by their text: a library file (the same text for every variant
 * that references it) or the same inline file of many scenarios is parsed once. Bounded by bytes
 * (a parse is about twice its text's size), oldest use dropped first; what it keeps is never
 * written to (the readers below copy what they change).
 */
const PARSED_LIMIT_BYTES = 24 * 2 ** 20;
const parsed = new Map<string, unknown>();
let parsedBytes = 0;

function parseOnce<T>(text: string, parse: (text: string) => T): T {
  const found = parsed.get(text);
  if (found !== undefined) {
    parsed.delete(text);
    parsed.set(text, found);
    return found as T;
  }
  const value = parse(text);
  const size = 2 * text.length;
  if (size > PARSED_LIMIT_BYTES) return value;
  while (parsedBytes + size > PARSED_LIMIT_BYTES) {
    const oldest = parsed.keys().next().value as string;
    parsed.delete(oldest);
    parsedBytes -= 2 * oldest.length;
  }
  parsed.set(text, value);
  parsedBytes += size;
  return value;
}

function readWeather(w: FileWeather, elevationM: number): WeatherYear {
  if (w.source === 'supplied') return weatherYearFromSupplied(w, elevationM);
  if (w.source === 'epw') return weatherYearFromEpw(parseOnce(w.text, parseEpw));
  return weatherYearFromSamCsv(parseOnce(w.text, parseSamCsv), {
    windHeightM: w.wind_height_m,
    siteElevationM: elevationM,
  });
}

/** Weather year `i` of a measured source (a single year serves every i). */
export function loadWeather(inputs: ResolvedInputs, i: number): WeatherYear {
  const w = inputs.weather;
  try {
    if (w.source === 'synthetic') throw new CalculationInputError('invalid_weather', 'synthetic weather is not loaded');
    const year = w.source === 'years' ? w.years[i % w.years.length] : w;
    return readWeather(year, inputs.site.elevation_m);
  } catch (err) {
    throw asCalculationError(err, 'invalid_weather');
  }
}

/** The hub-height wind of wind resource year `i`. */
export function loadWindSteps(inputs: ResolvedInputs, i: number): WindSteps {
  const r = inputs.wind_resource;
  try {
    if (!r) throw new CalculationInputError('invalid_wind_resource', 'no wind resource');
    const text = r.source === 'years' ? r.years[i % r.years.length].text : r.text;
    return srwHubSteps(parseOnce(text, parseSrw), inputs.wind.turbine.hub_height_m, r.shear_exponent);
  } catch (err) {
    throw asCalculationError(err, 'invalid_wind_resource');
  }
}
