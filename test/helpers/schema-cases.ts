// Bad-input cases generated from the inputs schema itself, so a field added to the schema is
// covered without editing a test: every required field missing in turn, every field with a wrong
// type, every bounded number just outside its bounds, ±1e400 (parsed as ±Infinity), and 1.5 for
// integers. Each case names the JSON Pointer that the 400 answer must name.
import type { TSchema } from '@sinclair/typebox';
import { SamCsvWeather, ScenarioInputs, SuppliedWeather, SyntheticWeather } from '../../shared/schemas/inputs.ts';

export interface SchemaCase {
  name: string;
  /** The request body, as sent (a string, so 1e400 survives). */
  body: string;
  /** The JSON Pointer the problem must name. */
  path: string;
}

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type Obj = { [k: string]: Json };

const HOURS = 8760;
const MONTH_DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** A SAM CSV weather file that parses: header, values, column names, 8,760 rows. */
export function samCsvText(): string {
  const rows = ['Source,Latitude,Longitude,Time Zone,Elevation', 'generated,35.2,-101.8,-6,1100'];
  rows.push('Year,Month,Day,Hour,GHI,DNI,DHI,Tdry,Wspd');
  for (let m = 0; m < 12; m++) {
    for (let d = 1; d <= MONTH_DAYS[m]; d++) {
      for (let h = 0; h < 24; h++) {
        const sun = h >= 7 && h <= 17 ? Math.round(600 * Math.sin(((h - 6) / 12) * Math.PI)) : 0;
        rows.push(`2001,${m + 1},${d},${h},${sun},${Math.round(sun * 0.8)},${Math.round(sun * 0.2)},15,6`);
      }
    }
  }
  return `${rows.join('\n')}\n`;
}

const series = (v: number) => Array.from({ length: HOURS }, () => v);

export const BASE: Obj = { name: 'bad input', site: { latitude: 35.2, longitude: -101.8 } };
export const WEATHER: Record<string, Obj> = {
  synthetic: { source: 'synthetic' },
  supplied: {
    source: 'supplied',
    ghi: series(100),
    dni: series(50),
    dhi: series(50),
    temp_air_c: series(15),
    wind_speed_ms: series(6),
  },
  sam_csv: { source: 'sam_csv', text: samCsvText() },
};

function setAt(body: Obj, path: readonly string[], value: Json | undefined): Obj {
  const copy = structuredClone(body);
  let node: Obj = copy;
  for (const key of path.slice(0, -1)) {
    const next = node[key];
    if (typeof next !== 'object' || next === null || Array.isArray(next)) node[key] = {};
    node = node[key] as Obj;
  }
  const last = path[path.length - 1];
  if (value === undefined) delete node[last];
  else node[last] = value;
  return copy;
}

const pointer = (path: readonly string[]) => `/${path.join('/')}`;
const RAW = '__raw_value__';

function wrongTypeOf(schema: TSchema): Json {
  switch (schema.type) {
    case 'number':
    case 'integer':
      return '7';
    case 'string':
      return 7;
    case 'boolean':
      return 'true';
    case 'array':
      return { length: 1 };
    default:
      return [1];
  }
}

/** Walks one object schema below `path` in `body`; arrays, unions and literals get a wrong-type case only. */
function walk(schema: TSchema, body: Obj, path: string[], out: SchemaCase[]): void {
  const properties = (schema.properties ?? {}) as Record<string, TSchema>;
  const required = new Set<string>((schema.required ?? []) as string[]);
  for (const [key, prop] of Object.entries(properties)) {
    const at = [...path, key];
    const label = pointer(at);
    /** `raw` goes into the body as written (1e400 has no JSON.stringify form). */
    const send = (name: string, value: Json | undefined, raw?: string) => {
      const json = JSON.stringify(setAt(body, at, raw ? RAW : value));
      out.push({ name: `${label}: ${name}`, body: raw ? json.replace(`"${RAW}"`, raw) : json, path: label });
    };
    if (required.has(key) && prop.default === undefined && !('const' in prop)) send('missing', undefined);
    if ('const' in prop) {
      send('another literal', 'not-a-known-value');
      continue;
    }
    if (prop.type === 'object' && prop.properties) {
      send('wrong type', wrongTypeOf(prop));
      walk(prop, body, at, out);
      continue;
    }
    send('wrong type', wrongTypeOf(prop));
    if (prop.type === 'number' || prop.type === 'integer') {
      if (typeof prop.minimum === 'number') send('below minimum', prop.minimum - 1);
      if (typeof prop.exclusiveMinimum === 'number') send('at exclusive minimum', prop.exclusiveMinimum);
      if (typeof prop.maximum === 'number') send('above maximum', prop.maximum + Math.max(1, prop.maximum));
      if (typeof prop.exclusiveMaximum === 'number') send('at exclusive maximum', prop.exclusiveMaximum);
      send('1e400', undefined, '1e400');
      send('-1e400', undefined, '-1e400');
      if (prop.type === 'integer') send('not an integer', 1.5);
    }
    if (prop.type === 'array' && typeof prop.minItems === 'number' && prop.minItems > 0 && prop.minItems < 100) {
      send(
        'too few items',
        Array.from({ length: prop.minItems - 1 }, () => 0),
      );
    }
  }
}

export function schemaCases(): SchemaCase[] {
  const out: SchemaCase[] = [];
  walk(ScenarioInputs, BASE, [], out);
  const variants: Record<string, TSchema> = {
    synthetic: SyntheticWeather,
    supplied: SuppliedWeather,
    sam_csv: SamCsvWeather,
  };
  for (const [source, schema] of Object.entries(variants)) {
    const before = out.length;
    walk(schema, { ...BASE, weather: WEATHER[source] }, ['weather'], out);
    for (const c of out.slice(before)) c.name = `${source}: ${c.name}`;
  }
  // The walk starts from bodies that are valid; drop the few duplicates it makes across variants.
  const seen = new Set<string>();
  return out.filter((c) => !seen.has(c.name) && seen.add(c.name));
}
