// Validation of a request body with the same TypeBox schema that documents it, compiled once:
// shape limits, defaults, the compiled check, then the rules the schema cannot say. Every failing
// field is reported, each with a JSON Pointer path.
import { Kind, type Static, type TSchema } from '@sinclair/typebox';
import { type TypeCheck, TypeCompiler } from '@sinclair/typebox/compiler';
import { pointerText } from './json.pointer.ts';
import { compileDefaults, copyJson } from './schema.defaults.ts';
import { registerFormats } from './schemas/formats.ts';
import { ScenarioInputs } from './schemas/inputs.ts';
import type { FieldError } from './schemas/problem.ts';
import { capitalStackErrors } from './validate.finance.ts';
import { loadErrors } from './validate.load.ts';
import { marketPaymentErrors } from './validate.market.ts';
import { type Library, referenceErrors } from './validate.refs.ts';
import { layoutCapacityErrors, resourceErrors } from './validate.resource.ts';
import { ancillaryErrors, storageErrors } from './validate.storage.ts';

// The schemas' string formats (a resource reference's uuid): in every process that validates, not
// only the web's routes. Without them the worker's search step refused every point after round 0
// of an optimization over referenced files ("Unknown format 'uuid'").
registerFormats();

export type Validation<T = ScenarioInputs> = { ok: true; value: T } | { ok: false; errors: FieldError[] };
/** `library`: the caller's workspace's resources that the body references (server/library.inputs.ts). */
export type Validator<T> = (body: unknown, library?: Library) => Validation<T>;

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** "Expected union value" says nothing; name the allowed literals or shapes instead. */
function describeUnion(schema: TSchema): string {
  const variants = (schema.anyOf ?? []) as TSchema[];
  if (variants.length > 0 && variants.every((v) => 'const' in v)) {
    return `must be one of: ${variants.map((v) => JSON.stringify(v.const)).join(', ')}`;
  }
  if (variants.some((v) => v.type === 'array') && variants.some((v) => v.type === 'number')) {
    const n = variants.find((v) => v.type === 'number') as TSchema;
    const range =
      n.minimum !== undefined
        ? `between ${n.minimum} and ${n.maximum}`
        : `strictly between ${n.exclusiveMinimum} and ${n.exclusiveMaximum}`;
    const literals = variants.filter((v) => 'const' in v).map((v) => JSON.stringify(v.const));
    return `must be a number ${range}, or an array of 12 such numbers${literals.map((l) => `, or ${l}`).join('')}`;
  }
  return 'does not match any allowed form';
}

/** The literal property that tells a union's object variants apart (e.g. `source`), if there is one. */
function tagOf(variants: TSchema[]): string | null {
  if (variants.length < 2 || variants.some((v) => v[Kind] !== 'Object')) return null;
  for (const key of Object.keys(variants[0].properties ?? {})) {
    const literals = variants.map((v) => v.properties?.[key]?.const);
    if (literals.every((l) => typeof l === 'string') && new Set(literals).size === variants.length) return key;
  }
  return null;
}

const variantChecks = new WeakMap<TSchema, TypeCheck<TSchema>>();
const compiledVariant = (schema: TSchema) => {
  let check = variantChecks.get(schema);
  if (!check) {
    check = TypeCompiler.Compile(schema);
    variantChecks.set(schema, check);
  }
  return check;
};

/** The variant of a union of objects told apart by which one property they have (`maximize` or `minimize`). */
function keyedVariant(variants: TSchema[], value: Record<string, unknown>): TSchema | undefined {
  if (variants.length < 2 || variants.some((v) => v[Kind] !== 'Object' || v.required?.length !== 1)) return undefined;
  const keys = variants.map((v) => v.required[0] as string);
  if (new Set(keys).size !== keys.length) return undefined;
  const present = variants.filter((_, i) => keys[i] in value);
  return present.length === 1 ? present[0] : undefined;
}

/**
 * A tagged union (objects told apart by a literal such as `source`, or by which one property they
 * have) that failed: the errors of the variant its tag names, or an error on the tag itself.
 * "Expected union value" would say nothing.
 */
