// The viewer in a real browser (Debian's Chromium, driven by playwright-core) against the real web,
// worker and Postgres: a running scenario's progress then its KPIs, painted charts, a sweep filling
// in live and sorting, the create form's field errors and a valid create, back and forward, phone
// width, labels, keyboard and contrast, the API key asked for once and never put in a URL; and
// throughout, no console error and no request to another origin.

import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import t, { type Test } from 'tap';
import { HEATMAP_PAINTED, SWEEP_TABLE_SORTED } from '../server/viewer/client/timings.ts';
import { browserAndStack, clean, openPage, paintedPixels, until } from './helpers/browser.ts';
import { accepted, getJson, postJson, postScenario } from './helpers/http.ts';
import { slowEngine } from './helpers/processes.ts';
import { withProcessLogs } from './helpers/stack.ts';
import { waitUntil } from './helpers/wait.ts';

// Calculations stretched to ~2 s so a page can watch one run.
const WORKER = slowEngine(2000);
const { browser, stack } = await browserAndStack(t);
await stack.startWorker({}, WORKER);
const base = stack.web.baseUrl;
const site = { latitude: 35.2, longitude: -101.8 };

/** A page that records what it should not see (test/helpers/browser.ts). */
const open = (t: Test, width = 1400, height = 900, baseUrl = base): Promise<Page> =>
  openPage(browser, t, baseUrl, width, height);

/** The page's latest User Timing measure of that name. */
async function lastMeasure(page: Page, name: string): Promise<{ duration: number; detail: unknown }> {
  const all = await page.evaluate(
    (n) =>
      performance
        .getEntriesByName(n, 'measure')
        .map((e) => ({ duration: e.duration, detail: (e as { detail?: unknown }).detail })),
    name,
  );
  if (!all.length) throw new Error(`no ${name} measure`);
  return all[all.length - 1];
}

/**
 * Runs `watch` (post, open the page, see it waiting) while no worker runs, then starts one: the page
 * follows the calculation from its start however slowly the browser opens it (on a loaded CI host,
 * opening a page once took longer than a whole 2 s calculation, and the page saw only the result).
 */
async function beforeTheWorker(watch: () => Promise<void>): Promise<void> {
  for (const worker of stack.workers.splice(0)) await worker.stop();
  try {
    await watch();
  } finally {
    await stack.startWorker({}, WORKER);
  }
}

async function succeeded(id: string): Promise<Record<string, number | null>> {
  let kpis: Record<string, number | null> = {};
  await waitUntil(
    async () => {
      const s = (await getJson(`${base}/api/scenarios/${id}`)).json as { status: string; kpis: typeof kpis };
      kpis = s.kpis;
      return s.status === 'succeeded';
    },
    { timeoutMs: 60_000, what: `scenario ${id}` },
  );
  return kpis;
}

