// A sweep request checked and expanded into its variants, before anything is written. Every
// variant is validated as a complete scenario; a 400 names the variant and the field, and where the
// field is a varied one, the value's place in the request (`/vary/k/values/j`).
import type { TSchema } from '@sinclair/typebox';
import { type ScenarioInputs, ScenarioInputs as ScenarioInputsSchema } from '../shared/schemas/inputs.ts';
import type { FieldError } from '../shared/schemas/problem.ts';
import { copyJson } from './schema.defaults.ts';
import { validateScenario } from './validate.ts';

export interface Parameter {
  path: string;
  segments: string[];
  values: unknown[];
}

export interface SweepPlan {
  name: string;
  base: Record<string, unknown>;
  vary: unknown[];
  combine: 'grid' | 'zip';
  keepHourly: boolean;
  parameters: Parameter[];
  variants: Array<{ index: number; name: string; inputs: ScenarioInputs; values: Record<string, unknown> }>;
}

export type Expansion = { ok: true; plan: SweepPlan } | { ok: false; errors: FieldError[] };

const MAX_PARAMETERS = 8;
const FIELDS = new Set(['name', 'base', 'vary', 'combine', 'keep_hourly']);
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** JSON Pointer (RFC 6901) segments, or null when the text is not a pointer. */
function pointerSegments(path: string): string[] | null {
  if (!path.startsWith('/') || path.length > 200) return null;
  const segments = path.slice(1).split('/');
  if (segments.some((s) => /~[^01]|~$/.test(s) || s === '')) return null;
  return segments.map((s) => s.replaceAll('~1', '/').replaceAll('~0', '~'));
}

/** Does the inputs schema have a place at these segments (through objects, unions and arrays)? */
function schemaHas(schema: TSchema, segments: string[]): boolean {
  if (segments.length === 0) return true;
  const [head, ...rest] = segments;
  const s = schema as Record<string, unknown>;
  const branches = (s.anyOf ?? s.oneOf) as TSchema[] | undefined;
  if (branches) return branches.some((b) => schemaHas(b, segments));
  const props = s.properties as Record<string, TSchema> | undefined;
  if (props) return Object.hasOwn(props, head) && schemaHas(props[head], rest);
  if (s.type === 'array' && /^(0|[1-9]\d{0,4})$/.test(head)) {
    const items = s.items as TSchema | TSchema[] | undefined;
    const prefix = s.prefixItems as TSchema[] | undefined;
    const item = Array.isArray(items) ? items[Number(head)] : (prefix?.[Number(head)] ?? items);
    return item !== undefined && schemaHas(item, rest);
  }
  return false;
}

/** The values of `from`, `from + step`, … ≤ `to`, printed as decimals would be (no 0.30000000000000004). */
function rangeValues(from: number, to: number, step: number): number[] {
  const count = rangeCount(from, to, step);
  return Array.from({ length: count }, (_, i) => Number((from + i * step).toPrecision(12)));
}
const rangeCount = (from: number, to: number, step: number) => Math.floor((to - from) / step + 1e-9) + 1;

function setAt(target: Record<string, unknown>, segments: string[], value: unknown): void {
  let node: Record<string, unknown> | unknown[] = target;
  for (let i = 0; i < segments.length - 1; i++) {
    const key = segments[i];
    const next: unknown = Array.isArray(node) ? node[Number(key)] : node[key];
    if (isObject(next) || Array.isArray(next)) {
      node = next;
      continue;
    }
    const created: Record<string, unknown> = {};
    if (Array.isArray(node)) node[Number(key)] = created;
    else node[key] = created;
    node = created;
  }
  const last = segments[segments.length - 1];
  if (Array.isArray(node)) node[Number(last)] = value;
  else node[last] = value;
}

const printValue = (v: unknown) => {
  const text = JSON.stringify(v) ?? 'null';
  return text.length > 40 ? `${text.slice(0, 37)}…` : text;
};

