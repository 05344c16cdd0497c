// #13: the viewer, measured in Chromium (Debian's, driven by playwright-core) against the real web
// and worker: a finished scenario's page from navigation to its KPIs, one year's heatmap from its
// data's arrival to painted, the bytes a finished scenario's page transfers (gzip, one year of
// hourly data included), and a 2,000-variant sweep's table sorted.
import type pg from 'pg';
import { type Browser, chromium, type Page } from 'playwright-core';
import { CHROMIUM, ensureChromium } from '../scripts/chromium.ts';
import { HEATMAP_PAINTED, SWEEP_TABLE_SORTED } from '../server/viewer/client/timings.ts';
import { accepted, DEFAULT_SCENARIO, postJson } from '../test/helpers/http.ts';
import { waitUntil } from '../test/helpers/wait.ts';
import type { Bench } from './context.ts';
import { startWeb, startWorker } from './procs.ts';
import { median } from './stats.ts';

export interface ViewerSizes {
  navigations: number;
  heatmaps: number;
  variants: number;
  sorts: number;
}
export const VIEWER_FULL: ViewerSizes = { navigations: 15, heatmaps: 10, variants: 2000, sorts: 9 };
export const VIEWER_QUICK: ViewerSizes = { navigations: 3, heatmaps: 3, variants: 100, sorts: 3 };

const { site } = DEFAULT_SCENARIO;

/** The durations (ms) of the page's User Timing measures of that name, oldest first. */
function measures(page: Page, name: string): Promise<number[]> {
  return page.evaluate((n) => performance.getEntriesByName(n, 'measure').map((e) => e.duration), name);
}

async function post(base: string, path: string, body: unknown): Promise<{ id: string }> {
  return accepted(await postJson(`${base}${path}`, body), path) as { id: string };
}

/** A scenario posted and run by the worker; its id. */
async function finishedScenario(pool: pg.Pool, base: string): Promise<string> {
  const { id } = await post(base, '/api/scenarios', { name: 'viewer bench', site });
  await waitUntil(
    async () => {
      const { rows } = await pool.query<{ status: string }>('SELECT status FROM scenarios WHERE id = $1', [id]);
      return rows[0]?.status === 'succeeded';
    },
    { timeoutMs: 120_000, everyMs: 100, what: 'the viewer scenario to succeed' },
  );
  return id;
}

/**
 * A sweep whose variants are made finished by SQL (no worker runs them), each with the KPIs of
 * the finished scenario scaled by its index: 2,000 distinct rows to sort without 2,000 runs.
 */
async function finishedSweep(pool: pg.Pool, base: string, scenarioId: string, variants: number): Promise<string> {
  const sweep = await post(base, '/api/sweeps', {
    name: 'viewer bench sweep',
    base: { site },
    vary: [
      { path: '/solar/capacity_mw_dc', values: Array.from({ length: variants / 20 }, (_, i) => 10 + 5 * i) },
      { path: '/grid/export_limit_mw', from: 100, to: 290, step: 10 },
    ],
  });
  const { rows: found } = await pool.query<{ summary: Record<string, unknown> }>(
    'SELECT summary FROM scenarios WHERE id = $1',
    [scenarioId],
  );
  const { rows } = await pool.query<{ id: string; variant_index: number }>(
    'SELECT id, variant_index FROM scenarios WHERE sweep_id = $1',
    [sweep.id],
  );
  const summaries = rows.map((v) =>
    JSON.stringify(
      Object.fromEntries(
        Object.entries(found[0].summary).map(([k, x]) => [
          k,
          typeof x === 'number' ? x * (1 + v.variant_index / 1000) : x,
        ]),
      ),
    ),
  );
  await pool.query(
    `UPDATE scenarios v SET status = 'succeeded', started_at = now(), finished_at = now(), summary = d.summary
       FROM unnest($1::uuid[], $2::json[]) AS d(id, summary) WHERE v.id = d.id`,
    [rows.map((v) => v.id), summaries],
  );
  return sweep.id;
}

const VIEWPORT = { viewport: { width: 1400, height: 900 } };

/** Navigation → KPIs shown, ms, each in a fresh context (nothing cached). */
async function navigationTimes(browser: Browser, url: string, n: number): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const context = await browser.newContext(VIEWPORT);
    const page = await context.newPage();
    await page.goto(url, { waitUntil: 'commit' });
    await page.waitForSelector('[data-testid=kpi-equity_npv]');
    // performance.now() counts from the navigation's start.
    times.push((await page.evaluate('performance.now()')) as number);
    await context.close();
  }
  return times;
}

