// Turns stored rows into the API's Scenario resource.
import type { ScenarioRow } from '../shared/db.ts';
import type { Scenario, ScenarioListItem } from '../shared/schemas/scenario.ts';

const iso = (d: Date | null): string | null => (d ? d.toISOString() : null);

export const scenarioPath = (id: string) => `/api/scenarios/${id}`;

/** Keep in step with scenario_list_json in sql/0011_kpis.sql, which builds the same shape in SQL. */
function toListItem(row: ScenarioRow): ScenarioListItem {
  const self = scenarioPath(row.id);
  return {
    id: row.id,
    name: row.name,
    status: row.status,
    progress: row.progress,
    stage: row.stage,
    attempt: row.attempt,
    kpis: (row.summary as ScenarioListItem['kpis']) ?? null,
    error: row.error ?? null,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
    started_at: iso(row.started_at),
    finished_at: iso(row.finished_at),
    sweep_id: row.sweep_id ?? null,
    variant_index: row.variant_index ?? null,
    links: { self, events: `${self}/events`, statements: `${self}/statements` },
  };
}

export function toScenario(row: ScenarioRow): Scenario {
  const item = toListItem(row);
  return { ...item, inputs: row.inputs as Scenario['inputs'] };
}
