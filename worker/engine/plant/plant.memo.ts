// The plant's hours before the battery, kept from one calculation to the next for a caller that
// runs many variants of one plant (a sweep of battery sizes: docs/sweeps.md). The hybrid plant's
// output after the export limit, what that limit curtailed, and what the battery is offered each
// hour (the plant's export, the surplus over the limit, the hour's price) depend on the generation
// profiles, the capacities and their degradation, the grid and the market, never on the battery.
// A calculation with a battery whose inputs in those equal the last one's (and whose profiles are
// the same objects, from the caller's ProfileCache) copies them instead of computing them again.
// The arrays are written by the same code either way (hybridYears, storageYears), so a copy is the
// calculation's own: results are byte-identical with and without the memo (bench/engine.digests.ts,
// test/engine.plant.memo.test.ts).
import { HOURS_PER_YEAR, YEARS } from '../../../shared/calendar.ts';
import type { ResolvedInputs } from '../../../shared/schemas/inputs.ts';
import { batteryOf } from '../storage/storage.ts';
import type { Generation } from './generation.ts';

const HOURS = YEARS * HOURS_PER_YEAR;

/** What the plant's hours before the battery are made of. */
interface PlantKey {
  generation: Generation;
  solar: readonly [number, number];
  wind: readonly [number, number];
  grid: unknown;
  market: unknown;
}

/** The hours the memo keeps (25 × 8,760 each, but `curtailed`, `producedWithout` and the operator's: 25). */
export interface MemoHours {
  /** The plant's output after the export limit, before the battery. */
  solar: Float64Array;
  wind: Float64Array;
  /** Each year's energy the limit curtailed, and (with the operator's series) what it cut below the fixed limit. */
  curtailed: Float64Array;
  operatorCurtailed: Float64Array | null;
  /** Each year's solar + wind output before the limit. */
  producedWithout: Float64Array;
  /** What storageYears offers the battery: the export, the surplus (and solar's share of it), the price. */
  delivered: Float64Array;
  surplus: Float64Array;
  surplusSolar: Float64Array;
  price: Float64Array;
  /** With the operator's hourly limit: each hour's MWh it cut below the fixed limit. */
  operatorCut: Float64Array | null;
}

/** One calculation's use of the memo: its arrays, and whether they already hold this plant. */
export interface PlantMemoUse {
  hours: MemoHours;
  hit: boolean;
  /** On a miss: the arrays are whole, they now hold this plant. */
  kept: () => void;
}

export class PlantMemo {
  #hours: MemoHours | null = null;
  /** What the arrays hold; null while they hold nothing whole. */
  #key: PlantKey | null = null;
  hits = 0;
  misses = 0;

  /**
   * For a calculation of `inputs` on `generation`: null without a battery (the memo is not used);
   * otherwise the arrays, which hold its plant's hours on a hit. A miss forgets what they held:
   * the calculation fills them and calls `kept` once they are whole.
   */
  use(inputs: ResolvedInputs, generation: Generation): PlantMemoUse | null {
    if (!batteryOf(inputs)) return null;
    const key = keyOf(inputs, generation);
    const hours = this.#arrays(inputs);
    if (this.#key && sameKey(this.#key, key)) {
      this.hits++;
      return { hours, hit: true, kept: () => {} };
    }
    this.misses++;
    this.#key = null;
    const pending = { ...key, grid: structuredClone(key.grid), market: structuredClone(key.market) };
    return {
      hours,
      hit: false,
      kept: () => {
        this.#key = pending;
      },
    };
  }

  #arrays(inputs: ResolvedInputs): MemoHours {
    const a = () => new Float64Array(HOURS);
    this.#hours ??= {
      solar: a(),
      wind: a(),
      curtailed: new Float64Array(YEARS),
      operatorCurtailed: null,
      producedWithout: new Float64Array(YEARS),
      delivered: a(),
      surplus: a(),
      surplusSolar: a(),
      price: a(),
      operatorCut: null,
    };
    if (inputs.grid.export_limit_hourly_mw) {
      this.#hours.operatorCurtailed ??= new Float64Array(YEARS);
      this.#hours.operatorCut ??= a();
    }
    return this.#hours;
  }
}

function keyOf(inputs: ResolvedInputs, generation: Generation): PlantKey {
  const { solar, wind } = inputs;
  return {
    generation: { solar: generation.solar, wind: generation.wind },
    solar: [solar.capacity_mw_dc, solar.degradation_percent_per_year],
    wind: [wind.capacity_mw, wind.degradation_percent_per_year],
    grid: inputs.grid,
    market: inputs.market,
  };
}

function sameKey(a: PlantKey, b: PlantKey): boolean {
  return (
    a.generation.solar === b.generation.solar &&
    a.generation.wind === b.generation.wind &&
    Object.is(a.solar[0], b.solar[0]) &&
    Object.is(a.solar[1], b.solar[1]) &&
    Object.is(a.wind[0], b.wind[0]) &&
    Object.is(a.wind[1], b.wind[1]) &&
    sameValue(a.grid, b.grid) &&
    sameValue(a.market, b.market)
  );
}

/** Deep equality of JSON-like values (numbers by Object.is; an absent key and an undefined one alike). */
function sameValue(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameValue(a[i], b[i])) return false;
    return true;
  }
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  for (const k of Object.keys(x)) if (!sameValue(x[k], y[k])) return false;
  for (const k of Object.keys(y)) if (!(k in x) && y[k] !== undefined) return false;
  return true;
}
