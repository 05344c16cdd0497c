-- PVWatts v8 arrives as solar.model, and new scenarios default to it. Everything stored before
-- was calculated with PVWatts v5 and must say so, so that re-posting its inputs reproduces its
-- result, and so that an optimization created before this migration keeps writing v5 rounds:
-- scenarios' inputs, sweeps' base and optimizations' request base get "model": "pvwatts_v5" as
-- the first key of their solar object (or a solar object with only that, when the base has none).
-- The columns are `json`: the objects are rebuilt key by key in their order, and every other value
-- keeps its text as written.

CREATE FUNCTION pg_temp.solar_v5(inputs json) RETURNS json LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE
    WHEN json_typeof(inputs) <> 'object' THEN inputs
    WHEN inputs -> 'solar' IS NULL THEN (
      SELECT json_object_agg(key, value ORDER BY ord)
      FROM (
        SELECT key, value, ord FROM json_each(inputs) WITH ORDINALITY AS e(key, value, ord)
        UNION ALL SELECT 'solar', json_build_object('model', 'pvwatts_v5'), 1e9
      ) AS keys
    )
    WHEN json_typeof(inputs -> 'solar') <> 'object' OR inputs -> 'solar' -> 'model' IS NOT NULL THEN inputs
    ELSE (
      SELECT json_object_agg(
        key,
        CASE WHEN key = 'solar' THEN (
          SELECT json_object_agg(k, v ORDER BY o)
          FROM (
            SELECT 'model' AS k, to_json('pvwatts_v5'::text) AS v, 0::bigint AS o
            UNION ALL SELECT key, value, ord FROM json_each(e.value) WITH ORDINALITY AS s(key, value, ord)
          ) AS solar
        ) ELSE value END
        ORDER BY ord
      )
      FROM json_each(inputs) WITH ORDINALITY AS e(key, value, ord)
    )
  END
$$;

UPDATE scenarios SET inputs = pg_temp.solar_v5(inputs)
WHERE inputs -> 'solar' IS NULL OR inputs -> 'solar' -> 'model' IS NULL;

UPDATE sweeps SET base = pg_temp.solar_v5(base)
WHERE base -> 'solar' IS NULL OR base -> 'solar' -> 'model' IS NULL;

UPDATE optimizations SET request = (
  SELECT json_object_agg(key, CASE WHEN key = 'base' THEN pg_temp.solar_v5(value) ELSE value END ORDER BY ord)
  FROM json_each(request) WITH ORDINALITY AS e(key, value, ord)
)
WHERE request -> 'base' IS NOT NULL
  AND (request -> 'base' -> 'solar' IS NULL OR request -> 'base' -> 'solar' -> 'model' IS NULL);
