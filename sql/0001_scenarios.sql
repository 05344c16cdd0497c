-- Scenarios, their event log and their results. pgboss.* belongs to pg-boss.
CREATE TABLE scenarios (
  id uuid PRIMARY KEY,
  name text NOT NULL,
  status text NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'running', 'succeeded', 'failed')),
  progress real NOT NULL DEFAULT 0 CHECK (progress BETWEEN 0 AND 1),
  stage text,
  attempt integer NOT NULL DEFAULT 0,
  inputs jsonb NOT NULL,
  summary jsonb,
  error jsonb,
  -- The seq of the newest event; bumping it in the event's transaction serializes writers per scenario.
  last_seq integer NOT NULL DEFAULT 0,
  idempotency_key text UNIQUE,
  -- sha256 of the request body that used idempotency_key, to refuse a different body under the same key.
  request_hash text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  started_at timestamptz,
  finished_at timestamptz
);

-- UUIDv7 ids are time-ordered, so "newest first" is an index scan on the primary key.
CREATE INDEX scenarios_status_idx ON scenarios (status) WHERE status IN ('queued', 'running');

CREATE TABLE scenario_events (
  scenario_id uuid NOT NULL REFERENCES scenarios (id) ON DELETE CASCADE,
  seq integer NOT NULL CHECK (seq > 0),
  name text NOT NULL CHECK (name IN ('queued', 'running', 'progress', 'succeeded', 'failed')),
  data jsonb NOT NULL DEFAULT '{}',
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (scenario_id, seq)
);

-- Immutable once written: one row per succeeded scenario.
CREATE TABLE scenario_results (
  scenario_id uuid PRIMARY KEY REFERENCES scenarios (id) ON DELETE CASCADE,
  etag text NOT NULL,
  -- The statements JSON with hourly arrays, gzip-compressed, served as bytes.
  statements_gzip bytea NOT NULL,
  -- The statements JSON without hourly arrays (?hourly=false), gzip-compressed. CSV is made from
  -- statements_gzip: a separate binary copy of the hourly series would double the disk per scenario.
  statements_lite_gzip bytea NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
ALTER TABLE scenario_results ALTER COLUMN statements_gzip SET STORAGE EXTERNAL;
ALTER TABLE scenario_results ALTER COLUMN statements_lite_gzip SET STORAGE EXTERNAL;
