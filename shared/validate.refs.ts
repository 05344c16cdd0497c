// The checks of a scenario's library references: each id must be a resource of the caller's
// workspace (another workspace's is answered as unknown) of the kind its place takes, a series of
// a length its place takes, each of its values one the same array inline could hold; then the
// scenario's other rules read what the references hold, as they would read the same file or array
// given inline.
import type { TSchema } from '@sinclair/typebox';
import { HOURS_PER_YEAR } from './calendar.ts';
import { idPointer, type ResourceContent, type Slot, slotsOf, withContents } from './resources.refs.ts';
import { ScenarioInputs, type StoredInputs } from './schemas/inputs.ts';
import type { FieldError } from './schemas/problem.ts';

/** The resources a request references, of the caller's workspace only: an id not here is unknown. */
export interface Library {
  get(id: string): (ResourceContent & { name: string }) | undefined;
}

const KIND_WORDS = { weather: 'a weather file', wind_resource: 'an SRW wind file', hourly_series: 'an hourly series' };

function slotErrors(s: Slot, library: Library, out: FieldError[]): void {
  const id = s.id as string;
  const r = library.get(id);
  const at = idPointer(s);
  if (!r) {
    out.push({ path: at, message: `no resource of this workspace has the id ${id}` });
    return;
  }
  if (r.kind !== s.kind) {
    out.push({
      path: at,
      message: `resource ${id} ("${r.name}") is ${KIND_WORDS[r.kind]}; ${s.at} takes ${KIND_WORDS[s.kind]}`,
    });
    return;
  }
  if (
    r.kind === 'weather' &&
    r.format === 'epw' &&
    (s.get() as { wind_height_m?: unknown }).wind_height_m !== undefined
  )
    out.push({
      path: `${s.at}/wind_height_m`,
      message: `resource ${id} is an EPW file, whose wind is at 10 m: wind_height_m is for SAM CSV files`,
    });
  if (r.kind === 'hourly_series') {
    const n = r.values.length;
    const maxYears = s.maxYears ?? 1;
    if (n % HOURS_PER_YEAR !== 0 || n / HOURS_PER_YEAR > maxYears)
      out.push({
        path: at,
        message: `resource ${id} ("${r.name}") holds ${n} values; ${s.at} takes ${maxYears === 1 ? '8,760' : `8,760 × n (n ≤ ${maxYears})`}`,
      });
    else valueErrors(s, r.name, r.values, out);
  }
}

/**
 * The bounds of one value of the array a series' place takes inline, read from the inputs' schema
 * (the array variant of the place's union, its items' minimum and maximum), so a referenced series
 * is held to exactly what the same values inline are.
 */
export function seriesBounds(at: string): { min: number; max: number } {
  let node: TSchema | undefined = ScenarioInputs;
  const arrayOf = (n: TSchema | undefined) =>
    n?.type === 'array' ? n : (n?.anyOf as TSchema[] | undefined)?.find((v) => v.type === 'array');
  for (const key of at.split('/').slice(1)) {
    node = /^\d+$/.test(key) ? arrayOf(node)?.items : node?.properties?.[key];
  }
  const items = arrayOf(node)?.items as TSchema | undefined;
  if (!items) throw new Error(`no hourly array in the inputs' schema at ${at}`);
  return { min: items.minimum ?? Number.NEGATIVE_INFINITY, max: items.maximum ?? Number.POSITIVE_INFINITY };
}

/** The first value of a referenced series that its place would refuse inline: not finite, or out of bounds. */
function valueErrors(s: Slot, name: string, values: readonly number[], out: FieldError[]): void {
  const { min, max } = seriesBounds(s.at);
  const i = values.findIndex((v) => typeof v !== 'number' || !Number.isFinite(v) || v < min || v > max);
  if (i < 0) return;
  const where =
    values.length > HOURS_PER_YEAR
      ? `year ${Math.floor(i / HOURS_PER_YEAR) + 1}, hour ${i % HOURS_PER_YEAR}`
      : `hour ${i}`;
  out.push({
    path: idPointer(s),
    message: `resource ${s.id} ("${name}") holds ${String(values[i])} at ${where} (index ${i}); ${s.at} takes finite values from ${min} to ${max}`,
  });
}

/**
 * The errors of the references, then (when there are none) `rules` run on the inputs with each
 * reference replaced by what it holds; an error `rules` finds inside a referenced file or series
 * is reported at the reference's id. Without `library` the references are not read: `rules` runs
 * on the inputs as they are, and skips the files it cannot see.
 */
export function referenceErrors(
  value: ScenarioInputs,
  library: Library | undefined,
  rules: (v: ScenarioInputs) => FieldError[],
): FieldError[] {
  const refs = slotsOf(value).filter((s) => s.id !== null);
  if (refs.length === 0 || !library) return rules(value);
  const out: FieldError[] = [];
  for (const s of refs) slotErrors(s, library, out);
  if (out.length > 0) return out;
  const inlined = withContents(value as unknown as StoredInputs, (id) => library.get(id) as ResourceContent);
  return rules(inlined as unknown as ScenarioInputs).map((e) => {
    const s = refs.find((r) => e.path === r.at || e.path.startsWith(`${r.at}/text`));
    return s ? { path: idPointer(s), message: `resource ${s.id}: ${e.message}` } : e;
  });
}