t.test('a running scenario: progress advances live, then KPIs equal to the API kpis, charts painted', async (t) => {
  await withProcessLogs(t, stack, async () => {
    let id = '';
    let page = undefined as unknown as Page;
    await beforeTheWorker(async () => {
      const created = await postScenario(base, { name: 'watched', site });
      id = created.json.id as string;
      page = await open(t);
      await page.goto(`${base}/scenarios/${id}`);
      await page.waitForSelector('[data-testid=progress]');
    });
    const seen: number[] = [];
    await waitUntil(
      async () => {
        // Not waiting for it: once the results replace it, the wait ends.
        const bar = await page.$('[data-testid=progress]');
        const text = bar ? await bar.getAttribute('value').catch(() => null) : null;
        if (text === null) return true;
        const value = Number(text);
        if (seen.at(-1) !== value) seen.push(value);
        return false;
      },
      { timeoutMs: 30_000, everyMs: 50, what: 'the progress bar to give way to the results' },
    );
    t.ok(seen.length >= 3, `progress values seen live: ${seen.map((v) => v.toFixed(2)).join(' ')}`);
    t.ok(
      seen.every((v, i) => i === 0 || v >= seen[i - 1]),
      'never backwards',
    );
    await page.waitForSelector('[data-testid=kpi-equity_npv]', { timeout: 30_000 });
    const kpis = await succeeded(id);
    for (const name of ['equity_npv', 'equity_irr', 'lcoe_nominal', 'min_dscr', 'energy_p50_mwh', 'energy_p90_mwh']) {
      const shown = await page.getAttribute(`[data-testid=kpi-${name}]`, 'data-value');
      t.equal(shown, String(kpis[name]), `kpi-${name} is the API's ${kpis[name]}`);
    }
    t.equal(await page.textContent('[data-testid=status]'), 'succeeded');
    await page.waitForSelector('[data-testid=heatmap][data-painted]', { timeout: 30_000 });
    for (const testid of ['dispatch-chart', 'soc-heatmap', 'storage-annual-table', 'kpi-storage_revenue', 'wind-rose'])
      t.equal(await page.locator(`[data-testid=${testid}]`).count(), 0, `no battery, no wind file: no ${testid}`);
    t.match(await page.textContent('[data-testid=resource-weather]'), /synthetic/, 'the resource: synthetic');
    for (const chart of ['heatmap', 'annual-chart', 'monthly-chart', 'cashflow-chart']) {
      const n = await paintedPixels(page, chart);
      t.ok(n > 2000, `${chart}: ${n} painted pixels`);
    }
    t.equal(await page.locator('[data-testid=cashflow-table] tbody tr').count(), 26, 'cash flow: years 0–25');
    const headers = (testid: string) =>
      page.$$eval(`[data-testid=${testid}] thead th`, (ths) => ths.map((th) => th.textContent ?? ''));
    t.notOk((await headers('cashflow-table')).includes('Debt fee'), 'no Single Owner line that is 0 every year');
    t.ok((await headers('income-table')).includes('Income tax'));
    t.notOk((await headers('income-table')).includes('Federal tax'), 'no federal/state split without a state tax');
    // Another year and technology: the heatmap is drawn again from that year's data.
    await page.selectOption('#heat-year', '25');
    await page.selectOption('#heat-tech', 'wind');
    await page.waitForSelector('[data-testid=heatmap][data-painted$="-wind"]');
    const calendar = await page.getAttribute('[data-testid=heatmap]', 'data-painted');
    t.match(calendar, /^\d{4}-wind$/, `heatmap of ${calendar}`);
    // Each heatmap painted leaves a standard User Timing measure (what bench #13 reads).
    const painted = await lastMeasure(page, HEATMAP_PAINTED);
    t.same(painted.detail, { year: 25, technology: 'wind' }, `${HEATMAP_PAINTED}: ${painted.duration} ms`);
    clean(t, page);
  });
});

t.test("SAM Single Owner's lines appear in the statements when their inputs are set", async (t) => {
  await withProcessLogs(t, stack, async () => {
    const created = await postScenario(base, {
      name: 'single owner lines',
      site,
      finance: { state_tax_rate_percent: 7, debt: { fee_percent: 2.75, reserve_months: 6 } },
    });
    const id = created.json.id as string;
    await succeeded(id);
    const page = await open(t);
    await page.goto(`${base}/scenarios/${id}`);
    await page.waitForSelector('[data-testid=cashflow-table]', { timeout: 30_000 });
    const headers = (testid: string) =>
      page.$$eval(`[data-testid=${testid}] thead th`, (ths) => ths.map((th) => th.textContent ?? ''));
    const cash = await headers('cashflow-table');
    for (const h of ['Debt fee', 'Reserve interest', 'Reserves funded']) t.ok(cash.includes(h), `cash flow: ${h}`);
    const income = await headers('income-table');
    for (const h of ['State tax', 'Federal tax']) t.ok(income.includes(h), `income statement: ${h}`);
    t.notOk(cash.includes('Equipment replaced'), 'but not a line that stays 0');
    clean(t, page);
  });
});

