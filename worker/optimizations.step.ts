// An optimization's search step, run by the worker that finishes a round's last evaluation (and
// again by a retried or duplicate delivery: the step is stateless, so it recomputes the same
// round, and the optimization's row lock lets one step write it). It records the best design so
// far (`improved` when it changed), then writes the next round's evaluations with their jobs, or
// the end (`finished`).
import type { PgBoss } from 'pg-boss';
import type { Config } from '../shared/config.ts';
import type { Db } from '../shared/db.ts';
import { type OptimizationPlan, roundOf, searchProblemOf } from '../shared/optimizations.plan.ts';
import { bestIndex, type Evaluated, isFeasible, nextRound } from '../shared/optimizations.search.ts';
import { roundEndedBy, runStep, type StepOutcome, type StepState } from '../shared/parents.repository.ts';

export interface StepDeps {
  db: Db;
  boss: PgBoss;
  config: Readonly<Config>;
}

/** The search's history: each evaluation's values in the variables' order and its metrics (null unless it succeeded). */
export function historyOf(plan: OptimizationPlan, evaluations: StepState['evaluations']): Evaluated[] {
  return evaluations.map((e) => ({
    values: plan.variables.map((v) => Number(e.values[v.path])),
    metrics: e.status === 'succeeded' && e.kpis ? e.kpis : null,
  }));
}

/** What the step writes: the best so far, and the next round or the end. Pure. */
export function decideStep(
  id: string,
  state: StepState,
): { best: { scenarioId: string; feasible: boolean; data: unknown } | null; outcome: StepOutcome } {
  const plan = state.row.request as OptimizationPlan;
  const problem = searchProblemOf(plan);
  const history = historyOf(plan, state.evaluations);
  const b = bestIndex(problem, history);
  const best =
    b === null
      ? null
      : {
          scenarioId: state.evaluations[b].scenario_id,
          feasible: isFeasible(problem, history[b].metrics),
          data: {
            index: state.evaluations[b].index,
            scenario_id: state.evaluations[b].scenario_id,
            values: state.evaluations[b].values,
            kpis: history[b].metrics,
            feasible: isFeasible(problem, history[b].metrics),
            evaluations: history.length,
          },
        };
  const next = nextRound(problem, history);
  if (!next) {
    return {
      best,
      outcome: {
        kind: 'finished',
        data: { status: 'succeeded', evaluations: history.length, best: best?.data ?? null },
      },
    };
  }
  const at = { optimizationId: id, round: state.row.rounds, firstIndex: history.length, now: state.row.created_at };
  return { best, outcome: { kind: 'round', round: roundOf(plan, at, next) } };
}

/** After an evaluation finished: when it ended its optimization's round, the next step. */
export async function afterEvaluation(deps: StepDeps, scenarioId: string): Promise<void> {
  const id = await roundEndedBy(deps.db, scenarioId);
  if (id === null) return;
  // A round whose every point failed validation has no job to end it: the next step follows at once.
  for (let chained = true; chained; ) {
    chained = false;
    await runStep(deps.db, deps.boss, deps.config, id, (state) => {
      const decided = decideStep(id, state);
      chained = decided.outcome.kind === 'round' && decided.outcome.round.evaluations.length === 0;
      return decided;
    });
  }
}
