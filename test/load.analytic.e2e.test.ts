// The analytic cases of a buyer's load through the API (web + one worker), with the figures the
// engine's test (engine.load.test.ts) checks in process: a constant plant against a flat load;
// excess in alternate hours, which must not serve the hours between; a load that changes within the
// day (the match is energy-weighted); a battery charged from a cheap grid (the buyer's cost falls,
// the clean match stays 0). The same inputs (test/helpers/load.inputs.ts) are posted, all at once;
// the figures are read from the scenario's `kpis` and its statements (annual rows, statement
// lines, hourly arrays). The battery moving noon solar to the evening is in load.e2e.test.ts.
import t from 'tap';
import { HOURS_PER_YEAR } from '../shared/calendar.ts';
import type { ScenarioInputs } from '../shared/schemas/inputs.ts';
import type { DeepPartial } from './fixtures/inputs.ts';
import { DEFAULT_SCENARIO, getJson, postScenario } from './helpers/http.ts';
import {
  alternateHours,
  backupOnly,
  CHANGING_LOAD_MEAN_OF_RATIOS_PERCENT,
  changingLoad,
  close,
  constantPlant,
  EXPECTED_KPIS,
  expectKpis,
  gridChargedBattery,
} from './helpers/load.inputs.ts';
import { startStack, withProcessLogs } from './helpers/stack.ts';

const stack = await startStack({ workers: [{}] });
const { web } = stack;
t.teardown(() => stack.stop());

type Row = Record<string, number>;
interface Statements {
  kpis: Row;
  annual: Row[];
  income_statement: Array<{ revenue: Row; operating_expenses: Row }>;
  storage_charge_hourly?: number[][];
}
interface Calculated {
  kpis: Row;
  statements: Statements;
  /** GET …/statements?year=N. */
  year(n: number): Promise<Record<string, number[]>>;
}

/** Posts the case (at the engine fixture's start year and seed) and resolves once the worker has calculated it. */
async function calculated(name: string, inputs: DeepPartial<ScenarioInputs>): Promise<Calculated> {
  const created = await postScenario(web.baseUrl, { ...DEFAULT_SCENARIO, name, start_year: 2027, seed: 42, ...inputs });
  if (created.status !== 201)
    throw new Error(`${name}: ${created.status} ${JSON.stringify(created.json).slice(0, 300)}`);
  const id = created.json.id as string;
  const done = await stack
    .follow(`/api/scenarios/${id}/events`)
    .until((e) => e.event === 'succeeded' || e.event === 'failed', 120_000);
  if (done.event !== 'succeeded') throw new Error(`${name}: ${done.event} ${JSON.stringify(done.data)}`);
  const scenario = await getJson(`${web.baseUrl}/api/scenarios/${id}`);
  const statements = await getJson(`${web.baseUrl}/api/scenarios/${id}/statements`);
  if (scenario.status !== 200 || statements.status !== 200) {
    throw new Error(`${name}: GET ${scenario.status}, statements ${statements.status}`);
  }
  return {
    kpis: scenario.json.kpis as Row,
    statements: statements.json as unknown as Statements,
    async year(n) {
      const res = await getJson(`${web.baseUrl}/api/scenarios/${id}/statements?year=${n}`);
      if (res.status !== 200) throw new Error(`${name}: statements?year=${n}: ${res.status}`);
      return res.json as Record<string, number[]>;
    },
  };
}

// Every case posted at once: the worker calculates them while the first is being checked.
const cases = {
  short: calculated('30 MW against 50', constantPlant(30)),
  long: calculated('70 MW against 50', constantPlant(70)),
  alternate: calculated('excess in alternate hours', alternateHours()),
  changing: calculated('a load that changes within the day', changingLoad()),
  grid: calculated('a battery charged from a cheap grid', gridChargedBattery()),
  backupOnly: calculated('the same load without the battery', backupOnly()),
};
// Each is awaited in its test; this keeps a rejection from going unhandled before then.
for (const c of Object.values(cases)) c.catch(() => {});

