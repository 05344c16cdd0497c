// Capacity and curtailment payments through the real HTTP API: bad input is a 400 problem+json
// naming the field with nothing written; the OpenAPI request schema describes the new fields and
// refuses what the schema can say; a scenario with both payments is calculated by a real worker and
// its statements, its summary and the list carry the lines, the curtailed MWh and the KPI.
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import t from 'tap';
import { HOURS_PER_YEAR } from '../shared/calendar.ts';
import { type BadInput, rejectsEach } from './helpers/bad-input.ts';
import { DEFAULT_SCENARIO, getJson, postScenario } from './helpers/http.ts';
import { startStack, withProcessLogs } from './helpers/stack.ts';
import { waitUntil } from './helpers/wait.ts';

const stack = await startStack({ workers: [{}] });
t.teardown(() => stack.stop());

type Scenario = { status: string; kpis: Record<string, number | null> | null };

/** The scenario once it has succeeded or failed. */
async function finished(id: string): Promise<Scenario> {
  let scenario: Scenario | undefined;
  await waitUntil(
    async () => {
      scenario = (await getJson(`${stack.web.baseUrl}/api/scenarios/${id}`)).json as Scenario;
      return scenario.status === 'succeeded' || scenario.status === 'failed';
    },
    { timeoutMs: 60_000, what: `scenario ${id} to finish` },
  );
  return scenario as Scenario;
}

const series = (n: number, v: (h: number) => number = () => 100) => Array.from({ length: n }, (_, h) => v(h));
const capacity = (credit: Record<string, unknown>, more: Record<string, unknown> = {}) => ({
  ...DEFAULT_SCENARIO,
  market: { capacity: { price_per_mw_year: 50_000, credit, ...more } },
});
const operator = (values: number[], more: Record<string, unknown> = {}) => ({
  ...DEFAULT_SCENARIO,
  grid: { export_limit_mw: 150, export_limit_hourly_mw: values },
  ...more,
});

const cases: BadInput[] = [
  {
    name: 'a system load of 8,759 values',
    body: capacity({ top_hours: 100, system_load_mw: series(HOURS_PER_YEAR - 1) }),
    path: '/market/capacity/credit/system_load_mw',
  },
  {
    name: 'a negative capacity price',
    body: { ...DEFAULT_SCENARIO, market: { capacity: { price_per_mw_year: -1, credit: { percent: 50 } } } },
    path: '/market/capacity/price_per_mw_year',
  },
  { name: 'a capacity credit of 101 %', body: capacity({ percent: 101 }), path: '/market/capacity/credit/percent' },
  {
    name: 'a credit both given and by rule',
    body: capacity({ percent: 50, top_hours: 100, system_load_mw: series(HOURS_PER_YEAR) }),
    path: '/market/capacity/credit',
    message: /not both/,
  },
  { name: 'a credit neither given nor by rule', body: capacity({}), path: '/market/capacity/credit' },
  {
    name: 'top hours without a system load',
    body: capacity({ top_hours: 100 }),
    path: '/market/capacity/credit/system_load_mw',
  },
  {
    name: 'a system load without top hours',
    body: capacity({ system_load_mw: series(HOURS_PER_YEAR) }),
    path: '/market/capacity/credit/top_hours',
  },
  {
    name: 'top hours 0',
    body: capacity({ top_hours: 0, system_load_mw: series(HOURS_PER_YEAR) }),
    path: '/market/capacity/credit/top_hours',
  },
  {
    name: 'top hours 8,761',
    body: capacity({ top_hours: HOURS_PER_YEAR + 1, system_load_mw: series(HOURS_PER_YEAR) }),
    path: '/market/capacity/credit/top_hours',
  },
  {
    name: 'no capacity price',
    body: { ...DEFAULT_SCENARIO, market: { capacity: { credit: { percent: 5 } } } },
    path: '/market/capacity/price_per_mw_year',
  },
  {
    name: "an operator's series of 8,761 values",
    body: operator(series(HOURS_PER_YEAR + 1)),
    path: '/grid/export_limit_hourly_mw',
  },
  {
    name: "a negative hour in the operator's series",
    body: operator(series(HOURS_PER_YEAR, (h) => (h === 17 ? -5 : 100))),
    path: '/grid/export_limit_hourly_mw/17',
  },
  {
    name: 'a curtailment payment without the series',
    body: { ...DEFAULT_SCENARIO, market: { curtailment_payment_per_mwh: 10 } },
    path: '/market/curtailment_payment_per_mwh',
    message: /export_limit_hourly_mw/,
  },
  {
    name: 'a negative curtailment payment',
    body: operator(series(HOURS_PER_YEAR), { market: { curtailment_payment_per_mwh: -10 } }),
    path: '/market/curtailment_payment_per_mwh',
  },
];