function taggedUnionErrors(union: TSchema, value: unknown, path: string, out: FieldError[]): boolean {
  const variants = (union.anyOf ?? []) as TSchema[];
  // An hourly series or its library reference (`{resource}`): the errors of the variant of the value's JSON type.
  const jsonType = Array.isArray(value) ? 'array' : isObject(value) ? 'object' : null;
  const sameType = variants.filter((v) => v.type === jsonType);
  const series = variants.some((v) => v.properties?.resource !== undefined);
  if (series && jsonType && sameType.length === 1 && (jsonType === 'array' || 'resource' in (value as object))) {
    schemaErrors(compiledVariant(sameType[0]), value, path, out);
    return true;
  }
  if (!isObject(value)) return false;
  const keyed = keyedVariant(variants, value);
  if (keyed) {
    schemaErrors(compiledVariant(keyed), value, path, out);
    return true;
  }
  const tag = tagOf(variants);
  if (!tag) return false;
  const variant = variants.find((v) => v.properties[tag].const === value[tag]);
  if (!variant) {
    const allowed = variants.map((v) => JSON.stringify(v.properties[tag].const)).join(', ');
    out.push({ path: `${path}/${tag}`, message: `must be one of: ${allowed}` });
    return true;
  }
  schemaErrors(compiledVariant(variant), value, path, out);
  return true;
}

function valueAt(root: unknown, pointer: string): unknown {
  let node = root;
  for (const raw of pointer.split('/').slice(1)) {
    const key = raw.replaceAll('~1', '/').replaceAll('~0', '~');
    node = isObject(node) || Array.isArray(node) ? (node as Record<string, unknown>)[key] : undefined;
  }
  return node;
}

function schemaErrors(check: TypeCheck<TSchema>, value: unknown, prefix: string, out: FieldError[]): void {
  for (const e of check.Errors(value)) {
    const path = prefix + e.path;
    if (out.some((o) => o.path === path || o.path.startsWith(`${path}/`))) continue;
    if (e.schema.anyOf && taggedUnionErrors(e.schema, valueAt(value, e.path), path, out)) continue;
    const message = e.schema.anyOf ? describeUnion(e.schema) : e.message;
    out.push({ path: path || '/', message });
  }
}

/** A scenario's checks that need more than one field, or more than a schema can say. */
function physicsErrors(v: ScenarioInputs): FieldError[] {
  const out: FieldError[] = [];
  const batteryAlone = (v.storage?.power_mw ?? 0) > 0 && v.storage?.charge_from_grid === true;
  if (v.solar.capacity_mw_dc === 0 && v.wind.capacity_mw === 0 && !batteryAlone) {
    const message = 'solar and wind capacity cannot both be 0 (unless a battery may charge from the grid)';
    out.push({ path: '/solar/capacity_mw_dc', message }, { path: '/wind/capacity_mw', message });
  }
  if (v.storage) storageErrors(v.storage, out);
  ancillaryErrors(v, out);
  loadErrors(v, out);
  marketPaymentErrors(v, out);
  const curve = v.wind.turbine.power_curve;
  if (curve) {
    for (let i = 1; i < curve.length; i++) {
      if (!(curve[i][0] > curve[i - 1][0])) {
        out.push({
          path: `/wind/turbine/power_curve/${i}/0`,
          message: `wind speeds must increase strictly: ${curve[i][0]} follows ${curve[i - 1][0]}`,
        });
        break;
      }
    }
    if (curve.every(([, kw]) => kw === 0)) {
      out.push({ path: '/wind/turbine/power_curve', message: 'the power curve never produces power' });
    }
  }
  if (v.market.ppa_price_per_mwh === 'solve' && v.finance.target_equity_irr_percent === undefined) {
    out.push({
      path: '/finance/target_equity_irr_percent',
      message: 'required when market.ppa_price_per_mwh is "solve": the equity IRR to solve the price for',
    });
  }
  capitalStackErrors(v, out);
  const allocation = v.finance.depreciation.allocation;
  if (allocation) {
    const total = allocation.reduce((sum, a) => sum + a.percent, 0);
    if (total > 100 + 1e-9) {
      out.push({
        path: '/finance/depreciation/allocation',
        message: `the percentages sum to ${total}; at most 100 (the rest is not depreciated)`,
      });
    }
    allocation.forEach((a, i) => {
      if (allocation.findIndex((b) => b.class === a.class) !== i) {
        out.push({ path: `/finance/depreciation/allocation/${i}/class`, message: `${a.class} is allocated twice` });
      }
    });
  }
  if (v.solar.model === 'pvwatts_v5') v5OnlyErrors(v.solar, out);
  // Files are read as the engine will read them (a 400 names the line and column).
  resourceErrors(v, out);
  return out;
}