/** Checks the request's own shape and its parameters; counts variants before expanding any. */
function parseParameters(body: Record<string, unknown>, maxVariants: number): Parameter[] | FieldError[] {
  const errors: FieldError[] = [];
  const err = (path: string, message: string) => errors.push({ path, message });
  for (const key of Object.keys(body)) if (!FIELDS.has(key)) err(`/${key}`, 'unknown field');
  if (typeof body.name !== 'string' || body.name.length < 1 || body.name.length > 200) {
    err('/name', 'must be a string of 1–200 characters');
  }
  if (!isObject(body.base)) err('/base', 'must be an object: the scenario inputs every variant starts from');
  if (body.combine !== undefined && body.combine !== 'grid' && body.combine !== 'zip') {
    err('/combine', 'must be "grid" (every combination) or "zip" (the i-th value of each list together)');
  }
  if (body.keep_hourly !== undefined && typeof body.keep_hourly !== 'boolean') err('/keep_hourly', 'must be a boolean');
  if (!Array.isArray(body.vary) || body.vary.length < 1 || body.vary.length > MAX_PARAMETERS) {
    err('/vary', `must be a list of 1–${MAX_PARAMETERS} parameters`);
    return errors;
  }
  const parameters: Parameter[] = [];
  const counts: number[] = [];
  for (const [k, item] of body.vary.entries()) {
    const at = `/vary/${k}`;
    if (!isObject(item)) {
      err(at, 'must be an object: {path, values} or {path, from, to, step}');
      continue;
    }
    const extra = Object.keys(item).filter((key) => !['path', 'values', 'from', 'to', 'step'].includes(key));
    for (const key of extra) err(`${at}/${key}`, 'unknown field');
    const segments = typeof item.path === 'string' ? pointerSegments(item.path) : null;
    if (!segments) {
      err(`${at}/path`, 'must be a JSON Pointer into the scenario inputs, e.g. /solar/capacity_mw_dc');
      continue;
    }
    if (segments[0] === 'name') {
      err(`${at}/path`, "a variant's name is the sweep's; /name cannot be varied");
      continue;
    }
    if (!schemaHas(ScenarioInputsSchema, segments)) {
      err(`${at}/path`, `${item.path} points into no input of the scenario schema`);
      continue;
    }
    const path = item.path as string;
    const clash = parameters.find(
      (p) => p.path === path || path.startsWith(`${p.path}/`) || p.path.startsWith(`${path}/`),
    );
    if (clash) {
      err(`${at}/path`, `${path} is varied twice (it overlaps ${clash.path})`);
      continue;
    }
    const hasValues = 'values' in item;
    const hasRange = 'from' in item || 'to' in item || 'step' in item;
    if (hasValues === hasRange) {
      err(at, 'give either values, or from, to and step');
      continue;
    }
    if (hasValues) {
      if (!Array.isArray(item.values) || item.values.length === 0) {
        err(`${at}/values`, 'must be a non-empty list');
        continue;
      }
      counts.push(item.values.length);
      parameters.push({ path, segments, values: item.values });
      continue;
    }
    const { from, to, step } = item;
    for (const [key, v] of [
      ['from', from],
      ['to', to],
      ['step', step],
    ] as const) {
      if (typeof v !== 'number' || !Number.isFinite(v)) err(`${at}/${key}`, 'must be a finite number');
    }
    if (typeof from !== 'number' || typeof to !== 'number' || typeof step !== 'number') continue;
    if (!(step > 0)) {
      err(`${at}/step`, 'must be greater than 0');
      continue;
    }
    if (from > to) {
      err(`${at}/from`, `must not be greater than to (${to})`);
      continue;
    }
    const count = rangeCount(from, to, step);
    counts.push(count);
    // Values are made only once the variant count is known to be allowed.
    parameters.push({ path, segments, values: [from, to, step] });
  }
  if (errors.length > 0) return errors;
  const zip = body.combine === 'zip';
  if (zip && new Set(counts).size > 1) {
    return [{ path: '/vary', message: `zip needs lists of equal length; these have ${counts.join(', ')}` }];
  }
  const total = zip ? counts[0] : counts.reduce((a, b) => a * b, 1);
  if (total > maxVariants) {
    return [{ path: '/vary', message: `${total} variants; at most ${maxVariants} (MAX_SWEEP_VARIANTS)` }];
  }
  body.vary.forEach((item, k) => {
    const p = parameters[k];
    if (!('values' in (item as object)))
      p.values = rangeValues(p.values[0] as number, p.values[1] as number, p.values[2] as number);
  });
  return parameters;
}

