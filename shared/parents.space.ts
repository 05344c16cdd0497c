// The design space of a parent of variant scenarios (a sweep, an optimization): the inputs it may
// set, named by JSON Pointer, and a point of it made into a scenario's inputs. Both planners call
// these (shared/sweeps.plan.ts, shared/optimizations.plan.ts), so a pointer means the same thing,
// and fails the same way, in a sweep's `vary` and an optimization's `variables`.
import type { TSchema } from '@sinclair/typebox';
import { absentArrayError, pointerSegments, schemasAt, setAt } from './json.pointer.ts';
import { copyJson } from './schema.defaults.ts';
import { ScenarioInputs as ScenarioInputsSchema } from './schemas/inputs.ts';
import type { Library } from './validate.refs.ts';
import { type Validation, validateScenario } from './validate.ts';

/** Records a problem at a JSON Pointer of the request; returns undefined, so a check can `return err(…)`. */
export type Report = (path: string, message: string) => undefined;

interface SpacePath {
  path: string;
  segments: string[];
  /** The schemas the pointer reaches (more than one under a union). */
  schemas: TSchema[];
}

const numeric = (s: TSchema) => s.type === 'number' || s.type === 'integer';

/** Whether the schemas a pointer reaches take whole numbers only (none is a `number`). */
export const integerOnly = (schemas: readonly TSchema[]) => !schemas.some((s) => s.type === 'number');

/**
 * One pointer of the space, checked: a JSON Pointer into the scenario inputs, not the scenario's
 * name (a variant's name is its parent's), an item of an array only where the base gives the array,
 * and not overlapping an earlier pointer. `numeric`: an optimization's variables must be numbers
 * (and the seed is not one to search). Errors go to `${at}/path`.
 */
export function spacePath(
  path: string,
  at: string,
  earlier: readonly string[],
  base: Record<string, unknown>,
  err: Report,
  options: { numeric: boolean },
): SpacePath | undefined {
  const segments = pointerSegments(path);
  const example = 'e.g. /solar/capacity_mw_dc';
  if (!segments) {
    return err(
      `${at}/path`,
      `must be a JSON Pointer to ${options.numeric ? 'a numeric input' : 'an input'}, ${example}`,
    );
  }
  if (segments[0] === 'name') return err(`${at}/path`, "a variant's name is its parent's: /name cannot be set");
  if (options.numeric && segments[0] === 'seed') return err(`${at}/path`, 'the seed is not a design variable');
  const schemas = schemasAt(ScenarioInputsSchema, segments);
  if (schemas.length === 0) return err(`${at}/path`, `${path} points into no input of the scenario schema`);
  if (options.numeric && !schemas.some(numeric)) return err(`${at}/path`, `${path} is not a numeric input`);
  const absent = absentArrayError(ScenarioInputsSchema, base, path, segments);
  if (absent) return err(`${at}/path`, absent);
  const clash = earlier.find((p) => p === path || path.startsWith(`${p}/`) || p.startsWith(`${path}/`));
  if (clash) return err(`${at}/path`, `${path} is set twice (it overlaps ${clash})`);
  return { path, segments, schemas };
}

/**
 * The scenario inputs at one point: the base, the parent's seed unless the base (or the point)
 * sets one, so every variant is compared under the same weather, then each value at its pointer;
 * validated as POST /api/scenarios would. The values are set as they are, not copied: their
 * pointers never overlap (spacePath), so nothing here writes into one, and validateScenario fills
 * its defaults into a copy; the inputs it answers share nothing with them.
 */
export function pointInputs(
  base: Record<string, unknown>,
  seed: number,
  values: ReadonlyArray<readonly [segments: readonly string[], value: unknown]>,
  name: string,
  library?: Library,
): Validation {
  const inputs = copyJson(base) as Record<string, unknown>;
  if (inputs.seed === undefined) inputs.seed = seed;
  for (const [segments, value] of values) setAt(inputs, segments as string[], value);
  inputs.name = name.slice(0, 200);
  return validateScenario(inputs, library);
}
