// The engine's expensive stages, weather and per-unit generation, apart from the cheap ones that
// follow (scaling, degradation, curtailment, market, finance). A generation profile is the
// undegraded output of one MW of a technology in each hour of each weather year. It depends on the
// site, the weather (with its seed and start year) and that technology's design, never on its
// capacity, the grid, the market or the finance. A caller may keep profiles between calculations
// (a sweep's variants differ in capacities, export limit or price): `calculate` reads them from a
// ProfileCache by `profileKeys` and stores the ones it had to compute.
//
// A cached profile and a computed one give byte-identical results, because `calculate` always goes
// through the profile: output = profile × (capacity × degradation), whether or not it was cached.
import { createHash } from 'node:crypto';
import type { ResolvedInputs } from '../../../shared/schemas/inputs.ts';
import { v8Layout } from '../solar/solar.v8.layout.ts';
import { inverterSelfConsumptionShare, V8_MODULES } from '../solar/solar.v8.module.ts';

/** Undegraded MWh in each hour per MW of capacity (solar: per MW DC), year-major. */
export interface GenerationProfile {
  /** Weather years covered: 25 for synthetic weather, 1 for a supplied year used every year. */
  readonly years: number;
  readonly perMw: Float64Array;
}

/** Where `calculate` looks for profiles before computing them, and leaves the ones it computed. */
export interface ProfileCache {
  get(key: string): GenerationProfile | undefined;
  set(key: string, profile: GenerationProfile): void;
}

export interface ProfileKeys {
  /** null when the technology is absent (capacity 0): no profile is needed. */
  solar: string | null;
  wind: string | null;
}

/**
 * Canonical text of exactly the inputs that determine each profile (keys sorted, so the order a
 * client wrote them in does not matter). Every input is part of a key unless it is listed here as
 * not affecting generation: a new input is therefore shared only once someone says it may be.
 */
export function profileKeys(inputs: ResolvedInputs): ProfileKeys {
  const {
    name: _name,
    solar,
    wind,
    grid: _grid,
    market: _market,
    storage: _storage,
    load: _load,
    finance: _finance,
    uncertainty: _uncertainty,
    wind_resource,
    ...common
  } = inputs as ResolvedInputs & {
    name?: string;
  };
  const { capacity_mw_dc, degradation_percent_per_year: _sd, ...solarDesign } = solar;
  // PVWatts v8 lays out rows from the plant's size: the layout joins its key instead of the size.
  const v8 = solar.model === 'pvwatts_v8';
  const layout = v8 ? v8LayoutKey(solar) : undefined;
  const { capacity_mw, degradation_percent_per_year: _wd, ...windDesign } = wind;
  // A profile from another tool replaces the model: its hours and capacity alone make the profile
  // (hashed: a key of 8,760 × n numbers would cost more to compare than the hash to make).
  const supplied = (tech: string, profile: unknown) =>
    `{"tech":${JSON.stringify(tech)},"profile_sha256":"${createHash('sha256').update(canonicalJson(profile)).digest('hex')}","v":1}`;
  const solarKey = () =>
    solar.profile
      ? supplied('solar', solar.profile)
      : canonicalJson({ v: 1, tech: 'solar', common, design: solarDesign, layout });
  // The wind resource file moves wind only.
  const windKey = () =>
    wind.profile
      ? supplied('wind', wind.profile)
      : canonicalJson({ v: 1, tech: 'wind', common, wind_resource, design: windDesign });
  return { solar: capacity_mw_dc > 0 ? solarKey() : null, wind: capacity_mw > 0 ? windKey() : null };
}

/** What PVWatts v8 takes from the plant's size: its rows and modules along a row, and the inverter's size class. */
function v8LayoutKey(solar: ResolvedInputs['solar']): string {
  const w = solar.capacity_mw_dc * 1e6;
  const l = v8Layout(w, V8_MODULES[solar.module_type].efficiency, solar.array_type, solar.gcr);
  return `${l.rows}x${l.modulesAlong}:${inverterSelfConsumptionShare(w)}`;
}

/** JSON text with every object's keys in sorted order. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) {
    // An uploaded profile's 8,760 × n hours: all numbers (no holes), whose text JSON.stringify writes
    // in one call exactly as it writes each alone (NaN and ±Infinity null, -0 as 0).
    return allNumbers(value) ? JSON.stringify(value) : `[${value.map(canonicalJson).join(',')}]`;
  }
  if (value && typeof value === 'object') {
    const obj = value as Record<string, unknown>;
    const parts: string[] = [];
    for (const key of Object.keys(obj).sort()) {
      if (obj[key] === undefined) continue;
      parts.push(`${JSON.stringify(key)}:${canonicalJson(obj[key])}`);
    }
    return `{${parts.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

function allNumbers(values: unknown[]): boolean {
  for (let i = 0; i < values.length; i++) if (typeof values[i] !== 'number') return false;
  return true;
}