rejectsEach(t, stack, cases);

t.test('the OpenAPI request schema describes the payments and refuses what it can say', async (t) => {
  const doc = (await getJson(`${stack.web.baseUrl}/openapi.json`)).json as {
    components: { schemas: Record<string, Record<string, unknown>> };
  };
  const request = doc.components.schemas.ScenarioRequest as {
    properties: Record<
      string,
      { properties: Record<string, { description?: string; properties?: Record<string, unknown> }> }
    >;
  };
  const market = request.properties.market.properties;
  t.match(market.capacity.description, /price × \(1 \+ escalation\)/, 'market.capacity is documented');
  t.ok(market.capacity.properties?.credit, 'with its credit');
  t.match(market.curtailment_payment_per_mwh.description, /curtailed by the operator/);
  t.match(request.properties.grid.properties.export_limit_hourly_mw.description, /lesser of this and export_limit_mw/);
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats.default(ajv);
  ajv.addSchema(doc, 'openapi.json');
  const check = ajv.getSchema('openapi.json#/components/schemas/ScenarioRequest');
  if (!check) throw new Error('no ScenarioRequest');
  t.ok(check(capacity({ percent: 40 })), 'a given credit is valid');
  t.ok(
    check(operator(series(HOURS_PER_YEAR), { market: { curtailment_payment_per_mwh: 5 } })),
    'a paid series is valid',
  );
  for (const c of cases.slice(0, 3).concat(cases.slice(7, 12))) t.notOk(check(c.body), `the schema refuses ${c.name}`);
});

t.test('a scenario with both payments: the lines, the MWh, the KPI in its summary and the list', async (t) => {
  await withProcessLogs(t, stack, async () => {
    // The operator halves the 150 MW limit in the afternoon of June's days.
    const june = (h: number) => h >= 151 * 24 && h < 181 * 24 && h % 24 >= 11 && h % 24 < 17;
    const created = await postScenario(stack.web.baseUrl, {
      ...DEFAULT_SCENARIO,
      name: 'payments',
      grid: { export_limit_mw: 150, export_limit_hourly_mw: series(HOURS_PER_YEAR, (h) => (june(h) ? 75 : 150)) },
      market: {
        capacity: { price_per_mw_year: 80_000, escalation_percent: 2, credit: { percent: 35 } },
        curtailment_payment_per_mwh: 20,
      },
    });
    t.equal(created.status, 201, JSON.stringify(created.json).slice(0, 300));
    const id = created.json.id as string;
    const scenario = await finished(id);
    t.equal(scenario?.status, 'succeeded');
    t.equal(scenario?.kpis?.capacity_credit_percent, 35, "the KPI in the scenario's summary");
    const list = (await getJson(`${stack.web.baseUrl}/api/scenarios?limit=10`)).json as {
      items: Array<{ id: string; kpis: Record<string, number | null> | null }>;
    };
    t.equal(list.items.find((s) => s.id === id)?.kpis?.capacity_credit_percent, 35, 'and in the list');
    const st = (await getJson(`${stack.web.baseUrl}/api/scenarios/${id}/statements?hourly=false`)).json as {
      annual: Array<{ curtailed_mwh: number; curtailed_by_operator_mwh?: number }>;
      income_statement: Array<{ revenue: Record<string, number> }>;
    };
    // The default plant (183.3 MW of nameplate) is accredited on the 150 MW limit.
    for (const y of [1, 3, 25]) {
      const expected = 80_000 * 1.02 ** (y - 1) * 0.35 * 150;
      t.ok(Math.abs(st.income_statement[y - 1].revenue.capacity - expected) < 1e-6, `year ${y}: capacity ${expected}`);
    }
    const operatorMwh = st.annual[0].curtailed_by_operator_mwh ?? 0;
    t.ok(operatorMwh > 0, `the operator curtailed ${operatorMwh} MWh in year 1`);
    t.ok(operatorMwh <= st.annual[0].curtailed_mwh, 'within all that was curtailed');
    t.ok(
      Math.abs(st.income_statement[0].revenue.curtailment_payment - 20 * operatorMwh) < 1e-6,
      'year 1: 20 per MWh the operator curtailed',
    );
  });
});

