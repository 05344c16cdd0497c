// Decision-grade finance through the API, on real processes: a PPA price solved for a target
// equity IRR and posted back, a target no price can meet (fails once, not retried), a solve
// without its target (400 naming the field, nothing written), and tax credits in the statements.
import t from 'tap';
import { eventLog } from './helpers/faults.ts';
import { getJson, postScenario } from './helpers/http.ts';
import { startStack, withProcessLogs } from './helpers/stack.ts';
import { waitUntil } from './helpers/wait.ts';

const stack = await startStack({ workers: [{}] });
t.teardown(() => stack.stop());
const site = { latitude: 35.2, longitude: -101.8 };

type Scenario = {
  id: string;
  status: string;
  error: { code: string; message: string } | null;
  kpis: Record<string, number | null> | null;
};

async function finished(id: string): Promise<Scenario> {
  let last: Scenario | undefined;
  await waitUntil(
    async () => {
      last = (await getJson(`${stack.web.baseUrl}/api/scenarios/${id}`)).json as Scenario;
      return last.status === 'succeeded' || last.status === 'failed';
    },
    { timeoutMs: 60_000, what: `scenario ${id} to finish` },
  );
  return last as Scenario;
}

t.test('a solved PPA price, posted back, gives the target equity IRR', async (t) => {
  await withProcessLogs(t, stack, async () => {
    const created = await postScenario(stack.web.baseUrl, {
      name: 'solve',
      site,
      market: { ppa_price_per_mwh: 'solve' },
      finance: { target_equity_irr_percent: 9.5 },
    });
    t.equal(created.status, 201, JSON.stringify(created.json).slice(0, 300));
    const solved = await finished(created.json.id as string);
    t.equal(solved.status, 'succeeded');
    const price = solved.kpis?.solved_ppa_price_per_mwh;
    t.type(price, 'number', `solved price ${price}`);
    t.ok(Math.abs((solved.kpis?.equity_irr ?? 0) * 100 - 9.5) < 0.01, `IRR ${solved.kpis?.equity_irr}`);

    // The stored inputs (with the seed the weather was drawn from), the solved price in place of "solve".
    const stored = (await getJson(`${stack.web.baseUrl}/api/scenarios/${solved.id}`)).json as {
      inputs: { market: Record<string, unknown> };
    };
    const inputs = { ...stored.inputs, name: 'posted back' };
    inputs.market = { ...inputs.market, ppa_price_per_mwh: price };
    const again = await postScenario(stack.web.baseUrl, inputs);
    t.equal(again.status, 201);
    const back = await finished(again.json.id as string);
    t.ok(
      Math.abs((back.kpis?.equity_irr ?? 0) * 100 - 9.5) < 0.01,
      `the posted-back price gives ${((back.kpis?.equity_irr ?? 0) * 100).toFixed(4)} %`,
    );
    t.equal(back.kpis?.solved_ppa_price_per_mwh, null);
  });
});

t.test('no price meets the target: failed once with no_ppa_solution, not retried', async (t) => {
  await withProcessLogs(t, stack, async () => {
    const created = await postScenario(stack.web.baseUrl, {
      name: 'unsolvable',
      site,
      market: { ppa_price_per_mwh: 'solve', ppa_share: 0 },
      finance: { target_equity_irr_percent: 12 },
    });
    t.equal(created.status, 201);
    const s = await finished(created.json.id as string);
    t.equal(s.status, 'failed');
    t.equal(s.error?.code, 'no_ppa_solution');
    t.match(s.error?.message, /from 0 to 10000 per MWh/);
    const events = await eventLog(stack.pool, s.id);
    t.equal(events.filter((e) => e.name === 'running').length, 1, 'one attempt');
  });
});

t.test('"solve" without a target: 400 naming the field, nothing written', async (t) => {
  const before = (await stack.pool.query('SELECT count(*)::int AS n FROM scenarios')).rows[0].n;
  const res = await postScenario(stack.web.baseUrl, {
    name: 'no target',
    site,
    market: { ppa_price_per_mwh: 'solve' },
  });
  t.equal(res.status, 400);
  const errors = (res.json as { errors: Array<{ path: string }> }).errors;
  t.ok(
    errors.some((e) => e.path === '/finance/target_equity_irr_percent'),
    JSON.stringify(errors),
  );
  const bad = await postScenario(stack.web.baseUrl, {
    name: 'bad credit',
    site,
    finance: { tax_credits: { solar: { itc_percent: 130 } } },
  });
  t.equal(bad.status, 400);
  t.ok(
    (bad.json as { errors: Array<{ path: string }> }).errors.some(
      (e) => e.path === '/finance/tax_credits/solar/itc_percent',
    ),
  );
  t.equal((await stack.pool.query('SELECT count(*)::int AS n FROM scenarios')).rows[0].n, before);
});

