-- Read-only views for operators in psql. They read pgboss.job and never write it.
CREATE VIEW scenario_jobs AS
SELECT
  s.id,
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

-- Scenarios that are not finished but whose job is not moving.
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

CREATE VIEW queue_depth AS
SELECT status, count(*) AS scenarios, min(created_at) AS oldest
FROM scenarios
GROUP BY status;