t.test('a dropped connection: the page says so, resumes from the last event, and finishes', async (t) => {
  await withProcessLogs(t, stack, async () => {
    // A web of its own, stopped while the page follows a calculation and started again on its port.
    const first = await stack.startWeb();
    let id = '';
    let page = undefined as unknown as Page;
    await beforeTheWorker(async () => {
      id = (await postScenario(first.baseUrl, { name: 'web restarted', site })).json.id as string;
      page = await open(t, 1400, 900, first.baseUrl);
      await page.goto(`${first.baseUrl}/scenarios/${id}`);
      await page.waitForSelector('[data-testid=progress]');
    });
    await until(page, `Number(document.querySelector('[data-testid=progress]')?.getAttribute('value')) > 0.1`);
    // Killed, as a crash or a lost network would end the stream (SIGTERM would wait for it).
    await first.stop('SIGKILL');
    await until(page, `document.querySelector('[data-testid=connection]')?.textContent.includes('reconnecting')`);
    t.pass('the page says the connection is lost');
    await stack.startWeb({ PORT: String(first.port) });
    await page.waitForSelector('[data-testid=kpi-equity_npv]', { timeout: 30_000 });
    const kpis = await succeeded(id);
    t.equal(await page.getAttribute('[data-testid=kpi-equity_npv]', 'data-value'), String(kpis.equity_npv));
    // The network errors of the outage itself.
    clean(t, page, /net::ERR_(CONNECTION_REFUSED|INCOMPLETE_CHUNKED_ENCODING|CONNECTION_RESET|EMPTY_RESPONSE)/);
  });
});

