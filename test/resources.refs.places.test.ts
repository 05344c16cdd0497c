// Every place where the inputs' schema takes an hourly series of the library (`{"resource": id}`)
// is a place the walker (shared/resources.refs.ts) finds: otherwise a reference there would pass
// the schema unchecked and reach the engine as an object, never resolved. And the bounds a
// referenced series is held to are those of the same values inline, read from the schema.
import type { TSchema } from '@sinclair/typebox';
import t from 'tap';
import { slotsOf } from '../shared/resources.refs.ts';
import { ScenarioInputs } from '../shared/schemas/inputs.ts';
import { seriesBounds } from '../shared/validate.refs.ts';

/** The pointers (an array's items at index 0) of every union that has a `{resource}` variant. */
function seriesPlaces(schema: TSchema, at: string, out: string[]): void {
  const variants = (schema.anyOf ?? []) as TSchema[];
  if (variants.some((v) => v.properties?.resource !== undefined && Object.keys(v.properties).length === 1))
    out.push(at);
  for (const v of variants) seriesPlaces(v, at, out);
  for (const [key, child] of Object.entries((schema.properties ?? {}) as Record<string, TSchema>))
    seriesPlaces(child, `${at}/${key}`, out);
  if (schema.type === 'array' && schema.items && !Array.isArray(schema.items))
    seriesPlaces(schema.items as TSchema, `${at}/0`, out);
}

/** An object with `value` at `pointer` (an index makes an array). */
function holding(pointer: string, value: unknown): Record<string, unknown> {
  const keys = pointer.split('/').slice(1);
  const root: Record<string, unknown> = {};
  let node: Record<string, unknown> = root;
  keys.forEach((k, i) => {
    if (i === keys.length - 1) node[k] = value;
    else {
      node[k] = /^\d+$/.test(keys[i + 1]) ? [] : {};
      node = node[k] as Record<string, unknown>;
    }
  });
  return root;
}

const places: string[] = [];
seriesPlaces(ScenarioInputs, '', places);

t.test('the schema has the series places the docs list', async (t) => {
  t.same(
    [...places].sort(),
    [
      '/grid/export_limit_hourly_mw',
      '/load/backup/price_per_mwh',
      '/load/hourly_mw',
      '/market/ancillary/0/price_per_mw_hour',
      '/market/capacity/credit/system_load_mw',
      '/market/merchant_hourly_prices',
      '/solar/profile/hourly_mw',
      '/wind/profile/hourly_mw',
    ],
    'docs/resources.md lists each of these',
  );
});

t.test('the walker finds a reference and an inline array at each of them', async (t) => {
  for (const at of places) {
    const byRef = slotsOf(holding(at, { resource: 'r-1' }));
    t.same(
      byRef.map((s) => [s.at, s.kind, s.id]),
      [[at, 'hourly_series', 'r-1']],
      `${at}: the reference`,
    );
    const inline = slotsOf(holding(at, [1, 2, 3]));
    t.same(
      inline.map((s) => [s.at, s.id]),
      [[at, null]],
      `${at}: the inline array`,
    );
  }
});

t.test("a referenced series' bounds are the inline array's", async (t) => {
  t.same(seriesBounds('/grid/export_limit_hourly_mw'), { min: 0, max: 200_000 });
  t.same(seriesBounds('/market/capacity/credit/system_load_mw'), { min: 0, max: 1e9 });
  t.same(seriesBounds('/market/merchant_hourly_prices'), { min: -10_000, max: 100_000 });
  t.same(seriesBounds('/market/ancillary/4/price_per_mw_hour'), { min: -10_000, max: 100_000 });
  t.same(seriesBounds('/load/hourly_mw'), { min: 0, max: 1e6 });
  for (const at of places) {
    const b = seriesBounds(at);
    t.ok(Number.isFinite(b.min) && Number.isFinite(b.max) && b.min < b.max, `${at}: ${b.min} to ${b.max}`);
  }
  t.throws(() => seriesBounds('/site/latitude'), /no hourly array/);
});
