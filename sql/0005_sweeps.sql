-- Sweeps: many variants of one project, created in one transaction. A variant is an ordinary
-- scenario with a sweep_id and a variant_index; its job waits behind single scenarios (a lower
-- pg-boss priority). A sweep's counts are never stored: they are counted from its variants (an
-- index on sweep_id), so no row is updated by every worker for every variant.

CREATE TABLE sweeps (
  id uuid PRIMARY KEY,
  name text NOT NULL,
  -- The request as accepted: base inputs, vary, combine, keep_hourly; parameters = the varied paths.
  base json NOT NULL,
  vary json NOT NULL,
  combine text NOT NULL CHECK (combine IN ('grid', 'zip')),
  keep_hourly boolean NOT NULL,
  parameters json NOT NULL,
  total integer NOT NULL CHECK (total > 0),
  idempotency_key text UNIQUE,
  request_hash text,
  -- The seq of the newest sweep event (variant, finished), bumped by the trigger below.
  last_seq integer NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL DEFAULT now(),
  finished_at timestamptz
);

ALTER TABLE scenarios
  ADD COLUMN sweep_id uuid REFERENCES sweeps (id) ON DELETE CASCADE,
  ADD COLUMN variant_index integer,
  -- The varied inputs' values of a variant, by path (what the results table shows).
  ADD COLUMN variant_values json,
  -- Whether the result keeps the hourly arrays (false for a sweep's variants by default).
  ADD COLUMN keep_hourly boolean NOT NULL DEFAULT true,
  -- 25-year sums: solar_mwh, wind_mwh, curtailed_mwh (set with the result).
  ADD COLUMN totals json;
CREATE UNIQUE INDEX scenarios_sweep_variant_idx ON scenarios (sweep_id, variant_index) WHERE sweep_id IS NOT NULL;
CREATE INDEX scenarios_sweep_unfinished_idx ON scenarios (sweep_id) WHERE status IN ('queued', 'running');

-- cancelled: a queued scenario (or variant) that was cancelled before any worker started it.
ALTER TABLE scenarios DROP CONSTRAINT scenarios_status_check;
ALTER TABLE scenarios ADD CONSTRAINT scenarios_status_check
  CHECK (status IN ('queued', 'running', 'succeeded', 'failed', 'cancelled'));
ALTER TABLE scenario_events DROP CONSTRAINT scenario_events_name_check;
ALTER TABLE scenario_events ADD CONSTRAINT scenario_events_name_check
  CHECK (name IN ('queued', 'running', 'progress', 'succeeded', 'failed', 'cancelled'));

-- A variant without hourly data stores only the statements without hourly arrays.
ALTER TABLE scenario_results ALTER COLUMN statements_gzip DROP NOT NULL;

-- The list item gains the sweep fields; a cancelled scenario is finished too.
CREATE OR REPLACE FUNCTION scenario_list_json(s scenarios) RETURNS text
LANGUAGE sql STABLE AS $$
  SELECT json_build_object(
    'id', s.id, 'name', s.name, 'status', s.status, 'progress', s.progress, 'stage', s.stage,
    'attempt', s.attempt, 'summary', s.summary, 'error', s.error,
    'created_at', to_char(s.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
    'updated_at', to_char(s.updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
    'started_at', to_char(s.started_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
    'finished_at', to_char(s.finished_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
    'sweep_id', s.sweep_id, 'variant_index', s.variant_index,
    'links', json_build_object(
      'self', '/api/scenarios/' || s.id,
      'events', '/api/scenarios/' || s.id || '/events',
      'statements', '/api/scenarios/' || s.id || '/statements')
  )::text
$$;

CREATE OR REPLACE FUNCTION scenarios_set_list_json() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  NEW.list_json := CASE WHEN NEW.status IN ('succeeded', 'failed', 'cancelled') THEN scenario_list_json(NEW) END;
  RETURN NEW;
END
$$;
DROP TRIGGER scenarios_list_json_insert ON scenarios;
DROP TRIGGER scenarios_list_json_update ON scenarios;
CREATE TRIGGER scenarios_list_json_insert BEFORE INSERT ON scenarios
  FOR EACH ROW WHEN (NEW.status IN ('succeeded', 'failed', 'cancelled')) EXECUTE FUNCTION scenarios_set_list_json();
CREATE TRIGGER scenarios_list_json_update BEFORE UPDATE ON scenarios
  FOR EACH ROW WHEN (NEW.status IN ('succeeded', 'failed', 'cancelled') OR OLD.list_json IS NOT NULL)
  EXECUTE FUNCTION scenarios_set_list_json();
UPDATE scenarios SET list_json = scenario_list_json(scenarios) WHERE list_json IS NOT NULL;

-- A sweep's event log: `variant` as each variant finishes, then `finished` once. Its seq is per
-- sweep, like a scenario's, so a stream resumes after Last-Event-ID with no gap and no duplicate.
CREATE TABLE sweep_events (
  sweep_id uuid NOT NULL REFERENCES sweeps (id) ON DELETE CASCADE,
  seq integer NOT NULL CHECK (seq > 0),
  name text NOT NULL CHECK (name IN ('variant', 'finished')),
  data json NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (sweep_id, seq)
);

-- Written by the statement that finishes a variant (save, fail, cancel), whoever runs it. The
-- sweep row is locked only from here to that statement's commit: the workers' saves of one sweep
-- take turns for that moment, not for their whole transactions. Counting the unfinished variants
-- after taking the lock sees every earlier finisher's commit, so exactly one writes `finished`.
CREATE FUNCTION sweep_variant_finished() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
  s integer;
  remaining integer;
BEGIN
  UPDATE sweeps SET last_seq = last_seq + 1 WHERE id = NEW.sweep_id RETURNING last_seq INTO s;
  INSERT INTO sweep_events (sweep_id, seq, name, data)
  VALUES (NEW.sweep_id, s, 'variant', json_build_object(
    'index', NEW.variant_index, 'scenario_id', NEW.id, 'status', NEW.status, 'kpis', NEW.summary));
  SELECT count(*) INTO remaining FROM scenarios
  WHERE sweep_id = NEW.sweep_id AND status IN ('queued', 'running');
  IF remaining = 0 THEN
    UPDATE sweeps SET last_seq = last_seq + 1, finished_at = now() WHERE id = NEW.sweep_id AND finished_at IS NULL
    RETURNING last_seq INTO s;
    IF FOUND THEN
      INSERT INTO sweep_events (sweep_id, seq, name, data)
      SELECT NEW.sweep_id, s, 'finished', json_build_object(
        'counts', json_build_object(
          'total', count(*),
          'succeeded', count(*) FILTER (WHERE status = 'succeeded'),
          'failed', count(*) FILTER (WHERE status = 'failed'),
          'cancelled', count(*) FILTER (WHERE status = 'cancelled')))
      FROM scenarios WHERE sweep_id = NEW.sweep_id;
    END IF;
  END IF;
  PERFORM pg_notify('sweep_' || replace(NEW.sweep_id::text, '-', ''), s::text);
  RETURN NULL;
END
$$;
CREATE TRIGGER scenarios_sweep_variant_finished AFTER UPDATE OF status ON scenarios
  FOR EACH ROW
  WHEN (NEW.sweep_id IS NOT NULL AND OLD.status IS DISTINCT FROM NEW.status
        AND NEW.status IN ('succeeded', 'failed', 'cancelled'))
  EXECUTE FUNCTION sweep_variant_finished();

-- For psql: each sweep with its counts, newest first.
CREATE VIEW sweep_progress AS
SELECT w.id, w.name, w.total,
       count(*) FILTER (WHERE s.status = 'queued') AS queued,
       count(*) FILTER (WHERE s.status = 'running') AS running,
       count(*) FILTER (WHERE s.status = 'succeeded') AS succeeded,
       count(*) FILTER (WHERE s.status = 'failed') AS failed,
       count(*) FILTER (WHERE s.status = 'cancelled') AS cancelled,
       round(count(*) FILTER (WHERE s.status IN ('succeeded', 'failed', 'cancelled'))::numeric / w.total, 3) AS progress,
       w.created_at, w.finished_at
FROM sweeps w JOIN scenarios s ON s.sweep_id = w.id
GROUP BY w.id
ORDER BY w.id DESC;

-- Queue depth by kind: single scenarios apart from sweep variants (which wait behind them).
DROP VIEW queue_depth;
CREATE VIEW queue_depth AS
SELECT CASE WHEN sweep_id IS NULL THEN 'scenario' ELSE 'sweep variant' END AS kind,
       status, count(*) AS scenarios, min(created_at) AS oldest
FROM scenarios
GROUP BY 1, 2;
