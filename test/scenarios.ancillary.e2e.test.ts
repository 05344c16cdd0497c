// Ancillary services through the real stack (docs/markets.md, "Ancillary services"): a scenario
// with a battery and two products runs in the worker (its engine thread loads HiGHS), and its
// statements carry a revenue line per product in every year (in the total), the KPI summing them,
// the hourly reservations (schema-valid, within the battery's power) and their CSV columns.
import { Value } from '@sinclair/typebox/value';
import t from 'tap';
import { HOURS_PER_YEAR } from '../shared/calendar.ts';
import { registerFormats } from '../shared/schemas/formats.ts';
import { ScenarioResult } from '../shared/schemas/result.ts';
import { getJson, postScenario } from './helpers/http.ts';
import { startStack } from './helpers/stack.ts';
import { waitUntil } from './helpers/wait.ts';

registerFormats();
const stack = await startStack({ workers: [{}] });
t.teardown(() => stack.stop());

t.test('two products: revenue lines, KPI, hourly reservations and CSV columns', async (t) => {
  const evening = Array.from({ length: HOURS_PER_YEAR }, (_, h) => (h % 24 >= 17 && h % 24 < 21 ? 14 : 4));
  const created = await postScenario(stack.web.baseUrl, {
    name: 'reserves',
    site: { latitude: 35.2, longitude: -101.8 },
    grid: { export_limit_mw: 120 },
    market: {
      merchant_hour_of_day_multipliers: Array.from({ length: 24 }, (_, h) => (h >= 17 && h < 21 ? 1.8 : 1)),
      ancillary: [
        { name: 'reg_up', direction: 'up', price_per_mw_hour: evening, duration_hours: 1, deployed_share: 0.1 },
        { name: 'reg_down', direction: 'down', price_per_mw_hour: 3, duration_hours: 0.5, escalation_percent: 2 },
      ],
    },
    storage: { power_mw: 20, energy_mwh: 60 },
  });
  t.equal(created.status, 201, JSON.stringify(created.json).slice(0, 300));
  const id = created.json.id as string;
  await waitUntil(
    async () => {
      const status = (await getJson(`${stack.web.baseUrl}/api/scenarios/${id}`)).json.status;
      if (status === 'failed') throw new Error('the scenario failed');
      return status === 'succeeded';
    },
    { timeoutMs: 180_000, what: 'the scenario to succeed' },
  );
  const st = (await getJson(`${stack.web.baseUrl}/api/scenarios/${id}/statements`)).json as ScenarioResult;
  t.ok(Value.Check(ScenarioResult, st), 'the statements match their schema');
  let sum = 0;
  for (const year of st.income_statement.filter((y) => y.year >= 1)) {
    const lines = year.revenue.ancillary ?? {};
    t.same(Object.keys(lines).sort(), ['reg_down', 'reg_up'], `year ${year.year}: a line per product`);
    const { ancillary, total, ...energy } = year.revenue;
    const parts = Object.values(energy).reduce((a, v) => a + (v ?? 0), 0);
    const reserves = Object.values(ancillary ?? {}).reduce((a, v) => a + v, 0);
    t.ok(
      Math.abs(parts + reserves - total) <= 1e-6 * Math.abs(total),
      `year ${year.year}: the lines add up to the total`,
    );
    sum += reserves;
  }
  t.ok((st.income_statement[1]?.revenue.ancillary?.reg_up ?? 0) > 0, 'the up product earns in year 1');
  t.ok(Math.abs((st.kpis.ancillary_revenue ?? 0) - sum) <= 1e-6 * sum, 'the KPI is the lines summed');
  const lifetime = st.income_statement.reduce((a, y) => a + y.revenue.total, 0);
  const b = st.revenue_breakdown;
  t.ok(Math.abs((b.by_source.ancillary ?? 0) - sum) <= 1e-6 * sum, 'the breakdown has them as a source');
  t.ok(Math.abs(b.total - lifetime) <= 1e-6 * lifetime, 'the breakdown’s total is every year’s total');
  const bySource = b.by_source.ppa + b.by_source.merchant + (b.by_source.ancillary ?? 0);
  t.ok(Math.abs(bySource - b.total) <= 1e-6 * lifetime, 'its sources add up to it');
  const up = st.storage_reserve_up_hourly ?? [];
  const down = st.storage_reserve_down_hourly ?? [];
  t.equal(up.length, 25, 'reservations up: 25 years');
  t.equal(down.length, 25, 'reservations down: 25 years');
  let highest = 0;
  let lowest = 0;
  for (const v of [...up.flat(), ...down.flat()]) {
    highest = Math.max(highest, v);
    lowest = Math.min(lowest, v);
  }
  t.ok(highest <= 20 + 1e-3 && lowest >= 0, `within the battery's 20 MW (${lowest} to ${highest})`);
  t.ok(up[0].some((v) => v > 0) && down[0].some((v) => v > 0), 'both directions reserved in year 1');
  // The down product is the only one of its direction and has no deployment: its line of year y is
  // Σ_h MW reserved × 3 × 1.02^(y − 1), from the hourly series (stored to 1 kWh an hour).
  for (const y of [1, 2, 25]) {
    const reserved = down[y - 1].reduce((a, v) => a + v, 0);
    const line = st.income_statement.find((row) => row.year === y)?.revenue.ancillary?.reg_down ?? Number.NaN;
    const expected = reserved * 3 * 1.02 ** (y - 1);
    t.ok(
      Math.abs(line - expected) <= 0.001 * HOURS_PER_YEAR * 3 * 1.02 ** 24,
      `year ${y}: reg_down ${line} = ${expected}`,
    );
  }
  const csv = await (await fetch(`${stack.web.baseUrl}/api/scenarios/${id}/statements?format=csv`)).text();
  t.match(csv.split('\n')[0], /,storage_reserve_up_mw,storage_reserve_down_mw$/, 'the CSV has both columns');
});
