// Where scenario inputs take a file or an hourly array, and the library references that may stand
// in their place (docs/resources.md): `{"source": "resource", "id"}` for a weather file (and each
// of several years), an SRW file (and each year); `{"resource": id}` for an hourly series (profiles,
// merchant prices, a load and its backup price, an ancillary product's price, the operator's hourly
// export limit, the capacity credit's system load). One walker finds
// every such place, inline or referenced; the web uses it to put inline files into
// the library and to check references, the worker to put what a reference holds back in place.
import type { ResolvedInputs, StoredInputs } from './schemas/inputs.ts';

export type SlotKind = 'weather' | 'wind_resource' | 'hourly_series';

/** What a referenced resource holds, as a reference's place takes it. */
export type ResourceContent =
  | { kind: 'weather'; format: 'sam_csv' | 'epw'; text: string }
  | { kind: 'wind_resource'; format: 'srw'; text: string }
  | { kind: 'hourly_series'; format: 'series'; values: number[] };

/**
 * One place of the inputs that takes a file or an hourly series. `at`: its JSON Pointer (an error
 * there names the field); `id`: the resource it references, or null when it is inline.
 */
export interface Slot {
  at: string;
  kind: SlotKind;
  id: string | null;
  /** For a series: the lengths its place takes (8,760, or 8,760 × n up to `maxYears`). */
  maxYears?: number;
  get(): unknown;
  set(value: unknown): void;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A place inside `parent[key]`. */
function slot(parent: Obj, key: string | number, at: string, kind: SlotKind, id: string | null, maxYears?: number) {
  const p = parent as Record<string | number, unknown>;
  return {
    at,
    kind,
    id,
    ...(maxYears === undefined ? {} : { maxYears }),
    get: () => p[key],
    set: (v: unknown) => {
      p[key] = v;
    },
  };
}

function fileSlot(parent: Obj, key: string | number, at: string, kind: SlotKind, out: Slot[]): void {
  const v = (parent as Record<string | number, unknown>)[key];
  if (!isObj(v)) return;
  if (v.source === 'resource' && typeof v.id === 'string') out.push(slot(parent, key, at, kind, v.id));
  else if (typeof v.text === 'string') out.push(slot(parent, key, at, kind, null));
}

function seriesSlot(parent: unknown, key: string, at: string, maxYears: number, out: Slot[]): void {
  if (!isObj(parent)) return;
  const v = parent[key];
  if (Array.isArray(v)) out.push(slot(parent, key, at, 'hourly_series', null, maxYears));
  else if (isObj(v) && typeof v.resource === 'string')
    out.push(slot(parent, key, at, 'hourly_series', v.resource, maxYears));
}

/**
 * Every place of `inputs` (a request's body, a variant's, or stored inputs) that holds a file or an
 * hourly series, inline or referenced. Reads only the places it knows; anything else is left to
 * the schema. `prefix`: where `inputs` sits in the request, for the pointers.
 */
export function slotsOf(inputs: unknown, prefix = ''): Slot[] {
  const out: Slot[] = [];
  if (!isObj(inputs)) return out;
  const w = inputs.weather;
  if (isObj(w)) {
    if (w.source === 'years' && Array.isArray(w.years))
      w.years.forEach((_, i) => {
        fileSlot(w.years as unknown as Obj, i, `${prefix}/weather/years/${i}`, 'weather', out);
      });
    else if (w.source !== 'srw') fileSlot(inputs, 'weather', `${prefix}/weather`, 'weather', out);
  }
  const r = inputs.wind_resource;
  if (isObj(r)) {
    if (r.source === 'years' && Array.isArray(r.years))
      r.years.forEach((_, i) => {
        fileSlot(r.years as unknown as Obj, i, `${prefix}/wind_resource/years/${i}`, 'wind_resource', out);
      });
    else fileSlot(inputs, 'wind_resource', `${prefix}/wind_resource`, 'wind_resource', out);
  }
  const solar = inputs.solar;
  if (isObj(solar)) seriesSlot(solar.profile, 'hourly_mw', `${prefix}/solar/profile/hourly_mw`, 25, out);
  const wind = inputs.wind;
  if (isObj(wind)) seriesSlot(wind.profile, 'hourly_mw', `${prefix}/wind/profile/hourly_mw`, 25, out);
  seriesSlot(inputs.grid, 'export_limit_hourly_mw', `${prefix}/grid/export_limit_hourly_mw`, 1, out);
  const market = inputs.market;
  seriesSlot(market, 'merchant_hourly_prices', `${prefix}/market/merchant_hourly_prices`, 25, out);
  if (isObj(market) && Array.isArray(market.ancillary))
    market.ancillary.forEach((p, i) => {
      seriesSlot(p, 'price_per_mw_hour', `${prefix}/market/ancillary/${i}/price_per_mw_hour`, 1, out);
    });
  if (isObj(market) && isObj(market.capacity))
    seriesSlot(market.capacity.credit, 'system_load_mw', `${prefix}/market/capacity/credit/system_load_mw`, 1, out);
  const load = inputs.load;
  if (isObj(load)) {
    seriesSlot(load, 'hourly_mw', `${prefix}/load/hourly_mw`, 25, out);
    seriesSlot(load.backup, 'price_per_mwh', `${prefix}/load/backup/price_per_mwh`, 1, out);
  }
  return out;
}

/** The pointer of a reference's id: where an unknown or wrong id is reported. */
export const idPointer = (s: Slot) => (s.kind === 'hourly_series' ? `${s.at}/resource` : `${s.at}/id`);

/** The reference that replaces an inline file or series of a slot, keeping the slot's other settings. */
export function referenceFor(s: Slot, id: string): unknown {
  if (s.kind === 'hourly_series') return { resource: id };
  const { text: _text, source, ...rest } = s.get() as Obj;
  // A year of several SRW files is `{text}` alone: its shear is the wind resource's.
  return s.kind === 'wind_resource' && source === undefined
    ? { source: 'resource', id }
    : { source: 'resource', id, ...rest };
}

/** The inline value a reference stands for: the file's text under its own `source`, or the series' values. */
export function inlineFor(s: Slot, content: ResourceContent): unknown {
  if (content.kind === 'hourly_series') return content.values;
  const { id: _id, source: _source, ...rest } = s.get() as Obj;
  if (content.kind === 'wind_resource' && s.at.includes('/years/')) return { text: content.text };
  return { source: content.format, text: content.text, ...rest };
}

/**
 * The inputs with every reference replaced by what it holds (a copy of the objects on the way to
 * each reference; the rest shared). `content(id)` is the resource, whose kind was checked when
 * the scenario was created. Inputs without references are answered as they are.
 */
export function withContents(inputs: StoredInputs, content: (id: string) => ResourceContent): ResolvedInputs {
  const slots = slotsOf(inputs).filter((s) => s.id !== null);
  if (slots.length === 0) return inputs as ResolvedInputs;
  const copy = copyPaths(inputs, slots);
  for (const s of slotsOf(copy)) if (s.id !== null) s.set(inlineFor(s, content(s.id)));
  return copy as ResolvedInputs;
}

/** A copy of the containers on the way to each slot, so setting them does not touch `inputs`. */
function copyPaths(inputs: unknown, slots: readonly Slot[]): Obj {
  const root = { ...(inputs as Obj) };
  for (const s of slots) {
    let node: Record<string | number, unknown> = root;
    const keys = s.at.split('/').slice(1, -1);
    for (const k of keys) {
      const child = node[k];
      node[k] = Array.isArray(child) ? [...child] : { ...(child as Obj) };
      node = node[k] as Record<string | number, unknown>;
    }
  }
  return root;
}

/** Inputs that hold no reference, as the engine's type (a test's or a bench's); throws on a reference. */
export function inlineOnly(inputs: StoredInputs): ResolvedInputs {
  const ref = slotsOf(inputs).find((s) => s.id !== null);
  if (ref) throw new Error(`${ref.at} references resource ${ref.id}: resolve it first (withContents)`);
  return inputs as ResolvedInputs;
}
