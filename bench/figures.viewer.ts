// #13: the viewer, measured in Chromium (Debian's, driven by playwright-core) against the real web
// and worker: a finished scenario's page from navigation to its KPIs, one year's heatmap from its
// data's arrival to painted, the bytes a finished scenario's page transfers (gzip, one year of
// hourly data included), and a 2,000-variant sweep's table sorted.
import { chromium } from 'playwright-core';
import { CHROMIUM, ensureChromium } from '../scripts/chromium.ts';
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

const site = { latitude: 35.2, longitude: -101.8 };

async function post(base: string, path: string, body: unknown): Promise<{ id: string }> {
  const res = await fetch(`${base}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (res.status !== 201) throw new Error(`${path}: ${res.status}`);
  return (await res.json()) as { id: string };
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
    const scenario = await post(base, '/api/scenarios', { name: 'viewer bench', site });
    for (;;) {
      const { rows } = await pool.query<{ status: string }>('SELECT status FROM scenarios WHERE id = $1', [
        scenario.id,
      ]);
      if (rows[0]?.status === 'succeeded') break;
      await new Promise((r) => setTimeout(r, 100));
    }
    await worker.stop();
    // A sweep whose variants are made finished by SQL (no worker runs them), each with the KPIs of
    // the finished scenario scaled by its index: 2,000 distinct rows to sort without 2,000 runs.
    const sweep = await post(base, '/api/sweeps', {
      name: 'viewer bench sweep',
      base: { site },
      vary: [
        { path: '/solar/capacity_mw_dc', values: Array.from({ length: sizes.variants / 20 }, (_, i) => 10 + 5 * i) },
        { path: '/grid/export_limit_mw', from: 100, to: 290, step: 10 },
      ],
    });
    const { rows: found } = await pool.query<{ summary: Record<string, unknown> }>(
      'SELECT summary FROM scenarios WHERE id = $1',
      [scenario.id],
    );
    const { rows: variants } = await pool.query<{ id: string; variant_index: number }>(
      'SELECT id, variant_index FROM scenarios WHERE sweep_id = $1',
      [sweep.id],
    );
    const summaries = variants.map((v) =>
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
      [variants.map((v) => v.id), summaries],
    );

    // Navigation → KPIs shown, each in a fresh context (nothing cached).
    const navigation: number[] = [];
    for (let i = 0; i < sizes.navigations; i++) {
      const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
      const page = await context.newPage();
      await page.goto(`${base}/scenarios/${scenario.id}`, { waitUntil: 'commit' });
      await page.waitForSelector('[data-testid=kpi-equity_npv]');
      // performance.now() counts from the navigation's start.
      navigation.push((await page.evaluate('performance.now()')) as number);
      await context.close();
    }

    // Bytes transferred for the whole page, as on the wire (gzip), until the heatmap has painted.
    const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    await cdp.send('Network.enable');
    let bytes = 0;
    cdp.on('Network.loadingFinished', (e: { encodedDataLength: number }) => {
      bytes += e.encodedDataLength;
    });
    await page.goto(`${base}/scenarios/${scenario.id}`);
    await page.waitForSelector('[data-testid=heatmap][data-painted]');
    await page.waitForLoadState('networkidle');
    const pageBytes = bytes;

    // One year's heatmap: data arrival → painted, for other years chosen in the page.
    const drawn = async () => ((await page.evaluate('window.hourglassTimings?.heatmapMs?.length ?? 0')) as number) ?? 0;
    for (let i = 0; i < sizes.heatmaps; i++) {
      const before = await drawn();
      await page.selectOption('#heat-year', String(i + 2));
      while ((await drawn()) === before) await new Promise((r) => setTimeout(r, 10));
    }
    const heatmapMs = ((await page.evaluate('window.hourglassTimings?.heatmapMs ?? []')) as number[]).slice(1);
    await context.close();

    // The sweep page's table, sorted by one column after another.
    const sweepContext = await browser.newContext({ viewport: { width: 1400, height: 900 } });
    const sweepPage = await sweepContext.newPage();
    await sweepPage.goto(`${base}/sweeps/${sweep.id}`);
    await sweepPage.waitForSelector('[data-testid=sweep-row]');
    const columns = ['lcoe_nominal', 'equity_irr', 'min_dscr', 'equity_npv'];
    const before = ((await sweepPage.evaluate('window.hourglassSweep.sortMs.length')) as number) ?? 0;
    for (let i = 0; i < sizes.sorts; i++) {
      await sweepPage.click(`[data-sort="${columns[i % columns.length]}"]`);
    }
    const rowsShown = (await sweepPage.locator('[data-testid=sweep-row]').count()) as number;
    const sortMs = ((await sweepPage.evaluate('window.hourglassSweep.sortMs')) as number[]).slice(before);
    await sweepContext.close();

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