t.test('tax credits appear in both statements by technology', async (t) => {
  await withProcessLogs(t, stack, async () => {
    const created = await postScenario(stack.web.baseUrl, {
      name: 'credits',
      site,
      finance: { tax_credits: { solar: { itc_percent: 30 }, wind: { ptc_per_mwh: 26 } } },
    });
    const s = await finished(created.json.id as string);
    t.equal(s.status, 'succeeded');
    const statements = (await getJson(`${stack.web.baseUrl}/api/scenarios/${s.id}/statements?hourly=false`)).json as {
      income_statement: Array<{ tax_credits: Record<string, number> }>;
      cash_flow: Array<{ tax_credits: Record<string, number> }>;
    };
    t.ok(statements.income_statement[0].tax_credits.itc_solar > 0, 'solar ITC in year 1');
    t.equal(statements.income_statement[0].tax_credits.itc_wind, 0);
    t.ok(statements.income_statement[9].tax_credits.ptc_wind > 0, 'wind PTC in year 10');
    t.equal(statements.income_statement[10].tax_credits.ptc_wind, 0, 'none in year 11');
    t.same(statements.cash_flow[1].tax_credits, statements.income_statement[0].tax_credits);
  });
});

t.test('the Single Owner structure: bad values get a 400 naming them, nothing written', async (t) => {
  const before = (await stack.pool.query('SELECT count(*)::int AS n FROM scenarios')).rows[0].n;
  const cases: [string, Record<string, unknown>, string][] = [
    ['a negative debt fee', { debt: { fee_percent: -1 } }, '/finance/debt/fee_percent'],
    ['a reserve of 30 months', { debt: { reserve_months: 30 } }, '/finance/debt/reserve_months'],
    ['state tax over 100 %', { state_tax_rate_percent: 101 }, '/finance/state_tax_rate_percent'],
    ['bonus over 100 %', { depreciation: { bonus_percent: 120 } }, '/finance/depreciation/bonus_percent'],
    [
      'an unknown depreciation class',
      { depreciation: { allocation: [{ class: 'macrs_7', percent: 50 }] } },
      '/finance/depreciation/allocation/0/class',
    ],
    [
      'an allocation over 100 %',
      {
        depreciation: {
          allocation: [
            { class: 'macrs_5', percent: 90 },
            { class: 'sl_20', percent: 20 },
          ],
        },
      },
      '/finance/depreciation/allocation',
    ],
    [
      'a class allocated twice',
      {
        depreciation: {
          allocation: [
            { class: 'macrs_5', percent: 40 },
            { class: 'macrs_5', percent: 40 },
          ],
        },
      },
      '/finance/depreciation/allocation/1/class',
    ],
    [
      'a replacement every 0 years',
      { reserves: { equipment: { every_years: 0 } } },
      '/finance/reserves/equipment/every_years',
    ],
    ['salvage of 150 %', { salvage_percent: 150 }, '/finance/salvage_percent'],
    ['a negative land lease', { opex: { land_lease_per_year: -5 } }, '/finance/opex/land_lease_per_year'],
  ];
  for (const [what, finance, path] of cases) {
    const res = await postScenario(stack.web.baseUrl, { name: what, site, finance });
    t.equal(res.status, 400, `${what}: 400`);
    const paths = ((res.json as { errors?: Array<{ path: string }> }).errors ?? []).map((e) => e.path);
    t.ok(paths.includes(path), `${what}: names ${path} (${JSON.stringify(paths)})`);
  }
  t.equal((await stack.pool.query('SELECT count(*)::int AS n FROM scenarios')).rows[0].n, before);
});

t.test(
  'a scenario with SAM Single Owner’s reserves, fee, state tax and salvage: statements carry each line',
  async (t) => {
    await withProcessLogs(t, stack, async () => {
      const created = await postScenario(stack.web.baseUrl, {
        name: 'single owner',
        site,
        finance: {
          state_tax_rate_percent: 7,
          tax_rate_percent: 21,
          debt: { sizing: 'dscr', fee_percent: 2.75, reserve_months: 6 },
          reserves: { working_capital_months: 6, equipment: { solar_per_kw_dc: 100 } },
          depreciation: {
            allocation: [
              { class: 'macrs_5', percent: 90 },
              { class: 'sl_15', percent: 2.5 },
            ],
            bonus_percent: 60,
          },
          opex: { property_tax_percent: 0.5, land_lease_per_year: 100_000 },
          salvage_percent: 5,
        },
      });
      t.equal(created.status, 201);
      const s = await finished(created.json.id as string);
      t.equal(s.status, 'succeeded');
      type Year = Record<string, number> & { operating_expenses: Record<string, number> };
      const st = (await getJson(`${stack.web.baseUrl}/api/scenarios/${s.id}/statements?hourly=false`)).json as {
        income_statement: Year[];
        cash_flow: Array<Record<string, number>>;
      };
      const c0 = st.cash_flow[0];
      t.ok(c0.debt_fee > 0 && c0.reserve_funding > 0, 'the fee and the reserves are paid at close');
      t.ok(st.income_statement[0].state_income_tax !== 0 && st.income_statement[0].federal_income_tax !== 0);
      t.ok(
        st.income_statement[0].operating_expenses.land_lease > 0 &&
          st.income_statement[0].operating_expenses.property_tax > 0,
      );
      t.ok(st.cash_flow[15].equipment_replacement > 0, 'a replacement in year 15');
      t.ok(st.income_statement[24].salvage_value > 0, 'salvage in year 25');
    });
  },
);
