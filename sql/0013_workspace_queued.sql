-- A workspace's queued scenarios, counted by its queued_variants quota on a create (server/quotas.ts)
-- and by fair share's round of its next variants (shared/fair.share.ts): without this index both
-- read every queued scenario of every workspace.
CREATE INDEX scenarios_workspace_queued_idx ON scenarios (workspace) WHERE status = 'queued';
