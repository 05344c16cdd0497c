// A sweep request checked and expanded into its variants, before anything is written. Every
// variant is validated as a complete scenario; a 400 names the variant and the field, and where the
// field is a varied one, the value's place in the request (`/vary/k/values/j`). The pointers' rules
// and a point's inputs are the design space's (parents.space.ts), as an optimization's are.
import { pointInputs, type Report, spacePath } from './parents.space.ts';
import { copyJson } from './schema.defaults.ts';
import type { ScenarioInputs } from './schemas/inputs.ts';
import type { FieldError } from './schemas/problem.ts';
import type { SweepRequest } from './schemas/sweep.ts';
import type { Library } from './validate.refs.ts';

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

type Expansion = { ok: true; plan: SweepPlan } | { ok: false; errors: FieldError[] };

/** The values of `from`, `from + step`, … ≤ `to`, printed as decimals would be (no 0.30000000000000004). */
function rangeValues(from: number, to: number, step: number): number[] {
  const count = rangeCount(from, to, step);
  return Array.from({ length: count }, (_, i) => Number((from + i * step).toPrecision(12)));
}
const rangeCount = (from: number, to: number, step: number) => Math.floor((to - from) / step + 1e-9) + 1;

const printValue = (v: unknown) => {
  const text = JSON.stringify(v) ?? 'null';
  return text.length > 40 ? `${text.slice(0, 37)}…` : text;
};

/** A parameter's range, or null when it gives values: `from`, `to`, `step` once the schema accepted the request. */
type VaryItem = SweepRequest['vary'][number];

/** Rules of one parameter that the schema cannot say; its values (a range's bounds for now), or errors. */
function parameterOf(item: VaryItem, at: string, earlier: Parameter[], base: Record<string, unknown>, err: Report) {
  const where = spacePath(
    item.path,
    at,
    earlier.map((p) => p.path),
    base,
    err,
    { numeric: false },
  );
  if (!where) return;
  const { path, segments } = where;
  const hasRange = item.from !== undefined || item.to !== undefined || item.step !== undefined;
  if ((item.values !== undefined) === hasRange) return err(at, 'give either values, or from, to and step');
  if (item.values !== undefined) return { path, segments, values: item.values };
  const { from, to, step } = item;
  if (from === undefined || to === undefined || step === undefined) {
    for (const [key, v] of Object.entries({ from, to, step }))
      if (v === undefined) err(`${at}/${key}`, 'is required with a range');
    return;
  }
  if (from > to) return err(`${at}/from`, `must not be greater than to (${to})`);
  return { path, segments, values: [from, to, step], range: true };
}

/** Checks the parameters (after the schema); counts variants before expanding any. */
function parseParameters(body: SweepRequest, maxVariants: number): Parameter[] | FieldError[] {
  const errors: FieldError[] = [];
  const err: Report = (path, message) => {
    errors.push({ path, message });
    return undefined;
  };
  const parameters: Array<Parameter & { range?: boolean }> = [];
  body.vary.forEach((item, k) => {
    const p = parameterOf(item, `/vary/${k}`, parameters, body.base as Record<string, unknown>, err);
    if (p) parameters.push(p);
  });
  if (errors.length > 0) return errors;
  const counts = parameters.map((p) =>
    p.range ? rangeCount(...(p.values as [number, number, number])) : p.values.length,
  );
  const zip = body.combine === 'zip';
  if (zip && new Set(counts).size > 1) {
    return [{ path: '/vary', message: `zip needs lists of equal length; these have ${counts.join(', ')}` }];
  }
  const total = zip ? counts[0] : counts.reduce((a, b) => a * b, 1);
  if (total > maxVariants) {
    return [{ path: '/vary', message: `${total} variants; at most ${maxVariants} (MAX_SWEEP_VARIANTS)` }];
  }
  // Values are made only once the variant count is known to be allowed.
  return parameters.map(({ range, ...p }) =>
    range ? { ...p, values: rangeValues(...(p.values as [number, number, number])) } : p,
  );
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

/** A sweep request the schema accepted (server/route.ts), checked further and expanded. */
export function planSweep(
  body: SweepRequest,
  options: { maxVariants: number; seed: number; library?: Library },
): Expansion {
  const parsed = parseParameters(body, options.maxVariants);
  if (parsed.length > 0 && !('segments' in parsed[0])) return { ok: false, errors: parsed as FieldError[] };
  const parameters = parsed as Parameter[];
  const name = body.name;
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
    const values: Record<string, unknown> = {};
    const label: string[] = [];
    const settings = parameters.map((p, k) => {
      // The variant's own copy (no object shared between variants); pointInputs sets it as it is.
      const v = copyJson(p.values[picks[k]]);
      values[p.path] = v;
      label.push(`${p.path.split('/').pop()}=${printValue(v)}`);
      return [p.segments, v] as const;
    });
    // One seed for every variant, so they are compared under the same weather (unless /seed varies).
    const checked = pointInputs(base, options.seed, settings, `${name} · ${label.join(', ')}`, options.library);
    if (!checked.ok) {
      if (failing++ < MAX_REPORTED_VARIANTS) errors.push(...variantErrors(index, checked.errors, parameters, picks));
      continue;
    }
    variants.push({ index, name: checked.value.name, inputs: checked.value, values });
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
      vary: body.vary,
      combine: zip ? 'zip' : 'grid',
      keepHourly: body.keep_hourly === true,
      parameters,
      variants,
    },
  };
}