/** PVWatts v5 has no rear side, albedo by month or snow model: a v8 input on v5 would be ignored. */
function v5OnlyErrors(solar: ScenarioInputs['solar'], out: FieldError[]): void {
  const v8Only = (path: string) =>
    out.push({ path: `/solar/${path}`, message: 'a pvwatts_v8 input: set solar.model to pvwatts_v8' });
  if (solar.bifaciality > 0) v8Only('bifaciality');
  if (solar.albedo !== undefined) v8Only('albedo');
  if (solar.snow_model) v8Only('snow_model');
}

/** Far deeper than any scenario (power_curve/i/j is 4 levels); deeper bodies would exhaust the stack below. */
const MAX_DEPTH = 32;
/** A NUL (Postgres text and jsonb cannot hold it) or a UTF-16 surrogate without its pair (not Unicode). */
const unstorable = (s: string) => s.includes('\0') || !s.isWellFormed();

/** What no schema can say: nesting too deep to walk, and strings that cannot be stored. Iterative, so any depth is safe. */
function shapeErrors(body: unknown): FieldError[] {
  const errors: FieldError[] = [];
  const stack: Array<{ value: unknown; path: (string | number)[] }> = [{ value: body, path: [] }];
  while (stack.length > 0 && errors.length < 20) {
    const { value, path } = stack.pop() as { value: unknown; path: (string | number)[] };
    if (typeof value === 'string') {
      if (unstorable(value)) {
        errors.push({
          path: pointerText(path),
          message: 'must not contain NUL characters or unpaired UTF-16 surrogates',
        });
      }
    } else if (typeof value === 'object' && value !== null) {
      if (path.length >= MAX_DEPTH)
        return [{ path: pointerText(path), message: `nested deeper than ${MAX_DEPTH} levels` }];
      const entries = Array.isArray(value) ? value.map((v, i) => [i, v] as const) : Object.entries(value);
      for (const [k, v] of entries) {
        if (typeof k === 'string' && unstorable(k)) {
          errors.push({
            path: pointerText(path),
            message: 'a key contains a NUL character or an unpaired UTF-16 surrogate',
          });
        }
        if (typeof v === 'object' || typeof v === 'string') stack.push({ value: v, path: [...path, k] });
      }
    }
  }
  return errors;
}

/**
 * The validator of a body schema, compiled once: shape limits (depth, unstorable strings), defaults
 * applied, the compiled check (errors walked only for a body that fails), then `refine`'s rules, which
 * run only on a body the schema accepted.
 */
export function compileValidator<S extends TSchema>(
  schema: S,
  refine: (value: Static<S>, body: Record<string, unknown>, library?: Library) => FieldError[] = () => [],
): Validator<Static<S>> {
  const check = TypeCompiler.Compile(schema);
  const applyDefaults = compileDefaults(schema);
  return (body, library) => {
    if (!isObject(body)) return { ok: false, errors: [{ path: '/', message: 'the body must be a JSON object' }] };
    const shape = shapeErrors(body);
    if (shape.length > 0) return { ok: false, errors: shape };
    const value = applyDefaults(copyJson(body));
    const errors: FieldError[] = [];
    if (!check.Check(value)) schemaErrors(check, value, '', errors);
    else errors.push(...refine(value as Static<S>, body, library));
    return errors.length > 0 ? { ok: false, errors } : { ok: true, value: value as Static<S> };
  };
}

/**
 * A scenario's inputs: the schema, then the rules it cannot say. References to the library are
 * checked against `library` (unknown id, wrong kind, wrong length) and the rules then read what
 * they hold; without a library (a later round of an optimization, whose references were checked
 * at its create) the rules that need a referenced file's content are skipped.
 */
export const validateScenario: Validator<ScenarioInputs> = compileValidator(ScenarioInputs, (value, body, library) => {
  const errors = referenceErrors(value, library, physicsErrors);
  if (errors.length === 0) layoutCapacityErrors(body, value, errors);
  return errors;
});