t.test('a sweep page fills in live and sorts', async (t) => {
  await withProcessLogs(t, stack, async () => {
    let page = undefined as unknown as Page;
    await beforeTheWorker(async () => {
      const res = await postJson(`${base}/api/sweeps`, {
        name: 'live sweep',
        base: { site },
        vary: [
          { path: '/solar/capacity_mw_dc', values: [50, 150] },
          { path: '/grid/export_limit_mw', values: [100, 200] },
        ],
      });
      const sweep = accepted(res, 'POST /api/sweeps') as { id: string };
      page = await open(t);
      await page.goto(`${base}/sweeps/${sweep.id}`);
      await page.waitForSelector('[data-testid=sweep-row]');
    });
    const finishedCounts: number[] = [];
    await waitUntil(
      async () => {
        const n = await page.locator('[data-testid=sweep-row] [data-testid=row-status]:text-is("succeeded")').count();
        if (finishedCounts.at(-1) !== n) finishedCounts.push(n);
        return n === 4;
      },
      { timeoutMs: 60_000, everyMs: 100, what: 'the 4 variants to show succeeded' },
    );
    t.ok(finishedCounts.length >= 3, `rows filled in as variants finished: ${finishedCounts.join(' → ')}`);
    t.equal(finishedCounts.at(-1), 4);
    await until(page, `document.querySelector('[data-testid=status]')?.textContent === 'succeeded'`);
    const column = async (key: string) =>
      (await page.evaluate(`(() => {
        const headers = [...document.querySelectorAll('[data-testid=sweep-results] thead th')];
        const i = headers.findIndex((th) => th.querySelector('[data-sort="${key}"]'));
        return [...document.querySelectorAll('[data-testid=sweep-row]')].map((r) => r.cells[i].textContent ?? '');
      })()`)) as string[];
    await page.click('[data-sort="lcoe_nominal"]');
    const ascending = (await column('lcoe_nominal')).map(Number);
    t.same(
      ascending,
      [...ascending].sort((a, b) => a - b),
      `sorted by LCOE, lowest first: ${ascending}`,
    );
    t.equal(await page.locator('tr.best').count(), 1, 'one best row');
    await page.click('[data-sort="lcoe_nominal"]');
    const descending = (await column('lcoe_nominal')).map(Number);
    t.same(descending, [...ascending].reverse(), 'and the other way');
    const sorted = await lastMeasure(page, SWEEP_TABLE_SORTED);
    t.same(sorted.detail, { rows: 4, key: 'lcoe_nominal' }, `${SWEEP_TABLE_SORTED}: ${sorted.duration} ms`);
    t.ok((await paintedPixels(page, 'sweep-chart')) > 1000, 'the KPI chart is painted');
    // A row links to its scenario.
    await page.click('[data-testid=sweep-row] a');
    await page.waitForURL(/\/scenarios\//);
    await page.waitForSelector('[data-testid=kpi-equity_npv]');
    t.pass('a variant row opens its scenario');
    clean(t, page);
  });
});

t.test(
  'the create form: a 400 shows next to its field; a valid one lands on the new page; back and forward',
  async (t) => {
    await withProcessLogs(t, stack, async () => {
      const page = await open(t);
      await page.goto(`${base}/`);
      await page.fill('#f-site-latitude', '200');
      await page.fill('#f-solar-capacity_mw_dc', '-5');
      await page.fill('#f-solar-bifaciality', '1.5');
      await page.fill('#f-solar-albedo', '0.2, 0.3');
      await page.click('[data-testid=scenario-form] button[type=submit]');
      await page.waitForSelector('#f-site-latitude[aria-invalid=true]');
      t.match(await page.textContent('#f-site-latitude-error'), /90/, 'latitude: its error beside it');
      t.ok(await page.textContent('#f-solar-capacity_mw_dc-error'), 'solar capacity: its error beside it');
      t.match(await page.textContent('#f-solar-bifaciality-error'), /1/, 'bifaciality: its error beside it');
      t.match(await page.textContent('#f-solar-albedo-error'), /12/, 'two albedo values: the error says 12');
      t.equal(new URL(page.url()).pathname, '/', 'still on the form');
      t.equal(await page.inputValue('#f-solar-model'), 'pvwatts_v8', 'the form offers v8 first');

      await page.fill('#f-site-latitude', '35.2');
      await page.fill('#f-solar-capacity_mw_dc', '80');
      await page.fill('#f-solar-bifaciality', '0.7');
      await page.fill('#f-solar-albedo', '0.25 0.25 0.2 0.2 0.2 0.2 0.2 0.2 0.2 0.2 0.25 0.3');
      await page.fill('#f-name', 'from the form');
      await page.fill('#f-finance-tax_credits-solar-itc_percent', '30');
      await page.click('[data-testid=scenario-form] button[type=submit]');
      await page.waitForURL(/\/scenarios\/[0-9a-f-]{36}$/);
      const id = new URL(page.url()).pathname.split('/')[2];
      const stored = (await getJson(`${base}/api/scenarios/${id}`)).json as {
        name: string;
        inputs: {
          solar: { capacity_mw_dc: number; model: string; bifaciality: number; albedo: number[] };
          finance: { tax_credits: { solar: { itc_percent: number }; wind: { ptc_per_mwh: number } } };
        };
      };
      t.equal(stored.name, 'from the form');
      t.equal(stored.inputs.solar.capacity_mw_dc, 80, 'the fields became the inputs');
      t.same(
        [stored.inputs.solar.model, stored.inputs.solar.bifaciality, stored.inputs.solar.albedo],
        ['pvwatts_v8', 0.7, [0.25, 0.25, 0.2, 0.2, 0.2, 0.2, 0.2, 0.2, 0.2, 0.2, 0.25, 0.3]],
        'the model, bifaciality and monthly albedo from their fields',
      );
      t.equal(stored.inputs.finance.tax_credits.solar.itc_percent, 30, 'a tax credit from its field');
      t.equal(stored.inputs.finance.tax_credits.wind.ptc_per_mwh, 0, 'an empty field leaves the default');
      await page.waitForSelector('h1:has-text("from the form")');

      await page.goBack();
      await page.waitForSelector('[data-testid=scenario-form]');
      t.equal(new URL(page.url()).pathname, '/', 'back: the list');
      await page.goForward();
      await page.waitForSelector('[data-testid=status]');
      t.equal(new URL(page.url()).pathname, `/scenarios/${id}`, 'forward: the scenario again');
      t.match(await page.textContent('h1'), /from the form/);

      // The sweep form counts its variants before posting.
      await page.goto(`${base}/`);
      const offered = await page.$$eval('#p0-path option', (os) => os.map((o) => o.getAttribute('value') ?? ''));
      t.ok(
        offered.includes('/solar/model') && offered.includes('/solar/bifaciality'),
        'a sweep may vary the solar model and bifaciality',
      );
      await page.selectOption('#p0-path', '/solar/capacity_mw_dc');
      await page.fill('#p0-values', '10, 20, 30');
      await page.selectOption('#p1-path', '/grid/export_limit_mw');
      await page.fill('#p1-values', '100, 200');
      t.equal(await page.textContent('[data-testid=variant-count]'), '6 variants');
      clean(t, page);
    });
  },
);

t.test('back before a page has loaded: the page left never draws over the one shown', async (t) => {
  await withProcessLogs(t, stack, async () => {
    const created = await postScenario(base, { name: 'slow to load', site });
    const id = created.json.id as string;
    await succeeded(id);
    const page = await open(t);
    // The scenario's own GET answers only after the user has gone back.
    await page.route(`**/api/scenarios/${id}`, async (route) => {
      await new Promise((r) => setTimeout(r, 800));
      await route.continue();
    });
    await page.goto(`${base}/`);
    await page.waitForSelector('[data-testid=scenario-form]');
    // A link's navigation, as the router does it (pushState, then render).
    await page.evaluate(
      `history.pushState(null, '', '/scenarios/${id}'); dispatchEvent(new PopStateEvent('popstate'))`,
    );
    await page.goBack();
    await page.waitForSelector('[data-testid=scenario-form]');
    await page.waitForTimeout(1500);
    t.equal(new URL(page.url()).pathname, '/', 'back on the list');
    t.equal(await page.textContent('h1'), 'Scenarios and sweeps', "the list's heading, not the scenario's");
    t.ok(await page.isVisible('[data-testid=scenario-form]'), 'and its form');
    clean(t, page);
  });
});

t.test('phone width, labels, keyboard and contrast', async (t) => {
  const created = await postScenario(base, { name: 'phone', site });
  await succeeded(created.json.id as string);
  const page = await open(t, 390, 844);
  for (const path of ['/', `/scenarios/${created.json.id}`]) {
    await page.goto(`${base}${path}`);
    await page.waitForSelector(path === '/' ? '[data-testid=scenario-form]' : '[data-testid=heatmap][data-painted]');
    const overflow = (await page.evaluate('document.documentElement.scrollWidth - window.innerWidth')) as number;
    t.ok(overflow <= 1, `${path} at 390 px: no sideways scrolling of the page (${overflow} px)`);
  }
  await page.goto(`${base}/`);
  await page.waitForSelector('[data-testid=scenario-form]');
  const unlabelled = await page.evaluate(`[...document.querySelectorAll('input, select, textarea')]
    .filter((el) => !el.labels?.length && !el.getAttribute('aria-label'))
    .map((el) => el.id)`);
  t.same(unlabelled, [], 'every control has a label');
  // Contrast of text against its background (WCAG AA: 4.5 for normal text).
  const ratios = (await page.evaluate(`(() => {
    const lum = (c) => {
      const [r, g, b] = (c.match(/\\d+(\\.\\d+)?/g) ?? ['0', '0', '0']).slice(0, 3).map((v) => {
        const x = Number(v) / 255;
        return x <= 0.03928 ? x / 12.92 : ((x + 0.055) / 1.055) ** 2.4;
      });
      return 0.2126 * r + 0.7152 * g + 0.0722 * b;
    };
    const background = (el) => {
      for (; el; el = el.parentElement) {
        const bg = getComputedStyle(el).backgroundColor;
        if (bg && !bg.endsWith(', 0)') && bg !== 'transparent') return bg;
      }
      return 'rgb(255, 255, 255)';
    };
    const out = [];
    for (const sel of ['h1', 'label', '.muted', 'th', 'td', 'a', 'button', '.badge']) {
      const el = document.querySelector(sel);
      if (!el) continue;
      const a = lum(getComputedStyle(el).color);
      const b = lum(background(el));
      out.push([sel, (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05)]);
    }
    return out;
  })()`)) as Array<[string, number]>;
  for (const [sel, ratio] of ratios) t.ok(ratio >= 4.5, `${sel}: contrast ${ratio.toFixed(1)}:1`);
  // Keyboard: tab to the first scenario link and open it with Enter.
  let focused = '';
  for (let i = 0; i < 20 && !focused.startsWith('/scenarios/'); i++) {
    await page.keyboard.press('Tab');
    focused = await page.evaluate(`document.activeElement?.getAttribute('href') ?? ''`);
  }
  t.match(focused, /^\/scenarios\//, 'a scenario link is reachable with Tab');
  await page.keyboard.press('Enter');
  await page.waitForURL(/\/scenarios\//);
  t.pass('and Enter opens it');
  clean(t, page);
});

t.test('with API_KEYS: the key is asked for once, kept for the tab, never in a URL', async (t) => {
  const web = await stack.startWeb({ API_KEYS: 'viewer-secret-key' });
  const page = await open(t, 1400, 900, web.baseUrl);
  const urls: string[] = [];
  const unauthorised: string[] = [];
  page.on('request', (r) => {
    urls.push(r.url());
    if (new URL(r.url()).pathname.startsWith('/api/') && !r.headers().authorization) unauthorised.push(r.url());
  });
  await page.goto(`${web.baseUrl}/`);
  await page.waitForSelector('[data-testid=api-key-form]');
  await page.fill('#api-key', 'viewer-secret-key');
  await page.click('[data-testid=api-key-form] button');
  await page.waitForSelector('[data-testid=scenario-list] tbody tr');
  const before = unauthorised.length;
  await page.reload();
  await page.waitForSelector('[data-testid=scenario-list] tbody tr');
  t.equal(await page.locator('[data-testid=api-key-form]').count(), 0, 'not asked again in the same tab');
  t.equal(unauthorised.length, before, 'after the key, every API request carries it');
  t.ok(
    urls.every((u) => !u.includes('viewer-secret-key')),
    'the key is in no URL',
  );
  clean(t, page);
});

/** The list and its forms, ready to fill. */
async function openHome(t: Test): Promise<Page> {
  const page = await open(t);
  await page.goto(`${base}/`);
  await page.waitForSelector('[data-testid=scenario-form]');
  return page;
}

const SRW_PATH = fileURLToPath(new URL('./fixtures/reference/ssc_wind_constant_5ms.srw', import.meta.url));
const STORAGE_KPIS = ['storage_cycles_year1', 'curtailment_percent', 'curtailment_recovered_mwh', 'storage_revenue'];

t.test('a battery scenario: its dispatch week, SOC heatmap, KPI cards and annual table', async (t) => {
  await withProcessLogs(t, stack, async () => {
    const created = await postScenario(base, {
      name: 'with a battery',
      site,
      solar: { capacity_mw_dc: 150 },
      wind: { capacity_mw: 100 },
      grid: { export_limit_mw: 120 },
      storage: { power_mw: 40, energy_mwh: 160 },
    });
    const id = created.json.id as string;
    const kpis = await succeeded(id);
    const page = await open(t);
    await page.goto(`${base}/scenarios/${id}`);
    await page.waitForSelector('[data-testid=dispatch-chart][data-painted]', { timeout: 30_000 });
    await page.waitForSelector('[data-testid=soc-heatmap][data-painted]', { timeout: 30_000 });
    for (const chart of ['dispatch-chart', 'soc-heatmap']) {
      const n = await paintedPixels(page, chart);
      t.ok(n > 2000, `${chart}: ${n} painted pixels`);
      const right = await paintedPixels(page, chart, 0.75);
      t.ok(right > 1000, `${chart}: ${right} painted pixels in its last quarter (drawn to the end)`);
    }
    for (const name of STORAGE_KPIS) {
      t.ok(typeof kpis[name] === 'number', `the API's kpis have ${name}`);
      const shown = await page.getAttribute(`[data-testid=kpi-${name}]`, 'data-value');
      t.equal(shown, String(kpis[name]), `kpi-${name} is the API's ${kpis[name]}`);
    }
    t.equal(await page.locator('[data-testid=storage-annual-table] tbody tr').count(), 25, 'the battery: years 1–25');
    // Another week: the dispatch chart is drawn again.
    await page.selectOption('#battery-week', '10');
    await page.waitForSelector('[data-testid=dispatch-chart][data-painted="1-10"]');
    t.pass('another week drawn');
    clean(t, page);
  });
});

t.test('a battery with ancillary products: the week shows its reservations, the KPI card the API value', async (t) => {
  await withProcessLogs(t, stack, async () => {
    const created = await postScenario(base, {
      name: 'with reserves',
      site,
      grid: { export_limit_mw: 120 },
      market: {
        ancillary: [
          { name: 'reg_up', direction: 'up', price_per_mw_hour: 8, duration_hours: 1 },
          { name: 'reg_down', direction: 'down', price_per_mw_hour: 5, duration_hours: 1 },
        ],
      },
      storage: { power_mw: 20, energy_mwh: 60 },
    });
    const id = created.json.id as string;
    const kpis = await succeeded(id);
    const page = await open(t);
    await page.goto(`${base}/scenarios/${id}`);
    await page.waitForSelector('[data-testid=dispatch-chart][data-painted]', { timeout: 30_000 });
    t.equal(
      await page.getAttribute('[data-testid=dispatch-chart]', 'data-reserves'),
      'Reserved up (MW), Reserved down (MW)',
      'the week draws both reservations',
    );
    const n = await paintedPixels(page, 'dispatch-chart');
    t.ok(n > 2000, `dispatch-chart: ${n} painted pixels`);
    t.ok(typeof kpis.ancillary_revenue === 'number', "the API's kpis have ancillary_revenue");
    const shown = await page.getAttribute('[data-testid=kpi-ancillary_revenue]', 'data-value');
    t.equal(shown, String(kpis.ancillary_revenue), 'kpi-ancillary_revenue is the API value');
    clean(t, page);
  });
});

t.test("the create form's battery fields and wind file become inputs; a broken file shows its error", async (t) => {
  await withProcessLogs(t, stack, async () => {
    const page = await openHome(t);
    await page.fill('#f-name', 'battery and wind file');
    await page.fill('#f-storage-power_mw', '30');
    await page.fill('#f-storage-energy_mwh', '120');
    await page.selectOption('#f-storage-dispatch-strategy', 'capture');
    await page.fill('#f-wind-turbine-hub_height_m', '80');
    const good = readFileSync(SRW_PATH, 'utf8');
    const broken = good
      .split('\n')
      .map((l, i) => (i === 100 ? '15,0.95,abc,180' : l))
      .join('\n');
    await page.setInputFiles('#f-wind_resource', {
      name: 'broken.srw',
      mimeType: 'text/plain',
      buffer: Buffer.from(broken),
    });
    await page.click('[data-testid=scenario-form] button[type=submit]');
    await page.waitForSelector('#f-wind_resource[aria-invalid=true]');
    t.match(
      await page.textContent('#f-wind_resource-error'),
      /^line 101, column 3/,
      'the file error beside its picker',
    );
    t.equal(new URL(page.url()).pathname, '/', 'still on the form');

    await page.setInputFiles('#f-wind_resource', SRW_PATH);
    await page.click('[data-testid=scenario-form] button[type=submit]');
    await page.waitForURL(/\/scenarios\/[0-9a-f-]{36}$/);
    const id = new URL(page.url()).pathname.split('/')[2];
    const stored = (await getJson(`${base}/api/scenarios/${id}`)).json as {
      inputs: {
        storage: { power_mw: number; energy_mwh: number; dispatch: { strategy: string } };
        wind_resource: { source: string; id: string };
      };
    };
    t.same(
      [stored.inputs.storage.power_mw, stored.inputs.storage.energy_mwh, stored.inputs.storage.dispatch.strategy],
      [30, 120, 'capture'],
      'the battery fields became the inputs',
    );
    // The file went into the library; the scenario stores its reference, whose content is the file as read.
    t.equal(stored.inputs.wind_resource.source, 'resource');
    const content = await fetch(`${base}/api/resources/${stored.inputs.wind_resource.id}/content`);
    t.equal(await content.text(), good, "the file's text, as read");
    await succeeded(id);
    await page.waitForSelector('[data-testid=wind-rose][data-painted]', { timeout: 30_000 });
    const n = await paintedPixels(page, 'wind-rose');
    t.ok(n > 1000, `wind-rose: ${n} painted pixels`);
    t.match(await page.textContent('[data-testid=resource-wind]'), /SRW/, 'the resource: an SRW file');
    clean(t, page);
  });
});
