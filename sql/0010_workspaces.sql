-- Workspaces: every scenario, sweep and optimization belongs to the workspace whose API key created
-- it (API_KEYS="acme:<key>,globex:<key>"); another workspace's rows are answered as unknown. What
-- was stored before belongs to `default`, the workspace of bare keys and of a deployment without
-- API_KEYS. A variant is in its parent's workspace. Idempotency-Keys are per workspace.
-- No default afterwards: every insert says whose row it is.

ALTER TABLE scenarios ADD COLUMN workspace text NOT NULL DEFAULT 'default';
ALTER TABLE scenarios ALTER COLUMN workspace DROP DEFAULT;
ALTER TABLE sweeps ADD COLUMN workspace text NOT NULL DEFAULT 'default';
ALTER TABLE sweeps ALTER COLUMN workspace DROP DEFAULT;
ALTER TABLE optimizations ADD COLUMN workspace text NOT NULL DEFAULT 'default';
ALTER TABLE optimizations ALTER COLUMN workspace DROP DEFAULT;

ALTER TABLE scenarios DROP CONSTRAINT scenarios_idempotency_key_key;
CREATE UNIQUE INDEX scenarios_workspace_idempotency_key_idx ON scenarios (workspace, idempotency_key)
  WHERE idempotency_key IS NOT NULL;
ALTER TABLE sweeps DROP CONSTRAINT sweeps_idempotency_key_key;
CREATE UNIQUE INDEX sweeps_workspace_idempotency_key_idx ON sweeps (workspace, idempotency_key)
  WHERE idempotency_key IS NOT NULL;
ALTER TABLE optimizations DROP CONSTRAINT optimizations_idempotency_key_key;
CREATE UNIQUE INDEX optimizations_workspace_idempotency_key_idx ON optimizations (workspace, idempotency_key)
  WHERE idempotency_key IS NOT NULL;

-- A workspace's lists, newest first (UUIDv7 ids are time-ordered).
CREATE INDEX scenarios_workspace_id_idx ON scenarios (workspace, id DESC);
CREATE INDEX sweeps_workspace_id_idx ON sweeps (workspace, id DESC);
CREATE INDEX optimizations_workspace_id_idx ON optimizations (workspace, id DESC);
-- Retention: finished resources by age.
CREATE INDEX scenarios_finished_at_idx ON scenarios (finished_at)
  WHERE finished_at IS NOT NULL AND sweep_id IS NULL AND optimization_id IS NULL;

-- The psql views show the workspace.
DROP VIEW stuck_scenarios;
DROP VIEW scenario_jobs;
CREATE VIEW scenario_jobs AS
SELECT
  s.id,
  s.workspace,
  s.name,
  s.status,
  round(s.progress::numeric, 3) AS progress,
  s.stage,
  s.attempt,
  j.state AS job_state,
  j.retry_count,
  j.retry_limit,
  s.created_at,
  j.started_on AS job_started_at,
  j.completed_on AS job_completed_at,
  s.finished_at,
  s.finished_at - s.created_at AS total_time,
  j.heartbeat_on AS job_heartbeat_at,
  s.error ->> 'code' AS error_code,
  s.error ->> 'message' AS error_message
FROM scenarios s
LEFT JOIN pgboss.job j ON j.id = s.id AND j.name = 'calculate';

CREATE VIEW stuck_scenarios AS
SELECT *
FROM scenario_jobs
WHERE status IN ('queued', 'running')
  AND (
    job_state IS NULL
    OR job_state IN ('failed', 'cancelled', 'completed')
    OR (job_state = 'active' AND coalesce(job_heartbeat_at, job_started_at) < now() - interval '2 minutes')
    OR (job_state IN ('created', 'retry') AND created_at < now() - interval '10 minutes')
  );

DROP VIEW queue_depth;
CREATE VIEW queue_depth AS
SELECT workspace,
       CASE WHEN sweep_id IS NOT NULL THEN 'sweep variant'
            WHEN optimization_id IS NOT NULL THEN 'optimization evaluation'
            ELSE 'scenario' END AS kind,
       status, count(*) AS scenarios, min(created_at) AS oldest
FROM scenarios
GROUP BY 1, 2, 3;

-- 0008's variant_finished reads sweep_progress (its `finished` counts): replaced in place, same
-- columns first, the workspace last.
CREATE OR REPLACE VIEW sweep_progress AS
SELECT w.id, w.name, w.total,
       count(*) FILTER (WHERE s.status = 'queued') AS queued,
       count(*) FILTER (WHERE s.status = 'running') AS running,
       count(*) FILTER (WHERE s.status = 'succeeded') AS succeeded,
       count(*) FILTER (WHERE s.status = 'failed') AS failed,
       count(*) FILTER (WHERE s.status = 'cancelled') AS cancelled,
       round(count(*) FILTER (WHERE s.status IN ('succeeded', 'failed', 'cancelled'))::numeric / w.total, 3) AS progress,
       w.created_at, w.finished_at, w.workspace
FROM sweeps w JOIN scenarios s ON s.sweep_id = w.id
GROUP BY w.id
ORDER BY w.id DESC;

CREATE OR REPLACE VIEW optimization_progress AS
SELECT o.id, o.name, o.status, o.rounds,
       count(s.id) FILTER (WHERE s.status IN ('succeeded', 'failed', 'cancelled')) AS evaluated,
       count(s.id) FILTER (WHERE s.status IN ('queued', 'running')) AS pending,
       count(s.id) FILTER (WHERE s.status = 'failed') AS failed,
       (o.request ->> 'max_evaluations')::integer AS max_evaluations,
       o.feasible, o.best_scenario_id,
       (SELECT b.summary FROM scenarios b WHERE b.id = o.best_scenario_id) AS best_kpis,
       o.created_at, o.finished_at, o.workspace
FROM optimizations o LEFT JOIN scenarios s ON s.optimization_id = o.id
GROUP BY o.id
ORDER BY o.id DESC;
