-- One name for a scenario's key figures: `kpis`. A scenario, its list item and its `succeeded`
-- event said `summary` where the statements, a sweep's results and an optimization's evaluations
-- said `kpis`; now all say `kpis`. The column keeps its name, `summary`: the parents' trigger
-- functions (sql/0008) read it by name, and it is not part of the interface.

-- A timestamp as the interface writes it: UTC, milliseconds, `Z` (JavaScript's toISOString).
CREATE OR REPLACE FUNCTION api_timestamp(t timestamptz) RETURNS text
LANGUAGE sql STABLE AS $$ SELECT to_char(t AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') $$;

-- The one definition of a list item (server/scenario.view.ts builds the same shape for one read).
CREATE OR REPLACE FUNCTION scenario_list_json(s scenarios) RETURNS text
LANGUAGE sql STABLE AS $$
  SELECT json_build_object(
    'id', s.id, 'name', s.name, 'status', s.status, 'progress', s.progress, 'stage', s.stage,
    'attempt', s.attempt, 'kpis', s.summary, 'error', s.error,
    'created_at', api_timestamp(s.created_at), 'updated_at', api_timestamp(s.updated_at),
    'started_at', api_timestamp(s.started_at), 'finished_at', api_timestamp(s.finished_at),
    'sweep_id', s.sweep_id, 'variant_index', s.variant_index,
    'links', json_build_object('self', '/api/scenarios/' || s.id,
      'events', '/api/scenarios/' || s.id || '/events', 'statements', '/api/scenarios/' || s.id || '/statements')
  )::text
$$;

-- The stored list items of finished scenarios, and the stored `succeeded` events a stream replays.
UPDATE scenarios SET list_json = scenario_list_json(scenarios) WHERE list_json IS NOT NULL;
UPDATE scenario_events SET data = (data - 'summary') || jsonb_build_object('kpis', data -> 'summary')
  WHERE name = 'succeeded' AND data ? 'summary';
