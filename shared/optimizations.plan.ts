// An optimization request checked before anything is written (the rules a schema cannot say, each
// a 400 naming the field), and a point of the search made into a scenario's inputs. The web uses
// both for round 0; the worker's search step uses `pointInputs` for the rounds after.
import { uuidv7 } from './ids.ts';
import { resolveInputs } from './inputs.resolve.ts';
import { pointerSegments, schemasAt } from './json.pointer.ts';
import { KPI_NAMES } from './kpis.ts';
import { gridOf, type SearchProblem } from './optimizations.search.ts';
import type { Round } from './parents.repository.ts';
import { integerOnly, pointInputs, type Report, spacePath } from './parents.space.ts';
import { ScenarioInputs as ScenarioInputsSchema } from './schemas/inputs.ts';
import type { OptimizationRequest } from './schemas/optimization.ts';
import type { FieldError } from './schemas/problem.ts';
import type { Library } from './validate.refs.ts';
import type { Validation } from './validate.ts';

/** The request with its defaults, as stored and as the search reads it. */
export interface OptimizationPlan {
  name: string;
  base: Record<string, unknown>;
  variables: Array<{ path: string; min: number; max: number; step?: number }>;
  objective: OptimizationRequest['objective'];
  constraints: NonNullable<OptimizationRequest['constraints']>;
  max_evaluations: number;
  /** The seed every evaluation shares (the base's, or one from the optimization's id). */
  seed: number;
}

export const searchProblemOf = (plan: OptimizationPlan): SearchProblem => ({
  variables: plan.variables,
  objective: plan.objective,
  constraints: plan.constraints,
  maxEvaluations: plan.max_evaluations,
});

/** One variable's rules: a pointer to a numeric input (the design space's rules), min ≤ max, an integer step for an integer input. */
function variableErrors(body: OptimizationRequest, k: number, err: Report): undefined {
  const v = body.variables[k];
  const at = `/variables/${k}`;
  const earlier = body.variables.slice(0, k).map((p) => p.path);
  const where = spacePath(v.path, at, earlier, body.base as Record<string, unknown>, err, { numeric: true });
  if (!where) return;
  if (v.min > v.max) return err(`${at}/min`, `must not be greater than max (${v.max})`);
  const integer = integerOnly(where.schemas);
  if (integer && (!Number.isInteger(v.min) || !Number.isInteger(v.max))) {
    return err(`${at}/${Number.isInteger(v.min) ? 'max' : 'min'}`, `${v.path} is an integer input`);
  }
  if (integer && v.step !== undefined && !Number.isInteger(v.step)) {
    return err(`${at}/step`, `${v.path} is an integer input: the step must be a whole number`);
  }
  return stepErrors(v, at, err);
}

/** At most this many steps from a variable's min to its max: finer than the search can use. */
const MAX_GRID_STEPS = 1_000_000;

/**
 * A step the grid can hold: at most MAX_GRID_STEPS from min to max, and its values distinct at the
 * 12 significant digits they are kept to (a step of 1e-300 would make every grid value one number).
 */
function stepErrors(v: OptimizationRequest['variables'][number], at: string, err: Report): undefined {
  if (v.max === v.min) return;
  const step = v.step ?? (v.max - v.min) / 100;
  const where = v.step === undefined ? `${at}/max` : `${at}/step`;
  if ((v.max - v.min) / step > MAX_GRID_STEPS) {
    return err(where, `too fine: at most ${MAX_GRID_STEPS.toLocaleString('en')} steps from min to max`);
  }
  const magnitude = Math.max(Math.abs(v.min), Math.abs(v.max));
  if (step < 1e-10 * magnitude) {
    return err(where, `a step of ${step} is too fine for values of ${magnitude}: at least ${1e-10 * magnitude}`);
  }
}

/** The objective's and constraints' rules: known measures, and a bound on each constraint. */
function goalErrors(body: OptimizationRequest, err: Report): undefined {
  const known = (name: string) => KPI_NAMES.includes(name);
  const key = 'maximize' in body.objective ? 'maximize' : 'minimize';
  const objective = 'maximize' in body.objective ? body.objective.maximize : body.objective.minimize;
  if (!known(objective)) err(`/objective/${key}`, `${objective} is not a KPI; one of ${KPI_NAMES.join(', ')}`);
  (body.constraints ?? []).forEach((c, k) => {
    if (!known(c.kpi)) err(`/constraints/${k}/kpi`, `${c.kpi} is not a KPI; one of ${KPI_NAMES.join(', ')}`);
    if (c.min === undefined && c.max === undefined) err(`/constraints/${k}`, 'give min, max or both');
    if (c.min !== undefined && c.max !== undefined && c.min > c.max) {
      err(`/constraints/${k}/min`, `must not be greater than max (${c.max})`);
    }
  });
}

/** The plan's default steps: (max − min) / 100, or a whole number for an integer input. */
function withSteps(body: OptimizationRequest): OptimizationPlan['variables'] {
  return body.variables.map((v) => {
    if (v.step !== undefined || v.min === v.max) return { ...v };
    const schemas = schemasAt(ScenarioInputsSchema, pointerSegments(v.path) ?? []);
    const integer = integerOnly(schemas);
    const step = (v.max - v.min) / 100;
    return { ...v, step: integer ? Math.max(1, Math.round(step)) : Number(step.toPrecision(12)) };
  });
}

