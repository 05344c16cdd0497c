// An optimization request checked before anything is written (the rules a schema cannot say, each
// a 400 naming the field), and a point of the search made into a scenario's inputs. The web uses
// both for round 0; the worker's search step uses `pointInputs` for the rounds after.
import type { TSchema } from '@sinclair/typebox';
import { uuidv7 } from '../shared/ids.ts';
import { resolveInputs } from '../shared/inputs.resolve.ts';
import type { Round } from '../shared/optimizations.repository.ts';
import { METRIC_NAMES } from '../shared/optimize.metrics.ts';
import { gridOf, type SearchProblem } from '../shared/optimize.search.ts';
import { ScenarioInputs as ScenarioInputsSchema } from '../shared/schemas/inputs.ts';
import type { OptimizationRequest } from '../shared/schemas/optimization.ts';
import type { FieldError } from '../shared/schemas/problem.ts';
import { copyJson } from './schema.defaults.ts';
import { pointerSegments, schemasAt, setAt } from './sweeps.expand.ts';
import { type Validation, validateScenario } from './validate.ts';

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

/** Records a problem; returns undefined, so a check can `return err(…)`. */
type Report = (path: string, message: string) => undefined;

const numeric = (s: TSchema) => s.type === 'number' || s.type === 'integer';

/** One variable's rules: a pointer to a numeric input, not twice, min ≤ max, an integer step for an integer input. */
function variableErrors(body: OptimizationRequest, k: number, err: Report): undefined {
  const v = body.variables[k];
  const at = `/variables/${k}`;
  const segments = pointerSegments(v.path);
  if (!segments || segments[0] === 'name' || segments[0] === 'seed') {
    return err(`${at}/path`, 'must be a JSON Pointer to a numeric input, e.g. /solar/capacity_mw_dc');
  }
  const schemas = schemasAt(ScenarioInputsSchema, segments);
  if (schemas.length === 0) return err(`${at}/path`, `${v.path} points into no input of the scenario schema`);
  if (!schemas.some(numeric)) return err(`${at}/path`, `${v.path} is not a numeric input`);
  const clash = body.variables
    .slice(0, k)
    .find((p) => p.path === v.path || v.path.startsWith(`${p.path}/`) || p.path.startsWith(`${v.path}/`));
  if (clash) return err(`${at}/path`, `${v.path} is a variable twice (it overlaps ${clash.path})`);
  if (v.min > v.max) return err(`${at}/min`, `must not be greater than max (${v.max})`);
  const integer = !schemas.some((s) => s.type === 'number');
  if (integer && (!Number.isInteger(v.min) || !Number.isInteger(v.max))) {
    return err(`${at}/${Number.isInteger(v.min) ? 'max' : 'min'}`, `${v.path} is an integer input`);
  }
  if (integer && v.step !== undefined && !Number.isInteger(v.step)) {
    return err(`${at}/step`, `${v.path} is an integer input: the step must be a whole number`);
  }
}

/** The objective's and constraints' rules: known measures, and a bound on each constraint. */
function goalErrors(body: OptimizationRequest, err: Report): undefined {
  const known = (name: string) => METRIC_NAMES.includes(name);
  const key = 'maximize' in body.objective ? 'maximize' : 'minimize';
  const objective = 'maximize' in body.objective ? body.objective.maximize : body.objective.minimize;
  if (!known(objective)) err(`/objective/${key}`, `${objective} is not a KPI; one of ${METRIC_NAMES.join(', ')}`);
  (body.constraints ?? []).forEach((c, k) => {
    if (!known(c.kpi)) err(`/constraints/${k}/kpi`, `${c.kpi} is not a KPI; one of ${METRIC_NAMES.join(', ')}`);
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
    const integer = !schemas.some((s) => s.type === 'number');
    const step = (v.max - v.min) / 100;
    return { ...v, step: integer ? Math.max(1, Math.round(step)) : Number(step.toPrecision(12)) };
  });
}

/** The scenario inputs at a point (values in the variables' order), validated as POST /api/scenarios would. */
export function pointInputs(plan: OptimizationPlan, values: readonly number[], label: string): Validation {
  const inputs = copyJson(plan.base) as Record<string, unknown>;
  if (inputs.seed === undefined) inputs.seed = plan.seed;
  plan.variables.forEach((v, i) => {
    setAt(inputs, pointerSegments(v.path) ?? [], values[i]);
  });
  const named = plan.variables.map((v, i) => `${v.path.split('/').pop()}=${values[i]}`).join(', ');
  inputs.name = `${plan.name} · ${label} · ${named}`.slice(0, 200);
  return validateScenario(inputs);
}

/**
 * The box's faces: each variable at its min and at its max, the others at their middle grid value,
 * must be a valid scenario (a point inside that is still invalid, e.g. both capacities 0, is
 * evaluated as failed and never chosen). Errors name the variable's bound, or the base's field.
 */
function faceErrors(plan: OptimizationPlan): FieldError[] {
  const problem = searchProblemOf(plan);
  const { steps, counts } = gridOf(problem);
  const middle = plan.variables.map((v, i) =>
    Number((v.min + Math.floor((counts[i] - 1) / 2) * steps[i]).toPrecision(12)),
  );
  const errors: FieldError[] = [];
  plan.variables.forEach((v, k) => {
    for (const end of ['min', 'max'] as const) {
      const values = middle.map((m, i) => (i === k ? v[end] : m));
      const checked = pointInputs(plan, values, 'check');
      if (checked.ok) continue;
      for (const e of checked.errors) {
        const j = plan.variables.findIndex((p) => e.path === p.path);
        const path = j === k ? `/variables/${k}/${end}` : j >= 0 ? `/variables/${j}` : `/base${e.path}`;
        if (!errors.some((x) => x.path === path))
          errors.push({ path, message: `with ${v.path} = ${v[end]}: ${e.message}` });
      }
    }
  });
  return errors;
}

/** A request the schema accepted, checked further: the plan, or every error found. */
export function planOptimization(
  body: OptimizationRequest,
  seed: number,
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
  const faces = faceErrors(plan);
  return faces.length > 0 ? { ok: false, errors: faces } : { ok: true, plan };
}

/** A round's points made into evaluations: valid ones resolved (with their jobs to come), invalid ones failed at once. */
export function roundOf(
  plan: OptimizationPlan,
  at: { optimizationId: string; round: number; firstIndex: number; now: Date },
  points: readonly number[][],
): Round {
  const round: Round = { optimizationId: at.optimizationId, round: at.round, evaluations: [], invalid: [] };
  points.forEach((values, j) => {
    const index = at.firstIndex + j;
    const id = uuidv7();
    const byPath = Object.fromEntries(plan.variables.map((v, i) => [v.path, values[i]]));
    const checked = pointInputs(plan, values, `#${index}`);
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