/** Maps one variant's validation errors to the request: varied fields to their value, the rest to /base. */
function variantErrors(index: number, errors: FieldError[], parameters: Parameter[], picks: number[]): FieldError[] {
  return errors.map((e) => {
    const k = parameters.findIndex((p) => e.path === p.path || e.path.startsWith(`${p.path}/`));
    if (k >= 0) {
      return { path: `/vary/${k}/values/${picks[k]}`, message: `variant ${index}: ${parameters[k].path} ${e.message}` };
    }
    return { path: `/base${e.path}`, message: `variant ${index}: ${e.message}` };
  });
}

/** At most this many variants' errors in one answer: they usually repeat one mistake. */
const MAX_REPORTED_VARIANTS = 10;

export function expandSweep(body: unknown, options: { maxVariants: number; seed: number }): Expansion {
  if (!isObject(body)) return { ok: false, errors: [{ path: '', message: 'the body must be a JSON object' }] };
  const parsed = parseParameters(body, options.maxVariants);
  if (parsed.length > 0 && !('segments' in parsed[0])) return { ok: false, errors: parsed as FieldError[] };
  const parameters = parsed as Parameter[];
  const name = body.name as string;
  const base = body.base as Record<string, unknown>;
  const zip = body.combine === 'zip';
  const lengths = parameters.map((p) => p.values.length);
  const total = zip ? lengths[0] : lengths.reduce((a, b) => a * b, 1);
  const variants: SweepPlan['variants'] = [];
  const errors: FieldError[] = [];
  let failing = 0;
  for (let index = 0; index < total; index++) {
    // grid: the last parameter varies fastest; zip: the i-th value of each.
    const picks = zip ? parameters.map(() => index) : [];
    if (!zip) {
      let rest = index;
      for (let k = parameters.length - 1; k >= 0; k--) {
        picks[k] = rest % lengths[k];
        rest = Math.floor(rest / lengths[k]);
      }
    }
    const inputs = copyJson(base) as Record<string, unknown>;
    // One seed for every variant, so they are compared under the same weather (unless /seed varies).
    if (inputs.seed === undefined) inputs.seed = options.seed;
    const values: Record<string, unknown> = {};
    const label: string[] = [];
    parameters.forEach((p, k) => {
      const v = copyJson(p.values[picks[k]]);
      values[p.path] = v;
      label.push(`${p.path.split('/').pop()}=${printValue(v)}`);
      setAt(inputs, p.segments, v);
    });
    const variantName = `${name} · ${label.join(', ')}`.slice(0, 200);
    inputs.name = variantName;
    const checked = validateScenario(inputs);
    if (!checked.ok) {
      if (failing++ < MAX_REPORTED_VARIANTS) errors.push(...variantErrors(index, checked.errors, parameters, picks));
      continue;
    }
    variants.push({ index, name: variantName, inputs: checked.value, values });
  }
  if (errors.length > 0) {
    if (failing > MAX_REPORTED_VARIANTS) {
      errors.push({
        path: '/vary',
        message: `${failing} of ${total} variants are invalid; the first ${MAX_REPORTED_VARIANTS} are listed`,
      });
    }
    return { ok: false, errors };
  }
  return {
    ok: true,
    plan: {
      name,
      base,
      vary: body.vary as unknown[],
      combine: zip ? 'zip' : 'grid',
      keepHourly: body.keep_hourly === true,
      parameters,
      variants,
    },
  };
}
