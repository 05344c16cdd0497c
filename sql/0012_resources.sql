-- The library: weather files, wind resource files and hourly series uploaded once per workspace,
-- addressed by their SHA-256 (the same bytes twice are one row), and referenced by scenarios,
-- sweeps and optimizations instead of carried inline.
CREATE TABLE resources (
  id uuid PRIMARY KEY,
  workspace text NOT NULL,
  name text NOT NULL,
  kind text NOT NULL CHECK (kind IN ('weather', 'wind_resource', 'hourly_series')),
  -- The detected format: sam_csv, epw, srw, series.
  format text NOT NULL,
  sha256 text NOT NULL CHECK (sha256 ~ '^[0-9a-f]{64}$'),
  bytes integer NOT NULL CHECK (bytes >= 0),
  -- The bytes as uploaded (a series: its canonical JSON).
  content bytea NOT NULL,
  -- What the file says (location, elevation, time zone, years, time step, heights) and its statistics.
  metadata json NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (workspace, sha256)
);
-- A workspace's list, newest first (UUIDv7 ids are time-ordered).
CREATE INDEX resources_workspace_id_idx ON resources (workspace, id DESC);

-- Who uses a resource: exactly one of a scenario, a sweep or an optimization per row. A user's
-- delete (by hand or by retention) takes its rows with it; a resource with rows cannot be deleted
-- (RESTRICT), so retention never removes a file something still uses.
CREATE TABLE resource_uses (
  resource_id uuid NOT NULL REFERENCES resources (id) ON DELETE RESTRICT,
  scenario_id uuid REFERENCES scenarios (id) ON DELETE CASCADE,
  sweep_id uuid REFERENCES sweeps (id) ON DELETE CASCADE,
  optimization_id uuid REFERENCES optimizations (id) ON DELETE CASCADE,
  CHECK (num_nonnulls(scenario_id, sweep_id, optimization_id) = 1)
);
CREATE UNIQUE INDEX resource_uses_user_idx
  ON resource_uses (resource_id, coalesce(scenario_id, sweep_id, optimization_id));
CREATE INDEX resource_uses_scenario_idx ON resource_uses (scenario_id) WHERE scenario_id IS NOT NULL;
CREATE INDEX resource_uses_sweep_idx ON resource_uses (sweep_id) WHERE sweep_id IS NOT NULL;
CREATE INDEX resource_uses_optimization_idx ON resource_uses (optimization_id) WHERE optimization_id IS NOT NULL;

-- psql: each resource with its users counted by kind.
CREATE VIEW resource_users AS
SELECT
  r.id,
  r.workspace,
  r.name,
  r.kind,
  r.format,
  r.bytes,
  r.created_at,
  count(u.scenario_id) AS scenarios,
  count(u.sweep_id) AS sweeps,
  count(u.optimization_id) AS optimizations,
  count(u.resource_id) AS users
FROM resources r
LEFT JOIN resource_uses u ON u.resource_id = r.id
GROUP BY r.id;