/** The scenario inputs at a point (values in the variables' order), validated as POST /api/scenarios would. */
export function evaluationInputs(
  plan: OptimizationPlan,
  values: readonly number[],
  label: string,
  library?: Library,
): Validation {
  const named = plan.variables.map((v, i) => `${v.path.split('/').pop()}=${values[i]}`).join(', ');
  const settings = plan.variables.map((v, i) => [pointerSegments(v.path) ?? [], values[i]] as const);
  return pointInputs(plan.base, plan.seed, settings, `${plan.name} · ${label} · ${named}`, library);
}

/** The points checked before anything is written: each face's middle (a variable at a bound, the others at their middle grid value) and every corner (at most 2⁶). */
function boxPoints(plan: OptimizationPlan): number[][] {
  const { steps, counts } = gridOf(searchProblemOf(plan));
  const middle = plan.variables.map((v, i) =>
    Number((v.min + Math.floor((counts[i] - 1) / 2) * steps[i]).toPrecision(12)),
  );
  const faces = plan.variables.flatMap((v, k) =>
    [v.min, v.max].map((end) => middle.map((m, i) => (i === k ? end : m))),
  );
  const free = plan.variables.flatMap((v, i) => (v.min < v.max ? [i] : []));
  const corners = Array.from({ length: 2 ** free.length }, (_, mask) =>
    plan.variables.map((v, i) => (free.includes(i) && mask & (2 ** free.indexOf(i)) ? v.max : v.min)),
  );
  return [...faces, ...corners];
}

/**
 * The box checked at its faces and corners. An error naming a field of the base (not a variable)
 * at any of them is the base's: `/base/…`, the point in the message. A variable's bound is refused
 * (`/variables/k/min` or `max`) when no checked point with the variable at that bound is valid and
 * one of them fails on that variable. A
 * point that fails only for a combination of bounds each valid elsewhere (solar and wind both 0, a
 * battery's power without energy) is not refused: it is evaluated, as failed, and never chosen.
 */
function boxErrors(plan: OptimizationPlan, library?: Library): FieldError[] {
  const checked = boxPoints(plan).map((values) => ({
    values,
    result: evaluationInputs(plan, values, 'check', library),
  }));
  const errors: FieldError[] = [];
  const add = (path: string, message: string) => {
    if (!errors.some((x) => x.path === path)) errors.push({ path, message });
  };
  const described = (values: number[]) => plan.variables.map((v, i) => `${v.path} = ${values[i]}`).join(', ');
  for (const { values, result } of checked) {
    if (result.ok) continue;
    for (const e of result.errors)
      if (!plan.variables.some((v) => v.path === e.path))
        add(`/base${e.path}`, `with ${described(values)}: ${e.message}`);
  }
  plan.variables.forEach((v, k) => {
    for (const end of ['min', 'max'] as const) {
      const at = checked.filter((c) => c.values[k] === v[end]);
      if (at.some((c) => c.result.ok)) continue;
      const own = at.flatMap((c) => (c.result.ok ? [] : c.result.errors)).find((e) => e.path === v.path);
      if (own) add(`/variables/${k}/${end}`, `no scenario is valid with ${v.path} = ${v[end]}: ${own.message}`);
    }
  });
  return errors;
}

/** A request the schema accepted, checked further: the plan, or every error found. */
export function planOptimization(
  body: OptimizationRequest,
  seed: number,
  library?: Library,
): { ok: true; plan: OptimizationPlan } | { ok: false; errors: FieldError[] } {
  const errors: FieldError[] = [];
  const err: Report = (path, message) => {
    errors.push({ path, message });
    return undefined;
  };
  body.variables.forEach((_, k) => {
    variableErrors(body, k, err);
  });
  goalErrors(body, err);
  if (errors.length > 0) return { ok: false, errors };
  const base = body.base as Record<string, unknown>;
  const plan: OptimizationPlan = {
    name: body.name,
    base,
    variables: withSteps(body),
    objective: body.objective,
    constraints: body.constraints ?? [],
    max_evaluations: body.max_evaluations ?? 200,
    seed: typeof base.seed === 'number' ? base.seed : seed,
  };
  const box = boxErrors(plan, library);
  return box.length > 0 ? { ok: false, errors: box } : { ok: true, plan };
}

/** A round's points made into evaluations: valid ones resolved (with their jobs to come), invalid ones failed at once. */
export function roundOf(
  plan: OptimizationPlan,
  at: { optimizationId: string; round: number; firstIndex: number; now: Date },
  points: readonly number[][],
  library?: Library,
): Round {
  const round: Round = { optimizationId: at.optimizationId, round: at.round, evaluations: [], invalid: [] };
  points.forEach((values, j) => {
    const index = at.firstIndex + j;
    const id = uuidv7();
    const byPath = Object.fromEntries(plan.variables.map((v, i) => [v.path, values[i]]));
    const checked = evaluationInputs(plan, values, `#${index}`, library);
    if (!checked.ok) {
      const message = checked.errors.map((e) => `${e.path} ${e.message}`).join('; ');
      round.invalid.push({
        id,
        index,
        name: `${plan.name} · #${index}`,
        values: byPath,
        error: { code: 'invalid_point', message },
      });
      return;
    }
    const inputs = resolveInputs(checked.value, { scenarioId: id, now: at.now });
    round.evaluations.push({ id, index, name: checked.value.name, inputs, values: byPath });
  });
  return round;
}
