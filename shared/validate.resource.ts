// The checks of a scenario's measured resource and wind farm layout that no schema can say: each
// weather or wind file is read as the engine will read it, so a file that cannot be read gets a
// 400 naming the field, the line and the column before anything is stored.
import { createHash } from 'node:crypto';
import { turbineRatingKw } from './inputs.resolve.ts';
import type { ScenarioInputs } from './schemas/inputs.ts';
import type { FieldError } from './schemas/problem.ts';
import { parseEpw } from './weather/epw.ts';
import { parseSamCsv } from './weather/samcsv.ts';
import { HubHeightError, srwHubSteps } from './weather/srw.hub.ts';
import { parseSrw } from './weather/srw.ts';
import { WeatherFileError } from './weather/weather.error.ts';

type WeatherFile = { source: 'sam_csv' | 'epw'; text: string };

/**
 * The answers of the last few file checks, by a digest of what was checked: a file posted again (a
 * retry, the next scenario of a study) is read once, not once per request.
 */
const recent = new Map<string, FieldError[]>();
const RECENT_FILES = 16;

/**
 * The answers of this synchronous pass, by the file's text itself, then what else the check read
 * (the source, the hub height…): a sweep's variants and an optimization's box points are validated
 * in one pass and carry the same strings, which a Map finds without hashing their bytes again (V8
 * keeps a string's hash). Forgotten when the pass ends, so no file outlives its request.
 */
let thisPass: Map<string, Map<string, FieldError[]>> | null = null;

function passMemo(text: string): Map<string, FieldError[]> {
  if (!thisPass) {
    thisPass = new Map();
    queueMicrotask(() => {
      thisPass = null;
    });
  }
  let byContext = thisPass.get(text);
  if (!byContext) {
    byContext = new Map();
    thisPass.set(text, byContext);
  }
  return byContext;
}

/** Reads a file's `text` with `read` (once for the same text and `context`); a file error becomes a field error at `path`. */
function readFile(text: string, context: string, path: string, read: () => unknown, out: FieldError[]): void {
  const memo = passMemo(text);
  const key = `${path}\n${context}`;
  let errors = memo.get(key);
  if (!errors) {
    // A digest, not the text, is kept across requests: the files are up to 8 MB each.
    const digest = createHash('sha256').update(key).update('\n').update(text).digest('base64');
    errors = recent.get(digest);
    if (!errors) {
      errors = readErrors(path, read);
      if (recent.size >= RECENT_FILES) recent.delete(recent.keys().next().value as string);
      recent.set(digest, errors);
    }
    memo.set(key, errors);
  }
  out.push(...errors);
}

function readErrors(path: string, read: () => unknown): FieldError[] {
  try {
    read();
    return [];
  } catch (err) {
    if (err instanceof HubHeightError)
      return [{ path: '/wind/turbine/hub_height_m', message: `${err.message} (${path})` }];
    if (err instanceof WeatherFileError) return [{ path, message: err.message }];
    throw err;
  }
}

function weatherFileErrors(w: WeatherFile, path: string, out: FieldError[]): void {
  readFile(w.text, w.source, path, () => (w.source === 'epw' ? parseEpw(w.text) : parseSamCsv(w.text)), out);
}

function windResourceErrors(v: ScenarioInputs, out: FieldError[]): void {
  const r = v.wind_resource;
  if (!r) return;
  const files =
    r.source === 'years'
      ? r.years.map((y, i) => ({ text: y.text, path: `/wind_resource/years/${i}/text` }))
      : [{ text: r.text, path: '/wind_resource/text' }];
  const hub = v.wind.turbine.hub_height_m;
  for (const { text, path } of files) {
    readFile(
      text,
      `srw\n${hub}\n${r.shear_exponent}`,
      path,
      () => srwHubSteps(parseSrw(text), hub, r.shear_exponent),
      out,
    );
  }
}

