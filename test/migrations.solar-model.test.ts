// sql/0009_solar_model.sql: what was stored before PVWatts v8 existed says pvwatts_v5 (scenarios'
// inputs, sweeps' base, optimizations' request base), keeps every other value's text and key order,
// and a stored v5 scenario's inputs, posted again, calculate byte for byte as before (the digest
// of test/engine.solar.v5.digest.test.ts, taken on the commit before v8).

import { createHash } from 'node:crypto';
import t from 'tap';
import { resolveInputs } from '../shared/inputs.resolve.ts';
import { inlineOnly } from '../shared/resources.refs.ts';
import { validateScenario } from '../shared/validate.ts';
import { calculate } from '../worker/engine/index.ts';
import { resolvedInputs } from './fixtures/inputs.ts';
import { applyMigration, createTestDatabase } from './helpers/db.ts';

const db = await createTestDatabase();
t.teardown(() => db.drop());

// The default scenario as a pre-v8 create stored it: resolved, without the inputs v8 added.
const v5Era = (() => {
  const {
    model: _m,
    bifaciality: _b,
    ground_clearance_m: _g,
    snow_model: _s,
    ...solar
  } = resolvedInputs({
    solar: { model: 'pvwatts_v5' },
  }).solar;
  return { ...resolvedInputs({ solar: { model: 'pvwatts_v5' } }), solar };
})();
const V5_DEFAULT_DIGEST = '309f7531e2942ef0de159aac5b7118b0417569671f2606ff4ce1436a38a1a074';

t.test('the migration marks what was stored as v5, and only that', async (t) => {
  const oldId = '01936f3e-0000-7000-8000-0000000000a1';
  const newId = '01936f3e-0000-7000-8000-0000000000a2';
  // Rows as a database at 0008 held them, in the workspace sql/0010 gives them.
  await db.pool.query(
    "INSERT INTO scenarios (id, name, inputs, workspace) VALUES ($1, $2, $3, 'default'), ($4, $5, $6, 'default')",
    [
      oldId,
      'stored before v8',
      JSON.stringify(v5Era),
      newId,
      'a v8 one',
      '{"name":"n","solar":{"model":"pvwatts_v8","dc_ac_ratio":1.2000000476837158}}',
    ],
  );
  await db.pool.query(
    `INSERT INTO sweeps (id, name, base, vary, combine, keep_hourly, parameters, total, workspace)
     VALUES ('01936f3e-0000-7000-8000-0000000000b1', 's', '{"site":{"latitude":35.2,"longitude":-101.8}}', '[]', 'grid', false, '[]', 1, 'default')`,
  );
  await db.pool.query(
    `INSERT INTO optimizations (id, name, request, workspace)
     VALUES ('01936f3e-0000-7000-8000-0000000000c1', 'o', '{"name":"o","base":{"solar":{"gcr":0.3e0}},"max_evaluations":8}', 'default')`,
  );
  await applyMigration(db.pool, '0009_solar_model.sql');
  const rows = await db.pool.query<{ id: string; inputs: Record<string, unknown>; text: string }>(
    'SELECT id, inputs, inputs::text AS text FROM scenarios ORDER BY id',
  );
  const [old, fresh] = rows.rows;
  const oldSolar = old.inputs.solar as Record<string, unknown>;
  t.equal(oldSolar.model, 'pvwatts_v5', 'a stored scenario says pvwatts_v5');
  t.same(Object.keys(oldSolar), ['model', ...Object.keys(v5Era.solar)], 'model first, then the keys in their order');
  t.same(Object.keys(old.inputs), Object.keys(v5Era), 'the inputs keep their key order');
  t.equal(fresh.text, '{"name":"n","solar":{"model":"pvwatts_v8","dc_ac_ratio":1.2000000476837158}}', 'v8 untouched');
  const sweep = await db.pool.query<{ base: { solar: unknown } }>('SELECT base FROM sweeps');
  t.same(sweep.rows[0].base.solar, { model: 'pvwatts_v5' }, "a sweep's base without solar gets one");
  const opt = await db.pool.query<{ text: string }>('SELECT request::text AS text FROM optimizations');
  t.match(
    opt.rows[0].text,
    /"solar" : \{ "model" : "pvwatts_v5", "gcr" : 0\.3e0 \}/,
    "an optimization's base, its numbers as written",
  );
  t.match(opt.rows[0].text, /"max_evaluations" : 8/, 'and the rest of the request');

  // Re-posting the stored inputs reproduces the v5 result.
  const checked = validateScenario(old.inputs);
  t.ok(checked.ok, 'the stored inputs are valid as posted again');
  if (!checked.ok) return;
  const again = resolveInputs(checked.value, { scenarioId: old.id, now: new Date('2026-06-15T12:00:00Z') });
  t.equal(again.solar.model, 'pvwatts_v5');
  const digest = createHash('sha256')
    .update(JSON.stringify(calculate(inlineOnly(again))))
    .digest('hex');
  t.equal(digest, V5_DEFAULT_DIGEST, 'the same bytes as before v8 existed');
});
