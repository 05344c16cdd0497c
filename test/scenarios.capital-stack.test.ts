// The capital stack through the API, on real processes: bad terms are a 400 naming the field with
// nothing written; a leveraged flip with credits sold and debt sized on P50 and P99 runs to the
// end, and its statements carry both parties, the transfer proceeds and the binding case; a sweep
// varies a flip's terms and sorts its variants by the investor's IRR (a KPI of the registry).
import t from 'tap';
import { getJson, postJson, postScenario } from './helpers/http.ts';
import { startStack, withProcessLogs } from './helpers/stack.ts';
import { waitUntil } from './helpers/wait.ts';

const stack = await startStack({ workers: [{}] });
t.teardown(() => stack.stop());
const site = { latitude: 35.2, longitude: -101.8 };

const rowCount = async () =>
  (await stack.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM scenarios')).rows[0].n;

t.test('bad capital-stack input: a 400 naming the field, nothing written', async (t) => {
  const before = await rowCount();
  const flip = { structure: 'leveraged_flip' };
  const cases: [string, Record<string, unknown>, string][] = [
    [
      'an allocation above 100 %',
      { ...flip, tax_equity: { preflip_cash_percent: 120 } },
      '/finance/tax_equity/preflip_cash_percent',
    ],
    [
      'an allocation below 0 %',
      { ...flip, tax_equity: { postflip_tax_percent: -1 } },
      '/finance/tax_equity/postflip_tax_percent',
    ],
    [
      'a flip year beyond the term',
      { ...flip, tax_equity: { flip_target_year: 26 } },
      '/finance/tax_equity/flip_target_year',
    ],
    [
      'a transfer price above 1',
      { tax_credits: { transfer: { price_per_dollar: 1.05 } } },
      '/finance/tax_credits/transfer/price_per_dollar',
    ],
    ['an unknown structure', { structure: 'inverted_lease' }, '/finance/structure'],
    [
      'terms without a structure that uses them',
      { tax_equity: { investor_equity_percent: 99 } },
      '/finance/tax_equity',
    ],
    [
      'debt cases with fraction sizing',
      { debt: { sizing: 'fraction', cases: [{ energy: 'p50', dscr: 1.3 }] } },
      '/finance/debt/cases',
    ],
    [
      'debt cases in a sale-leaseback',
      { structure: 'sale_leaseback', debt: { sizing: 'dscr', cases: [{ energy: 'p50', dscr: 1.3 }] } },
      '/finance/debt/cases',
    ],
  ];
  for (const [what, finance, path] of cases) {
    const res = await postScenario(stack.web.baseUrl, { name: what, site, finance });
    const errors = (res.json.errors ?? []) as { path: string; message: string }[];
    t.equal(res.status, 400, what);
    t.ok(
      errors.some((e) => e.path === path && e.message.length > 0),
      `${what}: names ${path} (${JSON.stringify(errors).slice(0, 200)})`,
    );
  }
  // A P99 case needs an energy uncertainty to take P99 from.
  const none = { interannual_percent: 0, model_percent: 0 };
  const res = await postScenario(stack.web.baseUrl, {
    name: 'no uncertainty',
    site,
    uncertainty: { solar: none, wind: none },
    finance: {
      debt: {
        sizing: 'dscr',
        cases: [
          { energy: 'p50', dscr: 1.3 },
          { energy: 'p99', dscr: 1.0 },
        ],
      },
    },
  });
  t.equal(res.status, 400);
  t.match(JSON.stringify(res.json.errors), /\/finance\/debt\/cases\/1\/energy/);
  t.equal(await rowCount(), before, 'no scenario written');
});

t.test('a leveraged flip with credits sold and debt on P50 and P99', async (t) => {
  await withProcessLogs(t, stack, async () => {
    const created = await postScenario(stack.web.baseUrl, {
      name: 'flip',
      site,
      finance: {
        structure: 'leveraged_flip',
        debt: {
          sizing: 'dscr',
          cases: [
            { energy: 'p50', dscr: 1.35 },
            { energy: 'p99', dscr: 1.0 },
          ],
        },
        tax_credits: { wind: { ptc_per_mwh: 27.5 }, transfer: { price_per_dollar: 0.93 } },
      },
    });
    t.equal(created.status, 201, JSON.stringify(created.json).slice(0, 300));
    const id = created.json.id as string;
    let status = '';
    await waitUntil(
      async () => {
        status = (await getJson(`${stack.web.baseUrl}/api/scenarios/${id}`)).json.status as string;
        return status === 'succeeded' || status === 'failed';
      },
      { timeoutMs: 60_000, what: 'the flip to finish' },
    );
    t.equal(status, 'succeeded');
    const scenario = (await getJson(`${stack.web.baseUrl}/api/scenarios/${id}`)).json as {
      inputs: { finance: { tax_equity?: Record<string, number> } };
      kpis: Record<string, number | null | undefined>;
    };
    t.equal(scenario.inputs.finance.tax_equity?.investor_equity_percent, 98, "SAM's terms written into the inputs");
    const statements = (await getJson(`${stack.web.baseUrl}/api/scenarios/${id}/statements?hourly=false`)).json as {
      parties: { structure: string; tax_investor: { npv: number }; sponsor: { npv: number; years: unknown[] } };
      cash_flow: { credit_transfer_proceeds?: number; tax_credits: { total: number } }[];
    };
    t.equal(statements.parties.structure, 'leveraged_flip');
    t.equal(statements.parties.sponsor.years.length, 26);
    t.equal(scenario.kpis.sponsor_npv, statements.parties.sponsor.npv);
    t.type(scenario.kpis.investor_irr, 'number');
    t.ok(
      [50, 99].includes(scenario.kpis.binding_debt_case as number),
      `binding case P${scenario.kpis.binding_debt_case}`,
    );
    const y2 = statements.cash_flow[2];
    t.ok(y2.tax_credits.total > 0, 'a PTC in year 2');
    t.ok(Math.abs((y2.credit_transfer_proceeds ?? 0) - 0.93 * y2.tax_credits.total) < 1e-6 * y2.tax_credits.total);
  });
});

t.test("a sweep over a flip's terms, sorted by the investor's IRR", async (t) => {
  await withProcessLogs(t, stack, async () => {
    const created = await postJson(`${stack.web.baseUrl}/api/sweeps`, {
      name: 'flip shares',
      base: { name: 'flip', site, seed: 7, finance: { structure: 'leveraged_flip', tax_equity: {} } },
      vary: [{ path: '/finance/tax_equity/preflip_cash_percent', values: [60, 98] }],
    });
    t.equal(created.status, 201, JSON.stringify(created.json).slice(0, 300));
    const url = `${stack.web.baseUrl}/api/sweeps/${created.json.id}/results?sort=-investor_irr`;
    type Variant = { status: string; values: Record<string, number>; kpis: Record<string, number> | null };
    let variants: Variant[] = [];
    await waitUntil(
      async () => {
        variants = ((await getJson(url)).json.variants ?? []) as Variant[];
        return variants.length === 2 && variants.every((v) => v.status === 'succeeded');
      },
      { timeoutMs: 90_000, what: 'the sweep to finish' },
    );
    const irrs = variants.map((v) => v.kpis?.investor_irr ?? Number.NaN);
    t.ok(irrs[0] >= irrs[1], `sorted by investor_irr, best first: ${irrs.join(', ')}`);
    // A larger pre-flip cash share gives the investor more early cash: the higher IRR.
    t.equal(variants[0].values['/finance/tax_equity/preflip_cash_percent'], 98);
  });
});