t.test('a constant plant against a flat load, through the API', async (t) => {
  await withProcessLogs(t, stack, async () => {
    const short = await cases.short;
    const k = short.kpis;
    expectKpis(t, k, EXPECTED_KPIS.short);
    close(t, k.lcod_nominal, k.lcoe_nominal, 'LCOD = LCOE when every MWh is delivered to the load');
    const s = short.statements;
    close(t, s.annual[0].load_mwh, 50 * HOURS_PER_YEAR, 'the year’s load');
    close(t, s.annual[0].delivered_to_load_mwh, 30 * HOURS_PER_YEAR, 'delivered');
    close(t, s.income_statement[0].revenue.load_contract, 60 * 30 * HOURS_PER_YEAR, 'contract revenue');
    close(t, s.income_statement[0].revenue.total, 60 * 30 * HOURS_PER_YEAR, 'revenue total');

    const long = await cases.long;
    expectKpis(t, long.kpis, EXPECTED_KPIS.long);
    const revenue = long.statements.income_statement.map((y) => y.revenue);
    close(t, revenue[0].load_excess, 45 * 20 * HOURS_PER_YEAR, 'excess revenue at the merchant price, year 1');
    close(t, revenue[1].load_excess, 45 * 1.02 * 20 * HOURS_PER_YEAR, 'excess revenue, year 2 (escalated 2 %)');
    t.equal(revenue[0].ppa_wind, 0, 'no PPA revenue with a load');
  });
});

t.test('excess in alternate hours never serves the hours between, through the API', async (t) => {
  await withProcessLogs(t, stack, async () => {
    const r = await cases.alternate;
    expectKpis(t, r.kpis, EXPECTED_KPIS.alternateHours);
    const delivered = (await r.year(1)).delivered_hourly;
    t.equal(delivered.length, HOURS_PER_YEAR, '?year=1: delivered_hourly of every hour');
    t.equal(delivered[1], 0, 'hour 1 gets nothing');
    t.equal(delivered[2], 50, 'hour 2 gets its load');
    const wrong = delivered.findIndex((d, h) => d !== (h % 2 === 0 ? 50 : 0));
    t.equal(wrong, -1, 'every even hour gets 50, every odd hour 0');
  });
});

t.test('a load that changes within the day: the match is energy-weighted, through the API', async (t) => {
  await withProcessLogs(t, stack, async () => {
    const r = await cases.changing;
    expectKpis(t, r.kpis, EXPECTED_KPIS.changingLoad);
    t.ok(
      Math.abs(r.kpis.hourly_match_percent - CHANGING_LOAD_MEAN_OF_RATIOS_PERCENT) > 10,
      'not the mean of hourly ratios (77.8 %)',
    );
    const year = await r.year(1);
    t.same(year.load_hourly.slice(10, 14), [10, 10, 90, 90], '?year=1: the load changes at noon');
    t.same(year.delivered_hourly.slice(10, 14), [10, 10, 50, 50], '?year=1: delivered, capped by the plant');
  });
});

t.test(
  'a battery charged from a cheap grid: the buyer pays less, the clean match stays 0, through the API',
  async (t) => {
    await withProcessLogs(t, stack, async () => {
      const r = await cases.grid;
      expectKpis(t, r.kpis, EXPECTED_KPIS.gridChargedBattery);
      const year1 = await r.year(1);
      const socEnd = year1.storage_soc_hourly[HOURS_PER_YEAR - 1];
      const charged = (160 * 365) / 0.81 + socEnd / 0.9;
      const s = r.statements;
      close(
        t,
        s.annual[0].storage_charge_from_grid_mwh,
        charged,
        'charged from the grid: 160 / 0.81 a day (+ the store at year end)',
      );
      close(
        t,
        s.income_statement[0].operating_expenses.load_grid_energy,
        charged * 20,
        'grid energy cost, year 1, at 20',
      );
      const charge = s.storage_charge_hourly as number[][];
      t.equal(charge.length, 25, 'storage_charge_hourly of 25 years');
      t.same(charge[0], year1.storage_charge_hourly, '?year=1 is year 1 of the statements');
      const chargeHours = new Set<number>();
      for (const year of charge) {
        for (let h = 0; h < year.length; h++) if (year[h] > 1e-9) chargeHours.add(h % 24);
      }
      t.ok(
        chargeHours.size > 0 && [...chargeHours].every((hd) => hd < 6),
        `charges only at night (hours ${[...chargeHours].sort((a, b) => a - b)})`,
      );

      expectKpis(t, (await cases.backupOnly).kpis, EXPECTED_KPIS.backupOnly);
    });
  },
);
