-- A sweep's `finished` event comes after every `variant` event. 0005 wrote it when no variant
-- was left queued or running; but a statement that finishes many variants at once (a cancel)
-- runs this row trigger once per row after the whole statement, so the first run already saw
-- none left and wrote `finished` before the other rows' `variant` events. Now the event count
-- decides: each variant finishes once (from queued or running) and writes one event, so the
-- sweep's last_seq reaches `total` with the last variant's event, whichever statement writes it.
CREATE OR REPLACE FUNCTION sweep_variant_finished() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
  channel text := 'sweep_' || replace(NEW.sweep_id::text, '-', '');
  s integer;
  n integer;
BEGIN
  UPDATE sweeps SET last_seq = last_seq + 1 WHERE id = NEW.sweep_id RETURNING last_seq, total INTO s, n;
  INSERT INTO sweep_events (sweep_id, seq, name, data)
  VALUES (NEW.sweep_id, s, 'variant', json_build_object(
    'index', NEW.variant_index, 'scenario_id', NEW.id, 'status', NEW.status, 'kpis', NEW.summary));
  -- Not the last variant's event: nothing more to write.
  IF s < n THEN
    PERFORM pg_notify(channel, s::text);
    RETURN NULL;
  END IF;
  UPDATE sweeps SET last_seq = last_seq + 1, finished_at = now() WHERE id = NEW.sweep_id AND finished_at IS NULL
  RETURNING last_seq INTO s;
  IF FOUND THEN
    -- The counts as psql's sweep_progress view gives them.
    INSERT INTO sweep_events (sweep_id, seq, name, data)
    SELECT p.id, s, 'finished', json_build_object('counts', json_build_object(
      'total', p.total, 'succeeded', p.succeeded, 'failed', p.failed, 'cancelled', p.cancelled))
    FROM sweep_progress p WHERE p.id = NEW.sweep_id;
  END IF;
  PERFORM pg_notify(channel, s::text);
  RETURN NULL;
END
$$;

DROP TRIGGER scenarios_sweep_variant_finished ON scenarios;
CREATE TRIGGER scenarios_sweep_variant_finished AFTER UPDATE OF status ON scenarios
  FOR EACH ROW
  WHEN (NEW.sweep_id IS NOT NULL AND OLD.status IN ('queued', 'running')
        AND NEW.status IN ('succeeded', 'failed', 'cancelled'))
  EXECUTE FUNCTION sweep_variant_finished();
