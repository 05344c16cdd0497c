-- Optimizations: a search for the best design in a box. Each evaluation is an ordinary scenario
-- (optimization_id, variant_index = its evaluation index, optimization_round), queued and claimed
-- like a sweep's variants. The search step (the worker that finishes a round's last evaluation)
-- writes the next round, or the end; the evaluations' counts are counted, never stored.

CREATE TABLE optimizations (
  id uuid PRIMARY KEY,
  name text NOT NULL,
  -- The request as accepted, with its defaults (base, variables, objective, constraints, max_evaluations).
  request json NOT NULL,
  status text NOT NULL DEFAULT 'running' CHECK (status IN ('running', 'succeeded', 'cancelled')),
  -- Rounds written so far; the step that writes round r + 1 moves it from r (one step wins).
  rounds integer NOT NULL DEFAULT 1 CHECK (rounds > 0),
  best_scenario_id uuid,
  -- Whether any evaluation met every constraint.
  feasible boolean NOT NULL DEFAULT false,
  idempotency_key text UNIQUE,
  request_hash text,
  -- The seq of the newest optimization event.
  last_seq integer NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL DEFAULT now(),
  finished_at timestamptz
);

ALTER TABLE scenarios
  ADD COLUMN optimization_id uuid REFERENCES optimizations (id) ON DELETE CASCADE,
  ADD COLUMN optimization_round integer;
-- A round's insert is idempotent: an evaluation index is written once.
CREATE UNIQUE INDEX scenarios_optimization_evaluation_idx ON scenarios (optimization_id, variant_index)
  WHERE optimization_id IS NOT NULL;
CREATE INDEX scenarios_optimization_unfinished_idx ON scenarios (optimization_id)
  WHERE optimization_id IS NOT NULL AND status IN ('queued', 'running');

-- An optimization's event log: `evaluation` as each point finishes, `improved` when a round's end
-- finds a better design, `finished` once. Per-optimization seq, so a stream resumes with no gap.
CREATE TABLE optimization_events (
  optimization_id uuid NOT NULL REFERENCES optimizations (id) ON DELETE CASCADE,
  seq integer NOT NULL CHECK (seq > 0),
  name text NOT NULL CHECK (name IN ('evaluation', 'improved', 'finished')),
  data json NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (optimization_id, seq)
);

-- Appends one event and notifies the optimization's channel; returns its seq.
CREATE FUNCTION optimization_event(o uuid, event text, payload json) RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE
  s integer;
BEGIN
  UPDATE optimizations SET last_seq = last_seq + 1 WHERE id = o RETURNING last_seq INTO s;
  INSERT INTO optimization_events (optimization_id, seq, name, data) VALUES (o, s, event, payload);
  PERFORM pg_notify('optimization_' || replace(o::text, '-', ''), s::text);
  RETURN s;
END
$$;

-- Written by the statement that finishes an evaluation (save, fail, cancel), or inserts one that
-- failed validation, whoever runs it.
CREATE FUNCTION optimization_evaluation_finished() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM optimization_event(NEW.optimization_id, 'evaluation', json_build_object(
    'index', NEW.variant_index, 'round', NEW.optimization_round, 'scenario_id', NEW.id, 'status', NEW.status,
    'values', NEW.variant_values, 'kpis', NEW.summary, 'totals', NEW.totals));
  RETURN NULL;
END
$$;
CREATE TRIGGER scenarios_optimization_evaluation_finished AFTER UPDATE OF status ON scenarios
  FOR EACH ROW
  WHEN (NEW.optimization_id IS NOT NULL AND OLD.status IN ('queued', 'running')
        AND NEW.status IN ('succeeded', 'failed', 'cancelled'))
  EXECUTE FUNCTION optimization_evaluation_finished();
CREATE TRIGGER scenarios_optimization_evaluation_invalid AFTER INSERT ON scenarios
  FOR EACH ROW
  WHEN (NEW.optimization_id IS NOT NULL AND NEW.status = 'failed')
  EXECUTE FUNCTION optimization_evaluation_finished();

-- For psql: each optimization's progress and best design, newest first.
CREATE VIEW optimization_progress AS
SELECT o.id, o.name, o.status, o.rounds,
       count(s.id) FILTER (WHERE s.status IN ('succeeded', 'failed', 'cancelled')) AS evaluated,
       count(s.id) FILTER (WHERE s.status IN ('queued', 'running')) AS pending,
       count(s.id) FILTER (WHERE s.status = 'failed') AS failed,
       (o.request ->> 'max_evaluations')::integer AS max_evaluations,
       o.feasible, o.best_scenario_id,
       (SELECT b.summary FROM scenarios b WHERE b.id = o.best_scenario_id) AS best_kpis,
       o.created_at, o.finished_at
FROM optimizations o LEFT JOIN scenarios s ON s.optimization_id = o.id
GROUP BY o.id
ORDER BY o.id DESC;

-- Queue depth by kind: optimization evaluations wait with the sweep variants.
DROP VIEW queue_depth;
CREATE VIEW queue_depth AS
SELECT CASE WHEN sweep_id IS NOT NULL THEN 'sweep variant'
            WHEN optimization_id IS NOT NULL THEN 'optimization evaluation'
            ELSE 'scenario' END AS kind,
       status, count(*) AS scenarios, min(created_at) AS oldest
FROM scenarios
GROUP BY 1, 2;
