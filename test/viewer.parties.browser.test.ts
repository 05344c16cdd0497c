// A partnership flip in the viewer, in a real browser against the real web, worker and Postgres:
// the scenario's page shows the cash flow per party (years 0–25, the tax investor's and the
// sponsor's columns, each year's after-tax cash as the API serves it), the flip's KPI cards, and
// the closing costs in the project's cash flow. A single owner shows no such table.
import t from 'tap';
import { browserAndStack, clean, openPage } from './helpers/browser.ts';
import { getJson, postScenario } from './helpers/http.ts';
import { withProcessLogs } from './helpers/stack.ts';
import { waitUntil } from './helpers/wait.ts';

const { browser, stack } = await browserAndStack(t, { workers: [{}] });
const base = stack.web.baseUrl;
const site = { latitude: 35.2, longitude: -101.8 };

/** A money cell's text ("1,234", "−12.35 M", "1.2 B") as a number, and how far it may be rounded. */
function shown(text: string): { value: number; rounding: number } {
  const scale = text.endsWith(' B') ? 1e9 : text.endsWith(' M') ? 1e6 : 1;
  const value =
    Number(
      text
        .replace(/ [MB]$/, '')
        .replaceAll(',', '')
        .replace('−', '-'),
    ) * scale;
  return { value, rounding: scale === 1 ? 1 : 0.006 * scale };
}

async function succeeded(id: string): Promise<void> {
  await waitUntil(async () => (await getJson(`${base}/api/scenarios/${id}`)).json.status === 'succeeded', {
    timeoutMs: 60_000,
    what: `scenario ${id}`,
  });
}

t.test("a leveraged flip: the parties' cash flow table and the flip's KPI cards", async (t) => {
  await withProcessLogs(t, stack, async () => {
    const flip = await postScenario(base, {
      name: 'flip',
      site,
      finance: { structure: 'leveraged_flip', debt: { sizing: 'dscr' } },
    });
    const owner = await postScenario(base, { name: 'owner', site });
    const id = flip.json.id as string;
    await succeeded(id);
    await succeeded(owner.json.id as string);
    const statements = (await getJson(`${base}/api/scenarios/${id}/statements?hourly=false`)).json as {
      parties: {
        tax_investor: { years: { after_tax_cash: number }[] };
        sponsor: { years: { after_tax_cash: number }[] };
      };
    };
    const page = await openPage(browser, t, base);
    await page.goto(`${base}/scenarios/${id}`);
    await page.waitForSelector('[data-testid=parties-table]', { timeout: 30_000 });
    t.equal(await page.locator('[data-testid=parties-table] tbody tr').count(), 26, 'years 0–25');
    const headers = await page.$$eval('[data-testid=parties-table] thead th', (ths) =>
      ths.map((th) => th.textContent ?? ''),
    );
    t.ok(headers.includes('Investor after-tax') && headers.includes('Sponsor after-tax'), headers.join(', '));
    const column = (name: string) => headers.indexOf(name);
    const cells = await page.$$eval('[data-testid=parties-table] tbody tr', (rows) =>
      rows.map((r) => Array.from(r.children, (c: { textContent: string | null }) => c.textContent ?? '')),
    );
    for (const y of [0, 1, 10, 25]) {
      for (const [header, party] of [
        ['Investor after-tax', statements.parties.tax_investor],
        ['Sponsor after-tax', statements.parties.sponsor],
      ] as const) {
        const cell = shown(cells[y][column(header)]);
        const api = party.years[y].after_tax_cash;
        t.ok(
          Math.abs(cell.value - api) <= cell.rounding,
          `${header}, year ${y}: ${cells[y][column(header)]} is ${api}`,
        );
      }
    }
    const cash = await page.$$eval('[data-testid=cashflow-table] thead th', (ths) => ths.map((th) => th.textContent));
    t.ok(cash.includes('Closing costs'), 'the development fee and equity closing cost at close');
    await page.waitForSelector('[data-testid=kpi-sponsor_npv]');
    t.ok(await page.locator('[data-testid=kpi-investor_irr]').count(), 'the investor IRR card');

    await page.goto(`${base}/scenarios/${owner.json.id}`);
    await page.waitForSelector('[data-testid=cashflow-table]', { timeout: 30_000 });
    t.equal(await page.locator('[data-testid=parties-table]').count(), 0, 'a single owner: no parties table');
    clean(t, page);
  });
});
