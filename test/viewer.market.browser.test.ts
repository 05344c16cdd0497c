// Capacity and curtailment payments in the viewer, in a real browser against the real web, worker
// and Postgres: the scenario's page shows the capacity credit card with the API's value, the income
// statement's Capacity and Curtailment paid columns with the statements' figures, and paints the
// revenue stack whose legend names every revenue line the statements carry; a scenario without
// payments has neither column; a capacity payment beside ancillary products (one priced by a
// library series): every line in the total, the breakdown and the stack.
import t, { type Test } from 'tap';
import { revenueLines } from '../server/viewer/client/revenue.lines.ts';
import { HOURS_PER_YEAR } from '../shared/calendar.ts';
import { browserAndStack, clean, openPage, paintedPixels } from './helpers/browser.ts';
import { accepted, DEFAULT_SCENARIO, getJson, postJson, postScenario } from './helpers/http.ts';
import { withProcessLogs } from './helpers/stack.ts';
import { waitUntil } from './helpers/wait.ts';

const { browser, stack } = await browserAndStack(t, { workers: [{}] });
const base = stack.web.baseUrl;

async function calculated(t: Test, body: Record<string, unknown>): Promise<string> {
  const created = await postScenario(base, body);
  t.equal(created.status, 201, JSON.stringify(created.json).slice(0, 200));
  const id = created.json.id as string;
  await waitUntil(
    async () => ((await getJson(`${base}/api/scenarios/${id}`)).json as { status: string }).status === 'succeeded',
    { timeoutMs: 60_000, what: `scenario ${id} to succeed` },
  );
  return id;
}

t.test('the payments on the scenario page: the card, the columns, the revenue stack', async (t) => {
  await withProcessLogs(t, stack, async () => {
    const id = await calculated(t, {
      ...DEFAULT_SCENARIO,
      name: 'paid',
      grid: {
        export_limit_mw: 150,
        export_limit_hourly_mw: Array.from({ length: HOURS_PER_YEAR }, (_, h) => (h % 24 === 12 ? 60 : 150)),
      },
      market: {
        capacity: { price_per_mw_year: 90_000, escalation_percent: 2, credit: { percent: 30 } },
        curtailment_payment_per_mwh: 25,
      },
    });
    const st = (await getJson(`${base}/api/scenarios/${id}/statements?hourly=false`)).json as {
      income_statement: Array<{ year: number; revenue: Record<string, number> }>;
    };
    const page = await openPage(browser, t, base);
    await page.goto(`${base}/scenarios/${id}`);
    await page.waitForSelector('[data-testid=kpi-capacity_credit_percent]', { timeout: 30_000 });
    t.equal(await page.getAttribute('[data-testid=kpi-capacity_credit_percent]', 'data-value'), '30');
    await page.waitForSelector('[data-testid=income-table]');
    const headers = await page.$$eval('[data-testid=income-table] thead th', (ths) =>
      ths.map((th) => th.textContent ?? ''),
    );
    const capacityColumn = headers.indexOf('Capacity');
    t.ok(capacityColumn > 0, `a Capacity column: ${headers.join(', ')}`);
    t.ok(headers.includes('Curtailment paid'), 'a Curtailment paid column');
    const yearOne = await page.$$eval('[data-testid=income-table] tbody tr:first-child > *', (cells) =>
      cells.map((c) => c.textContent ?? ''),
    );
    // 90,000 × 30 % × 150 MW (the limit) = 4,050,000, shown as the table shows money.
    t.match(yearOne[capacityColumn], /^4\.05\s?M$/, `year 1's capacity shown: ${yearOne[capacityColumn]}`);
    t.equal(Math.round(st.income_statement[0].revenue.capacity), 90_000 * 0.3 * 150, 'as the statements say');

    const lines = revenueLines(st.income_statement);
    t.ok(lines.includes('capacity') && lines.includes('curtailment_payment'), `the stack's lines: ${lines.join(', ')}`);
    await waitUntil(async () => (await paintedPixels(page, 'revenue-chart')) > 2000, {
      timeoutMs: 30_000,
      what: 'the revenue stack to paint',
    });
    t.pass('the revenue stack is painted');
    clean(t, page);
  });
});

