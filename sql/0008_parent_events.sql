-- A sweep and an optimization are one concept: a parent of variant scenarios. Their events are now
-- written one way. parent_event appends one event to the parent's log (sweep_events or
-- optimization_events), bumps the parent's last_seq and notifies its channel (sweep_<id hex>,
-- optimization_<id hex>); one trigger function writes a variant's event when it finishes, for
-- either kind. It replaces 0006's sweep_variant_finished and 0007's optimization_event and
-- optimization_evaluation_finished, whose rules it keeps:
-- - a sweep's `variant` event as each variant finishes, and `finished` after the last one's (its
--   event count reaching `total` decides, whichever statement finishes it: 0006's reason);
-- - an optimization's `evaluation` event as each evaluation finishes or is inserted failed (a
--   point that failed validation); its `improved` and `finished` come from the search step.
-- The parent's row is locked from the event's UPDATE to the statement's commit, so the finishing
-- variants of one parent take turns for that moment only.

CREATE FUNCTION parent_event(kind text, parent uuid, event text, payload json) RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE
  s integer;
BEGIN
  IF kind NOT IN ('sweep', 'optimization') THEN
    RAISE EXCEPTION 'parent_event: no parent of kind %', kind;
  END IF;
  EXECUTE format('UPDATE %I SET last_seq = last_seq + 1 WHERE id = $1 RETURNING last_seq', kind || 's')
    INTO s USING parent;
  IF s IS NULL THEN
    RETURN NULL;
  END IF;
  EXECUTE format('INSERT INTO %I (%I, seq, name, data) VALUES ($1, $2, $3, $4)', kind || '_events', kind || '_id')
    USING parent, s, event, payload;
  PERFORM pg_notify(kind || '_' || replace(parent::text, '-', ''), s::text);
  RETURN s;
END
$$;

CREATE FUNCTION variant_finished() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
  s integer;
BEGIN
  IF NEW.optimization_id IS NOT NULL THEN
    PERFORM parent_event('optimization', NEW.optimization_id, 'evaluation', json_build_object(
      'index', NEW.variant_index, 'round', NEW.optimization_round, 'scenario_id', NEW.id, 'status', NEW.status,
      'values', NEW.variant_values, 'kpis', NEW.summary, 'totals', NEW.totals));
    RETURN NULL;
  END IF;
  s := parent_event('sweep', NEW.sweep_id, 'variant', json_build_object(
    'index', NEW.variant_index, 'scenario_id', NEW.id, 'status', NEW.status, 'kpis', NEW.summary));
  -- The last variant's event: the sweep has finished (once).
  UPDATE sweeps SET finished_at = now() WHERE id = NEW.sweep_id AND finished_at IS NULL AND last_seq >= total;
  IF FOUND THEN
    PERFORM parent_event('sweep', NEW.sweep_id, 'finished', (
      SELECT json_build_object('counts', json_build_object(
        'total', p.total, 'succeeded', p.succeeded, 'failed', p.failed, 'cancelled', p.cancelled))
      FROM sweep_progress p WHERE p.id = NEW.sweep_id));
  END IF;
  RETURN NULL;
END
$$;

DROP TRIGGER scenarios_sweep_variant_finished ON scenarios;
DROP TRIGGER scenarios_optimization_evaluation_finished ON scenarios;
DROP TRIGGER scenarios_optimization_evaluation_invalid ON scenarios;
DROP FUNCTION sweep_variant_finished();
DROP FUNCTION optimization_evaluation_finished();
DROP FUNCTION optimization_event(uuid, text, json);

-- A variant finishes once: from queued or running to a terminal status.
CREATE TRIGGER scenarios_variant_finished AFTER UPDATE OF status ON scenarios
  FOR EACH ROW
  WHEN ((NEW.sweep_id IS NOT NULL OR NEW.optimization_id IS NOT NULL)
        AND OLD.status IN ('queued', 'running') AND NEW.status IN ('succeeded', 'failed', 'cancelled'))
  EXECUTE FUNCTION variant_finished();
-- Or it is inserted finished: an optimization's point that failed validation.
CREATE TRIGGER scenarios_variant_inserted_finished AFTER INSERT ON scenarios
  FOR EACH ROW
  WHEN (NEW.optimization_id IS NOT NULL AND NEW.status = 'failed')
  EXECUTE FUNCTION variant_finished();