function layoutErrors(v: ScenarioInputs, out: FieldError[]): void {
  const { layout, wake_model } = v.wind;
  if (wake_model !== 'constant' && v.wind.capacity_mw > 0) {
    if (!layout)
      out.push({ path: '/wind/wake_model', message: `${wake_model} needs wind.layout: the turbines' positions` });
    if (!v.wind_resource) {
      out.push({
        path: '/wind/wake_model',
        message: `${wake_model} needs a wind_resource: the direction of each hour's wind`,
      });
    }
  }
  if (!layout) return;
  const { x_m, y_m } = layout;
  if (x_m.length !== y_m.length) {
    out.push({
      path: '/wind/layout/y_m',
      message: `${y_m.length} positions for the ${x_m.length} of x_m: one each per turbine`,
    });
    return;
  }
  const seen = new Map<string, number>();
  for (let i = 0; i < x_m.length; i++) {
    const spot = `${x_m[i]},${y_m[i]}`;
    const other = seen.get(spot);
    if (other !== undefined) {
      out.push({
        path: `/wind/layout/x_m/${i}`,
        message: `turbine ${i} stands on the same spot as turbine ${other} (${x_m[i]}, ${y_m[i]} m)`,
      });
      return;
    }
    seen.set(spot, i);
  }
}

/** The files of the weather and the wind resource, and the wind farm's layout. */
export function resourceErrors(v: ScenarioInputs, out: FieldError[]): void {
  const w = v.weather;
  if (w.source === 'sam_csv' || w.source === 'epw') weatherFileErrors(w, '/weather/text', out);
  if (w.source === 'years') {
    w.years.forEach((y, i) => {
      weatherFileErrors(y, `/weather/years/${i}/text`, out);
    });
  }
  if (out.length === 0) snowDepthErrors(v, out);
  if (v.solar.albedo === 'weather_file' && (w.source === 'synthetic' || w.source === 'supplied')) {
    out.push({
      path: '/solar/albedo',
      message: `"weather_file" reads the weather file's albedo column; ${w.source} weather has no file`,
    });
  }
  windResourceErrors(v, out);
  layoutErrors(v, out);
}

/** SSC stops PVWatts v8's snow model at this many unusable snow depths (missing, < 0 or > 610 cm). */
export const MAX_BAD_SNOW_DEPTHS = 500;

/** The snow model reads the weather file's snow depth: every file must have one SSC would use. */
function snowDepthErrors(v: ScenarioInputs, out: FieldError[]): void {
  if (!v.solar.snow_model || v.solar.capacity_mw_dc === 0) return;
  const w = v.weather;
  const path = '/solar/snow_model';
  const files = w.source === 'sam_csv' || w.source === 'epw' ? [w] : w.source === 'years' ? w.years : [];
  if (files.length === 0) {
    out.push({ path, message: `needs a weather file with a snow depth column; ${w.source} weather has none` });
    return;
  }
  for (const file of files) {
    readFile(
      file.text,
      `${file.source}:snow`,
      path,
      () => {
        const depth = (file.source === 'epw' ? parseEpw(file.text) : parseSamCsv(file.text)).snowDepthCm;
        if (!depth) throw new WeatherFileError(3, 'the weather file has no snow depth column');
        let bad = 0;
        for (const d of depth) if (!(d >= 0 && d <= 610)) bad++;
        if (bad >= MAX_BAD_SNOW_DEPTHS) {
          throw new WeatherFileError(3, `the weather file's snow depth is missing or invalid in ${bad} hours`);
        }
      },
      out,
    );
  }
}

/** With a layout the capacity is turbines × rating: a capacity the client wrote must agree. */
export function layoutCapacityErrors(body: unknown, v: ScenarioInputs, out: FieldError[]): void {
  const layout = v.wind.layout;
  const given = (body as { wind?: { capacity_mw?: unknown } }).wind?.capacity_mw;
  if (!layout || given === undefined) return;
  const mw = (layout.x_m.length * turbineRatingKw(v.wind.turbine)) / 1000;
  if (Math.abs(v.wind.capacity_mw - mw) > 1e-9 * Math.max(1, mw)) {
    out.push({
      path: '/wind/capacity_mw',
      message: `the layout's ${layout.x_m.length} turbines of ${mw / layout.x_m.length} MW make ${mw} MW; leave capacity_mw out or give that`,
    });
  }
}
