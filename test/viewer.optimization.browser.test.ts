// The optimization viewer in a real browser (Debian's Chromium, playwright-core) against the real
// web, worker and Postgres: "Optimize this" on a finished scenario's page posts an optimization
// from the scenario's inputs and opens its page; the page follows it live to the end, shows the
// best design the API reports with a link to its scenario, and paints the best-so-far curve and
// the points tried against each variable. A bad range shows the server's named problem. A finished
// optimization without a best (no evaluation has its objective) says so.

import t from 'tap';
import { browserAndStack, clean, openPage, paintedPixels, until } from './helpers/browser.ts';
import { accepted, getJson, postJson, postScenario } from './helpers/http.ts';
import { waitUntil } from './helpers/wait.ts';

const { browser, stack } = await browserAndStack(t, { workers: [{}] });
const base = stack.web.baseUrl;

async function finishedScenario(): Promise<string> {
  const created = accepted(
    await postScenario(base, {
      name: 'to optimize',
      site: { latitude: 35.2, longitude: -101.8 },
      seed: 42,
      grid: { export_limit_mw: 150 },
    }),
    'scenario',
  );
  const id = created.id as string;
  await waitUntil(async () => (await getJson(`${base}/api/scenarios/${id}`)).json.status === 'succeeded', {
    timeoutMs: 60_000,
    what: 'the scenario',
  });
  return id;
}

t.test(
  'optimize this: from a scenario to a finished optimization, live, its best linked and charts painted',
  async (t) => {
    const scenarioId = await finishedScenario();
    const page = await openPage(browser, t, base);
    await page.goto(`${base}/scenarios/${scenarioId}`);
    const form = page.getByTestId('optimize-form');
    await form.waitFor();
    // A bad range first: the server's problem is shown, naming the field.
    await page.getByLabel('Solar (MW DC) min').fill('400');
    await form.getByRole('button', { name: 'Optimize' }).click();
    await until(
      page,
      `document.querySelector('[data-testid="optimize-errors"]').textContent.includes('/variables/0/min')`,
    );
    // Then a small search: solar and wind 0–300 in steps of 50, at most 30 evaluations.
    await page.getByLabel('Solar (MW DC) min').fill('0');
    await page.getByLabel('Solar (MW DC) step').fill('50');
    await page.getByLabel('Wind (MW) step').fill('50');
    await page.getByLabel('Evaluations at most').fill('30');
    await form.getByRole('button', { name: 'Optimize' }).click();
    await until(page, `location.pathname.startsWith('/optimizations/')`);
    const id = new URL(page.url()).pathname.split('/').pop() as string;
    await until(page, `document.querySelector('[data-testid="status"]')?.textContent === 'succeeded'`, 120_000);
    const o = (await getJson(`${base}/api/optimizations/${id}`)).json as {
      status: string;
      evaluations: number;
      best: { scenario_id: string; values: Record<string, number> };
    };
    t.equal(o.status, 'succeeded');
    t.ok(o.evaluations <= 30, `${o.evaluations} evaluations`);
    await until(
      page,
      `document.querySelector('[data-testid="best-link"]')?.getAttribute('href') === '/scenarios/${o.best.scenario_id}'`,
    );
    const shown = await page.getByTestId('best-values').textContent();
    for (const v of Object.values(o.best.values)) t.ok(shown?.includes(String(v)), `the best value ${v} is shown`);
    await until(
      page,
      `document.querySelector('[data-testid="counts"]').textContent.startsWith('${o.evaluations} evaluations')`,
    );
    await waitUntil(async () => (await paintedPixels(page, 'best-chart')) > 500, {
      timeoutMs: 10_000,
      what: 'best chart',
    });
    for (const k of [0, 1]) {
      await waitUntil(async () => (await paintedPixels(page, `points-chart-${k}`)) > 500, {
        timeoutMs: 10_000,
        what: `points chart ${k}`,
      });
    }
    await page.getByTestId('best-link').click();
    await until(page, `location.pathname === '/scenarios/${o.best.scenario_id}'`);
    t.pass('the best design links to its scenario');
    clean(t, page);
  },
);

t.test('a finished optimization whose objective no evaluation has says so, not "not finished yet"', async (t) => {
  // At a PPA price of 1 per MWh the project never pays back: every payback_year is null.
  const created = await postJson(`${base}/api/optimizations`, {
    name: 'never pays back',
    base: { site: { latitude: 35.2, longitude: -101.8 }, seed: 42, market: { ppa_price_per_mwh: 1 } },
    variables: [{ path: '/solar/capacity_mw_dc', min: 50, max: 150, step: 50 }],
    objective: { minimize: 'payback_year' },
    max_evaluations: 4,
  });
  const id = accepted(created, 'optimization').id as string;
  const page = await openPage(browser, t, base);
  await page.goto(`${base}/optimizations/${id}`);
  await until(page, `document.querySelector('[data-testid="status"]')?.textContent === 'succeeded'`, 120_000);
  const o = (await getJson(`${base}/api/optimizations/${id}`)).json as { best: unknown; evaluations: number };
  t.equal(o.best, null, `no best in ${o.evaluations} evaluations`);
  await until(page, `document.querySelector('[data-testid="best"]').textContent.includes('No evaluation gave')`);
  t.match(await page.getByTestId('best').textContent(), /No evaluation gave a value of payback_year/);
  clean(t, page);
});