t.test("the operator's series with a battery: accepted, and paid only what the battery did not store", async (t) => {
  await withProcessLogs(t, stack, async () => {
    const june = (h: number) => h >= 151 * 24 && h < 181 * 24 && h % 24 >= 11 && h % 24 < 17;
    const body = (storage: boolean) => ({
      ...DEFAULT_SCENARIO,
      name: storage ? 'operator with a battery' : 'operator without a battery',
      seed: 7, // the same weather for both
      grid: { export_limit_mw: 150, export_limit_hourly_mw: series(HOURS_PER_YEAR, (h) => (june(h) ? 75 : 150)) },
      market: { curtailment_payment_per_mwh: 20 },
      storage: { power_mw: storage ? 30 : 0, energy_mwh: 120 },
    });
    const year1 = async (storage: boolean) => {
      const created = await postScenario(stack.web.baseUrl, body(storage));
      t.equal(created.status, 201, JSON.stringify(created.json).slice(0, 300));
      const id = created.json.id as string;
      t.equal((await finished(id))?.status, 'succeeded');
      const st = (await getJson(`${stack.web.baseUrl}/api/scenarios/${id}/statements?hourly=false`)).json as {
        annual: Array<{ curtailed_by_operator_mwh?: number }>;
        income_statement: Array<{ revenue: Record<string, number> }>;
      };
      return { mwh: st.annual[0].curtailed_by_operator_mwh ?? Number.NaN, paid: st.income_statement[0].revenue };
    };
    const without = await year1(false);
    const withBattery = await year1(true);
    t.ok(without.mwh > 0, `without a battery the operator cuts ${without.mwh} MWh in year 1`);
    t.ok(withBattery.mwh < without.mwh, `with one, ${withBattery.mwh} MWh stay curtailed`);
    t.ok(
      Math.abs(withBattery.paid.curtailment_payment - 20 * withBattery.mwh) < 1e-6,
      'year 1: 20 per MWh finally curtailed',
    );
  });
});

t.test(
  "HOPP's rule through the API: constant output at half the nameplate, a 50 % credit in the summary",
  async (t) => {
    await withProcessLogs(t, stack, async () => {
      const created = await postScenario(stack.web.baseUrl, {
        ...DEFAULT_SCENARIO,
        name: 'constant output',
        solar: { capacity_mw_dc: 0 },
        wind: { capacity_mw: 100, profile: { hourly_mw: series(HOURS_PER_YEAR, () => 50), for_capacity_mw: 100 } },
        market: {
          capacity: {
            price_per_mw_year: 40_000,
            credit: { top_hours: 100, system_load_mw: series(HOURS_PER_YEAR, (h) => 900 + ((h * 37) % 500)) },
          },
        },
      });
      t.equal(created.status, 201, JSON.stringify(created.json).slice(0, 300));
      const id = created.json.id as string;
      const scenario = await finished(id);
      t.equal(scenario?.kpis?.capacity_credit_percent, 50, '50 %');
      const st = (await getJson(`${stack.web.baseUrl}/api/scenarios/${id}/statements?hourly=false`)).json as {
        income_statement: Array<{ revenue: Record<string, number> }>;
      };
      t.equal(st.income_statement[0].revenue.capacity, 40_000 * 0.5 * 100, 'year 1: 2,000,000');
    });
  },
);
