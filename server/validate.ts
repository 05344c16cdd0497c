// Validation of a scenario request with the same TypeBox schema that documents it, compiled once.
// Every failing field is reported, each with a JSON Pointer path.
import type { TSchema } from '@sinclair/typebox';
import { type TypeCheck, TypeCompiler } from '@sinclair/typebox/compiler';
import {
  EpwWeather,
  SamCsvWeather,
  ScenarioInputs,
  SrwResource,
  SrwYearsResource,
  SuppliedWeather,
  SyntheticWeather,
  YearsWeather,
} from '../shared/schemas/inputs.ts';
import type { FieldError } from '../shared/schemas/problem.ts';
import { compileDefaults, copyJson } from './schema.defaults.ts';
import { layoutCapacityErrors, resourceErrors } from './validate.resource.ts';

const compiled = TypeCompiler.Compile(ScenarioInputs);
const applyDefaults = compileDefaults(ScenarioInputs);
const weatherVariants: Record<string, TypeCheck<TSchema>> = {
  synthetic: TypeCompiler.Compile(SyntheticWeather),
  supplied: TypeCompiler.Compile(SuppliedWeather),
  sam_csv: TypeCompiler.Compile(SamCsvWeather),
  epw: TypeCompiler.Compile(EpwWeather),
  years: TypeCompiler.Compile(YearsWeather),
};
const windResourceVariants: Record<string, TypeCheck<TSchema>> = {
  srw: TypeCompiler.Compile(SrwResource),
  years: TypeCompiler.Compile(SrwYearsResource),
};

export type Validation = { ok: true; value: ScenarioInputs } | { ok: false; errors: FieldError[] };

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
    return `must be a number between ${n.minimum} and ${n.maximum}, or an array of 12 such numbers`;
  }
  return 'does not match any allowed form';
}

function schemaErrors(check: TypeCheck<TSchema>, value: unknown, prefix: string, out: FieldError[]): void {
  for (const e of check.Errors(value)) {
    const path = prefix + e.path;
    if (out.some((o) => o.path === path)) continue;
    let message = e.message;
    if (e.schema.anyOf) message = describeUnion(e.schema);
    out.push({ path: path || '/', message });
  }
}

/** A union chosen by `source`: the chosen variant's own errors, or the allowed sources. */
function sourceErrors(
  value: unknown,
  variants: Record<string, TypeCheck<TSchema>>,
  prefix: string,
  out: FieldError[],
): void {
  const source = isObject(value) ? value.source : undefined;
  const check = typeof source === 'string' ? variants[source] : undefined;
  if (!check) {
    const allowed = Object.keys(variants)
      .map((k) => JSON.stringify(k))
      .join(', ');
    out.push({ path: `${prefix}/source`, message: `must be one of: ${allowed}` });
    return;
  }
  schemaErrors(check, value, prefix, out);
}

/** Checks that need more than one field, or more than a schema can say. */
function physicsErrors(v: ScenarioInputs, out: FieldError[]): void {
  if (v.solar.capacity_mw_dc === 0 && v.wind.capacity_mw === 0) {
    const message = 'solar and wind capacity cannot both be 0';
    out.push({ path: '/solar/capacity_mw_dc', message }, { path: '/wind/capacity_mw', message });
  }
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
  resourceErrors(v, out);
}

/** Far deeper than any scenario (power_curve/i/j is 4 levels); deeper bodies would exhaust the stack below. */
const MAX_DEPTH = 32;
/** A NUL (Postgres text and jsonb cannot hold it) or a UTF-16 surrogate without its pair (not Unicode). */
const unstorable = (s: string) => s.includes('\0') || !s.isWellFormed();

const pointer = (path: readonly (string | number)[]) =>
  `/${path.map((p) => String(p).replaceAll('~', '~0').replaceAll('/', '~1')).join('/')}`;

/** What no schema can say: nesting too deep to walk, and strings that cannot be stored. Iterative, so any depth is safe. */
function shapeErrors(body: unknown): FieldError[] {
  const errors: FieldError[] = [];
  const stack: Array<{ value: unknown; path: (string | number)[] }> = [{ value: body, path: [] }];
  while (stack.length > 0 && errors.length < 20) {
    const { value, path } = stack.pop() as { value: unknown; path: (string | number)[] };
    if (typeof value === 'string') {
      if (unstorable(value)) {
        errors.push({ path: pointer(path), message: 'must not contain NUL characters or unpaired UTF-16 surrogates' });
      }
    } else if (typeof value === 'object' && value !== null) {
      if (path.length >= MAX_DEPTH) return [{ path: pointer(path), message: `nested deeper than ${MAX_DEPTH} levels` }];
      const entries = Array.isArray(value) ? value.map((v, i) => [i, v] as const) : Object.entries(value);
      for (const [k, v] of entries) {
        if (typeof k === 'string' && unstorable(k)) {
          errors.push({
            path: pointer(path),
            message: 'a key contains a NUL character or an unpaired UTF-16 surrogate',
          });
        }
        if (typeof v === 'object' || typeof v === 'string') stack.push({ value: v, path: [...path, k] });
      }
    }
  }
  return errors;
}

export function validateScenario(body: unknown): Validation {
  if (!isObject(body)) {
    return { ok: false, errors: [{ path: '/', message: 'the body must be a JSON object' }] };
  }
  const shape = shapeErrors(body);
  if (shape.length > 0) return { ok: false, errors: shape };
  const value = applyDefaults(copyJson(body));
  const errors: FieldError[] = [];
  // The compiled check is fast; walking for errors is not, so it runs only for a body that fails.
  if (!compiled.Check(value)) schemaErrors(compiled, value, '', errors);
  for (const [path, variants] of [
    ['/weather', weatherVariants],
    ['/wind_resource', windResourceVariants],
  ] as const) {
    const idx = errors.findIndex((e) => e.path === path);
    if (idx < 0) continue;
    errors.splice(idx, 1);
    sourceErrors((value as Record<string, unknown>)[path.slice(1)], variants, path, errors);
  }
  if (errors.length === 0) physicsErrors(value as ScenarioInputs, errors);
  if (errors.length === 0) layoutCapacityErrors(body, value as ScenarioInputs, errors);
  return errors.length > 0 ? { ok: false, errors } : { ok: true, value: value as ScenarioInputs };
}