t.test('no payments: no payment columns, the revenue stack still painted', async (t) => {
  await withProcessLogs(t, stack, async () => {
    const id = await calculated(t, { ...DEFAULT_SCENARIO, name: 'unpaid' });
    const page = await openPage(browser, t, base);
    await page.goto(`${base}/scenarios/${id}`);
    await page.waitForSelector('[data-testid=income-table]', { timeout: 30_000 });
    const headers = await page.$$eval('[data-testid=income-table] thead th', (ths) =>
      ths.map((th) => th.textContent ?? ''),
    );
    t.notOk(headers.includes('Capacity'), 'no Capacity column');
    t.notOk(headers.includes('Curtailment paid'), 'no Curtailment paid column');
    t.equal(await page.locator('[data-testid=kpi-capacity_credit_percent]').count(), 0, 'no capacity credit card');
    await waitUntil(async () => (await paintedPixels(page, 'revenue-chart')) > 2000, {
      timeoutMs: 30_000,
      what: 'the revenue stack to paint',
    });
    t.pass('the revenue stack is painted');
    clean(t, page);
  });
});

t.test('a capacity payment beside ancillary products priced by a library series', async (t) => {
  await withProcessLogs(t, stack, async () => {
    const evening = Array.from({ length: HOURS_PER_YEAR }, (_, h) => (h % 24 >= 17 && h % 24 < 21 ? 14 : 4));
    const series = accepted(
      await postJson(`${base}/api/resources`, { name: 'reg up price', kind: 'hourly_series', values: evening }),
      'the series upload',
    ).id as string;
    const id = await calculated(t, {
      ...DEFAULT_SCENARIO,
      name: 'paid and reserved',
      grid: { export_limit_mw: 150 },
      market: {
        capacity: { price_per_mw_year: 90_000, credit: { percent: 30 } },
        ancillary: [
          { name: 'reg_up', direction: 'up', price_per_mw_hour: { resource: series }, duration_hours: 1 },
          { name: 'reg_down', direction: 'down', price_per_mw_hour: 3, duration_hours: 1 },
        ],
      },
      storage: { power_mw: 20, energy_mwh: 60 },
    });
    const stored = (await getJson(`${base}/api/scenarios/${id}`)).json as {
      inputs: { market: { ancillary: Array<{ price_per_mw_hour: unknown }> } };
    };
    t.same(stored.inputs.market.ancillary[0].price_per_mw_hour, { resource: series }, 'the reference is stored');
    const st = (await getJson(`${base}/api/scenarios/${id}/statements?hourly=false`)).json as {
      income_statement: Array<{
        year: number;
        revenue: Record<string, number> & { ancillary?: Record<string, number> };
      }>;
      revenue_breakdown: { by_source: Record<string, number>; total: number };
      kpis: Record<string, number>;
    };
    let lifetime = 0;
    for (const { year, revenue } of st.income_statement.filter((y) => y.year >= 1)) {
      const { ancillary, total, ...lines } = revenue;
      const parts =
        Object.values(lines).reduce((a, v) => a + v, 0) + Object.values(ancillary ?? {}).reduce((a, v) => a + v, 0);
      t.ok(Math.abs(parts - total) <= 1e-6 * Math.abs(total), `year ${year}: the lines add up to the total`);
      if (year === 1) {
        t.equal(Math.round(revenue.capacity), 90_000 * 0.3 * 150, 'year 1 pays the capacity (150 MW accredited)');
        t.ok((ancillary?.reg_up ?? 0) > 0 && (ancillary?.reg_down ?? 0) > 0, 'both products earn in year 1');
      }
      lifetime += total;
    }
    const b = st.revenue_breakdown;
    t.ok(b.by_source.capacity > 0 && b.by_source.ancillary > 0, `every source: ${Object.keys(b.by_source).join(', ')}`);
    t.ok(Math.abs(b.total - lifetime) <= 1e-6 * lifetime, "the breakdown's total is every year's total");
    const sources = Object.values(b.by_source).reduce((a, v) => a + v, 0);
    t.ok(Math.abs(sources - b.total) <= 1e-6 * lifetime, 'its sources add up to it');
    t.ok(Math.abs(st.kpis.ancillary_revenue - b.by_source.ancillary) <= 1e-6 * lifetime, 'the KPI is the source');

    const page = await openPage(browser, t, base);
    await page.goto(`${base}/scenarios/${id}`);
    await waitUntil(async () => (await paintedPixels(page, 'revenue-chart')) > 2000, {
      timeoutMs: 30_000,
      what: 'the revenue stack to paint',
    });
    const drawn = (await page.getAttribute('[data-testid=revenue-chart]', 'data-lines')) ?? '';
    for (const line of ['Capacity', 'Ancillary reg up', 'Ancillary reg down'])
      t.ok(drawn.split(', ').includes(line), `the stack draws ${line}: ${drawn}`);
    clean(t, page);
  });
});
