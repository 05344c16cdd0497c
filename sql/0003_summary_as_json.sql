-- The scenario's summary is written once (with `succeeded`) and read whole, never queried inside.
-- `json` keeps the text as written: listing reads it back as is, where `jsonb` re-prints every
-- number on every read (about half of the SQL time of a 100,000-scenario list), and the KPIs keep
-- the engine's key order.
ALTER TABLE scenarios ALTER COLUMN summary TYPE json USING summary::json;
