-- A finished scenario (succeeded or failed) never changes again, so its list item is built once,
-- when it finishes, and kept as text: listing 100,000 finished scenarios then streams stored text
-- instead of building 100,000 JSON objects (json_build_object and four to_char calls per row were
-- most of the list's database time). Unfinished scenarios are built on the fly by the same function.
--
-- scenario_list_json is the one definition of a list item (server/scenario.view.ts toListItem
-- builds the same shape for single reads; test/api.contract checks that they agree). A change to
-- the shape needs a migration that replaces this function and refreshes list_json.

CREATE FUNCTION scenario_list_json(s scenarios) RETURNS text
LANGUAGE sql STABLE AS $$
  SELECT json_build_object(
    'id', s.id, 'name', s.name, 'status', s.status, 'progress', s.progress, 'stage', s.stage,
    'attempt', s.attempt, 'summary', s.summary, 'error', s.error,
    'created_at', to_char(s.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
    'updated_at', to_char(s.updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
    'started_at', to_char(s.started_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
    'finished_at', to_char(s.finished_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
    'links', json_build_object(
      'self', '/api/scenarios/' || s.id,
      'events', '/api/scenarios/' || s.id || '/events',
      'statements', '/api/scenarios/' || s.id || '/statements')
  )::text
$$;

-- NULL while the scenario is unfinished.
ALTER TABLE scenarios ADD COLUMN list_json text;

CREATE FUNCTION scenarios_set_list_json() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  NEW.list_json := CASE WHEN NEW.status IN ('succeeded', 'failed') THEN scenario_list_json(NEW) END;
  RETURN NEW;
END
$$;

-- Fires only when a row is or was finished: the create and progress writes of an unfinished
-- scenario do not pay for it.
CREATE TRIGGER scenarios_list_json_insert BEFORE INSERT ON scenarios
  FOR EACH ROW WHEN (NEW.status IN ('succeeded', 'failed')) EXECUTE FUNCTION scenarios_set_list_json();
CREATE TRIGGER scenarios_list_json_update BEFORE UPDATE ON scenarios
  FOR EACH ROW WHEN (NEW.status IN ('succeeded', 'failed') OR OLD.list_json IS NOT NULL)
  EXECUTE FUNCTION scenarios_set_list_json();

UPDATE scenarios SET list_json = scenario_list_json(scenarios) WHERE status IN ('succeeded', 'failed');
