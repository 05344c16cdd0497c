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
 * What one read of a file found: its errors, and what else the read saw that a later check needs
 * (a weather file's snow depth problem, so the snow model's check does not read the file again).
 */
interface FileRead {
  errors: FieldError[];
  note: string | null;
}

/**
 * The answers of the last few file checks, by a digest of what was checked: a file posted again (a
 * retry, the next scenario of a study) is read once, not once per request.
 */
const recent = new Map<string, FileRead>();
const RECENT_FILES = 16;

/**
 * The answers of this synchronous pass, by the file's text itself, then what else the check read
 * (the source, the hub height…): a sweep's variants and an optimization's box points are validated
 * in one pass and carry the same strings, which a Map finds without hashing their bytes again (V8
 * keeps a string's hash). Forgotten when the pass ends, so no file outlives its request.
 */
let thisPass: Map<string, Map<string, FileRead>> | null = null;

function passMemo(text: string): Map<string, FileRead> {
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

/**
 * Reads a file's `text` with `read` (once for the same text and `context`); a file error becomes a
 * field error at `path`. Returns what `read` returned (null when it threw): a short note, never
 * what was parsed, since it is kept with the answer.
 */
function readFile(
  text: string,
  context: string,
  path: string,
  read: () => string | null,
  out: FieldError[],
): string | null {
  const memo = passMemo(text);
  const key = `${path}\n${context}`;
  let found = memo.get(key);
  if (!found) {
    // A digest, not the text, is kept across requests: the files are up to 8 MB each.
    const digest = createHash('sha256').update(key).update('\n').update(text).digest('base64');
    found = recent.get(digest);
    if (!found) {
      found = readChecked(path, read);
      if (recent.size >= RECENT_FILES) recent.delete(recent.keys().next().value as string);
      recent.set(digest, found);
    }
    memo.set(key, found);
  }
  out.push(...found.errors);
  return found.note;
}

function readChecked(path: string, read: () => string | null): FileRead {
  try {
    return { errors: [], note: read() };
  } catch (err) {
    if (err instanceof HubHeightError)
      return { errors: [{ path: '/wind/turbine/hub_height_m', message: `${err.message} (${path})` }], note: null };
    if (err instanceof WeatherFileError) return { errors: [{ path, message: err.message }], note: null };
    throw err;
  }
}

/** A weather file's errors; returns what the snow model would find wrong with its snow depth, or null. */
function weatherFileErrors(w: WeatherFile, path: string, out: FieldError[]): string | null {
  return readFile(
    w.text,
    w.source,
    path,
    () => snowDepthProblem((w.source === 'epw' ? parseEpw(w.text) : parseSamCsv(w.text)).snowDepthCm),
    out,
  );
}

function windResourceErrors(v: ScenarioInputs, out: FieldError[]): void {
  const r = v.wind_resource;
  if (!r) return;
  // A library file not read here (no library given) was read when it was referenced.
  const files = (
    r.source === 'years'
      ? r.years.map((y, i) => ({ text: 'text' in y ? y.text : null, path: `/wind_resource/years/${i}/text` }))
      : [{ text: 'text' in r ? r.text : null, path: '/wind_resource/text' }]
  ).filter((f): f is { text: string; path: string } => f.text !== null);
  const hub = v.wind.turbine.hub_height_m;
  for (const { text, path } of files) {
    readFile(
      text,
      `srw\n${hub}\n${r.shear_exponent}`,
      path,
      () => {
        srwHubSteps(parseSrw(text), hub, r.shear_exponent);
        return null;
      },
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
  // Each file's snow depth problem (or null), in the files' order: read with the file, checked below.
  const snow: Array<string | null> = [];
  if (w.source === 'sam_csv' || w.source === 'epw') snow.push(weatherFileErrors(w, '/weather/text', out));
  if (w.source === 'years') {
    w.years.forEach((y, i) => {
      if (y.source !== 'resource') snow.push(weatherFileErrors(y, `/weather/years/${i}/text`, out));
    });
  }
  // A library file not read here (no library given) had its snow depth checked when it was referenced.
  const unread = w.source === 'resource' || (w.source === 'years' && w.years.some((y) => y.source === 'resource'));
  if (out.length === 0 && !unread) snowDepthErrors(v, snow, out);
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

/** What the snow model would find wrong with a weather file's snow depth (SSC's check), or null. */
function snowDepthProblem(depth: ArrayLike<number> | null | undefined): string | null {
  if (!depth) return 'the weather file has no snow depth column';
  let bad = 0;
  for (let h = 0; h < depth.length; h++) if (!(depth[h] >= 0 && depth[h] <= 610)) bad++;
  return bad >= MAX_BAD_SNOW_DEPTHS ? `the weather file's snow depth is missing or invalid in ${bad} hours` : null;
}

/**
 * The snow model reads the weather file's snow depth: every file must have one SSC would use.
 * `snow`: each weather file's snow depth problem, as its read found it (weatherFileErrors).
 */
function snowDepthErrors(v: ScenarioInputs, snow: ReadonlyArray<string | null>, out: FieldError[]): void {
  if (!v.solar.snow_model || v.solar.capacity_mw_dc === 0) return;
  const w = v.weather;
  const path = '/solar/snow_model';
  if (snow.length === 0) {
    out.push({ path, message: `needs a weather file with a snow depth column; ${w.source} weather has none` });
    return;
  }
  for (const problem of snow) {
    if (problem !== null) out.push({ path, message: new WeatherFileError(3, problem).message });
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