/**
 * The bytes transferred for the whole page, as on the wire (gzip), until its heatmap has painted;
 * then one year's heatmap, data arrival → painted, ms, for `n` other years chosen in the page.
 */
async function scenarioPageFigures(browser: Browser, url: string, n: number) {
  const context = await browser.newContext(VIEWPORT);
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send('Network.enable');
  let bytes = 0;
  cdp.on('Network.loadingFinished', (e: { encodedDataLength: number }) => {
    bytes += e.encodedDataLength;
  });
  await page.goto(url);
  await page.waitForSelector('[data-testid=heatmap][data-painted]');
  await page.waitForLoadState('networkidle');
  const pageBytes = bytes;
  for (let i = 0; i < n; i++) {
    const before = (await measures(page, HEATMAP_PAINTED)).length;
    await page.selectOption('#heat-year', String(i + 2));
    await waitUntil(async () => (await measures(page, HEATMAP_PAINTED)).length > before, {
      everyMs: 10,
      what: `the heatmap of year ${i + 2}`,
    });
  }
  const heatmapMs = (await measures(page, HEATMAP_PAINTED)).slice(1);
  await context.close();
  return { pageBytes, heatmapMs };
}

/** The sweep page's table sorted `n` times, by one column after another: the rows shown and each sort's ms. */
async function sortTimes(browser: Browser, url: string, n: number) {
  const context = await browser.newContext(VIEWPORT);
  const page = await context.newPage();
  await page.goto(url);
  await page.waitForSelector('[data-testid=sweep-row]');
  const columns = ['lcoe_nominal', 'equity_irr', 'min_dscr', 'equity_npv'];
  const before = (await measures(page, SWEEP_TABLE_SORTED)).length;
  for (let i = 0; i < n; i++) await page.click(`[data-sort="${columns[i % columns.length]}"]`);
  const rowsShown = (await page.locator('[data-testid=sweep-row]').count()) as number;
  const sortMs = (await measures(page, SWEEP_TABLE_SORTED)).slice(before);
  await context.close();
  return { rowsShown, sortMs };
}

export async function viewer(b: Bench, url: string, sizes: ViewerSizes): Promise<void> {
  // As `npm test` does: installed with apt-get when missing (as root on Debian); otherwise #13 is
  // left out of the table with a line that says why, and the other groups' figures stand.
  if (!(await ensureChromium())) {
    b.notes.push(
      `#13 not measured: no Chromium at ${CHROMIUM} and it cannot be installed here (apt-get install -y chromium, as root)`,
    );
    b.skipped.push('viewer (#13): no Chromium');
    return;
  }
  const web = await startWeb(url, b.logDir, 'web-viewer');
  const worker = await startWorker(url, b.logDir, 'worker-viewer');
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  const base = `http://127.0.0.1:${web.port}`;
  try {
    const pool = b.pool(url);
    const scenarioId = await finishedScenario(pool, base);
    await worker.stop();
    const sweepId = await finishedSweep(pool, base, scenarioId, sizes.variants);
    const navigation = await navigationTimes(browser, `${base}/scenarios/${scenarioId}`, sizes.navigations);
    const { pageBytes, heatmapMs } = await scenarioPageFigures(
      browser,
      `${base}/scenarios/${scenarioId}`,
      sizes.heatmaps,
    );
    const { rowsShown, sortMs } = await sortTimes(browser, `${base}/sweeps/${sweepId}`, sizes.sorts);
    b.rows.push(
      {
        n: '13',
        figure: `Finished scenario: navigation → KPIs shown, p50 (${sizes.navigations}, cold cache)`,
        value: median(navigation),
        unit: 'ms',
        target: '≤ 500 ms',
        met: median(navigation) <= 500,
      },
      {
        n: '13',
        figure: `One year's heatmap, data arrival → painted, p50 (${heatmapMs.length})`,
        value: median(heatmapMs),
        unit: 'ms',
        target: '≤ 150 ms',
        met: median(heatmapMs) <= 150,
      },
      {
        n: '13',
        figure: "Bytes transferred for a finished scenario's page (gzip, one year of hourly data)",
        value: pageBytes / 1000,
        unit: 'kB',
        target: '≤ 400 kB',
        met: pageBytes <= 400_000,
      },
      {
        n: '13',
        figure: `Sweep page with ${rowsShown.toLocaleString('en-US')} variants: table sorted, p50 (${sortMs.length})`,
        value: median(sortMs),
        unit: 'ms',
        target: '≤ 200 ms',
        met: median(sortMs) <= 200,
      },
    );
  } finally {
    await browser.close();
    await worker.stop().catch(() => {});
    await web.stop();
  }
}
