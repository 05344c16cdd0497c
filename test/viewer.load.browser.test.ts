// A buyer's load in the viewer, in a real browser (Debian's Chromium, playwright-core) against the
// real web, worker and Postgres: the create form's load fields (an hourly load as a CSV file with a
// header line, a contract price, a monthly availability threshold, the backup price, the battery's
// `load` strategy offered only once a load is given) become the scenario's inputs; 100 values
// pasted (two columns) and a threshold of 101 % show the server's 400 beside each field, both a
// flat and an hourly load beside the load's group. The scenario's page then paints the load's
// week, its month × hour match and availability of years, months and peak blocks against the
// threshold, and the load's KPI cards show the API's values. The page's split of each hour (served
// directly, from the battery, unmet, excess) is checked against the engine's own annual figures.

import t from 'tap';
import { monthHourMatch, servedHours } from '../server/viewer/client/load.hours.ts';
import type { HourlyYear } from '../server/viewer/client/types.ts';
import { HOURS_PER_YEAR } from '../shared/calendar.ts';
import { browserAndStack, clean, openPage, paintedPixels, until } from './helpers/browser.ts';
import { DEFAULT_SCENARIO, getJson, postScenario } from './helpers/http.ts';
import { withProcessLogs } from './helpers/stack.ts';
import { waitUntil } from './helpers/wait.ts';

const { browser, stack } = await browserAndStack(t, { workers: [{}] });
const base = stack.web.baseUrl;

/** A data centre's 40 MW with an evening peak of 70 MW (18:00–22:00). */
const LOAD = Array.from({ length: HOURS_PER_YEAR }, (_, h) => (h % 24 >= 18 && h % 24 < 22 ? 70 : 40));
const csv = (values: number[]) => `load_mw\n${values.join('\n')}\n`;
const LOAD_KPIS = [
  'hourly_match_percent',
  'annual_match_percent',
  'cfe_percent',
  'availability_year_percent',
  'availability_worst_month_percent',
  'availability_peak_percent',
  'unmet_mwh_year1',
  'lcod_nominal',
  'buyer_cost_per_mwh',
];

const near = (a: number, b: number, tolerance: number) => Math.abs(a - b) <= tolerance;
/** The hourly arrays come to 0.001 MWh: an hour's split may be off by a few of those. */
const ROUNDING = 0.005;

t.test('a load through the form: a bad CSV named at its field, then the week, match and availability', async (t) => {
  await withProcessLogs(t, stack, async () => {
    const page = await openPage(browser, t, base);
    await page.goto(`${base}/`);
    await page.waitForSelector('[data-testid=scenario-form]');
    const loadOption = '#f-storage-dispatch-strategy option[value=load]';
    t.equal(await page.getAttribute(loadOption, 'disabled'), '', 'no load yet: the `load` strategy is not offered');

    await page.fill('#f-name', 'a data centre');
    await page.fill('#f-solar-capacity_mw_dc', '120');
    await page.fill('#f-wind-capacity_mw', '80');
    await page.fill('#f-storage-power_mw', '30');
    await page.fill('#f-storage-energy_mwh', '120');
    // 100 values pasted as a two-column CSV (the last column is the load) and a threshold above
    // 100 %: the server's 400 names each, shown beside its field.
    const twoColumns = `hour,load_mw\n${LOAD.slice(0, 100)
      .map((v, i) => `${i},${v}`)
      .join('\n')}\n`;
    await page.fill('#f-load-hourly_mw', twoColumns);
    t.equal(await page.getAttribute(loadOption, 'disabled'), null, 'a load given: `load` offered');
    await page.selectOption('#f-storage-dispatch-strategy', 'load');
    await page.fill('#f-load-contract-price_per_mwh', '70');
    await page.selectOption('#f-load-contract-availability-0-period', 'month');
    await page.fill('#f-load-contract-availability-0-min_percent', '101');
    await page.fill('#f-load-backup-price_per_mwh', '90');
    const posted = page.waitForRequest((r) => r.method() === 'POST' && r.url().endsWith('/api/scenarios'));
    await page.click('[data-testid=scenario-form] button[type=submit]');
    const sent = (await posted).postDataJSON() as { load: { hourly_mw: unknown[] } };
    t.same(sent.load.hourly_mw, LOAD.slice(0, 100), 'the header skipped, the last column sent as numbers');
    await page.waitForSelector('#f-load-hourly_mw[aria-invalid=true]');
    const error = (await page.textContent('#f-load-hourly_mw-error')) ?? '';
    t.match(error, /8,?760/, `the error beside the hourly box: "${error}"`);
    await page.waitForSelector('#f-load-contract-availability-0-min_percent[aria-invalid=true]');
    const thresholdError = (await page.textContent('#f-load-contract-availability-0-min_percent-error')) ?? '';
    t.match(thresholdError, /100/, `the threshold's error beside it: "${thresholdError}"`);
    await page.fill('#f-load-contract-availability-0-min_percent', '95');
    t.equal(new URL(page.url()).pathname, '/', 'still on the form');
    t.equal(await page.textContent('[data-testid=form-errors]'), '', 'nothing left for the general box');

    // The whole year as a CSV file with a header line, read into the box (Playwright's fill types
    // a long text into a textarea line by line: 1,000 lines took 2.6 s, 8,760 more than a minute);
    // with a flat load as well, the 400 names /load itself, shown beside the group.
    await page.setInputFiles('#f-load-csv', { name: 'load.csv', mimeType: 'text/csv', buffer: Buffer.from(csv(LOAD)) });
    await until(page, `document.querySelector('#f-load-hourly_mw').value.split('\\n').length > ${HOURS_PER_YEAR}`);
    await page.fill('#f-load-flat_mw', '50');
    await page.click('[data-testid=scenario-form] button[type=submit]');
    await page.waitForSelector('#f-load[aria-invalid=true]');
    t.ok(((await page.textContent('#f-load-error')) ?? '').length > 0, 'the error of /load beside the group');
    t.equal(await page.getAttribute('#f-load-hourly_mw', 'aria-invalid'), null, 'and no longer at the hourly box');
    await page.fill('#f-load-flat_mw', '');
    await page.click('[data-testid=scenario-form] button[type=submit]');
    await page.waitForURL(/\/scenarios\/[0-9a-f-]{36}$/);
    const id = new URL(page.url()).pathname.split('/')[2];
    const stored = (await getJson(`${base}/api/scenarios/${id}`)).json as {
      inputs: {
        load: {
          hourly_mw: number[];
          contract: { price_per_mwh: number; availability: unknown[] };
          backup: { price_per_mwh: number };
        };
        storage: { dispatch: { strategy: string } };
      };
    };
    const { load } = stored.inputs;
    // The form's hours went into the library: the scenario stores the series' reference.
    const series = await fetch(
      `${base}/api/resources/${(load.hourly_mw as unknown as { resource: string }).resource}/content`,
    );
    t.same(await series.json(), LOAD, 'the CSV became hourly_mw (header skipped)');
    t.equal(load.contract.price_per_mwh, 70);
    t.same(load.contract.availability, [{ period: 'month', min_percent: 95 }], 'one threshold, as an array');
    t.equal(load.backup.price_per_mwh, 90);
    t.equal(stored.inputs.storage.dispatch.strategy, 'load');

    let kpis: Record<string, number | null> = {};
    await waitUntil(
      async () => {
        const s = (await getJson(`${base}/api/scenarios/${id}`)).json as { status: string; kpis: typeof kpis };
        kpis = s.kpis;
        if (s.status === 'failed') throw new Error('the scenario failed');
        return s.status === 'succeeded';
      },
      { timeoutMs: 90_000, what: 'the load scenario' },
    );
    for (const testid of [
      'load-week-chart',
      'match-heatmap',
      'availability-years',
      'availability-months',
      'availability-peak',
    ])
      await page.waitForSelector(`[data-testid=${testid}][data-painted]`, { timeout: 30_000 });
    for (const chart of [
      'load-week-chart',
      'match-heatmap',
      'availability-years',
      'availability-months',
      'availability-peak',
    ]) {
      const n = await paintedPixels(page, chart);
      t.ok(n > 2000, `${chart}: ${n} painted pixels`);
    }
    const right = await paintedPixels(page, 'load-week-chart', 0.75);
    t.ok(right > 1000, `load-week-chart: ${right} painted pixels in its last quarter (drawn to the end)`);
    for (const name of LOAD_KPIS) {
      t.ok(typeof kpis[name] === 'number', `the API's kpis have ${name}`);
      const shown = await page.getAttribute(`[data-testid=kpi-${name}]`, 'data-value');
      t.equal(shown, String(kpis[name]), `kpi-${name} is the API's ${kpis[name]}`);
    }
    t.match(
      await page.textContent('[data-testid=availability-months-note]'),
      /^Year 1: (Below|At or above) the monthly minimum of 95\.0 %/,
      'the months of the year against the threshold',
    );
    t.match(await page.textContent('[data-testid=shortfall-total]'), /shortfall/i);

    // Another year and week: drawn again from that year's data.
    await page.selectOption('#load-year', '3');
    await page.waitForSelector(
      '[data-testid=match-heatmap][data-painted]:not([data-painted="' +
        (await page.getAttribute('[data-testid=match-heatmap]', 'data-painted')) +
        '"])',
    );
    await page.selectOption('#load-week', '20');
    await page.waitForSelector('[data-testid=load-week-chart][data-painted="3-20"]');
    t.pass('another year and week drawn');
    clean(t, page);

    // The page's split of each hour against the engine's own figures of year 1.
    const year = (await getJson(`${base}/api/scenarios/${id}/statements?year=1`)).json as unknown as HourlyYear;
    const st = (await getJson(`${base}/api/scenarios/${id}/statements?hourly=false`)).json as {
      annual: Array<Record<string, number>>;
    };
    const served = servedHours(year);
    if (!served) throw new Error('no load_hourly or delivered_hourly in ?year=1');
    let parts = 0;
    let sums = { direct: 0, battery: 0, unmet: 0, excess: 0, delivered: 0, discharge: 0 };
    for (let k = 0; k < HOURS_PER_YEAR; k++) {
      if (near(served.direct[k] + served.battery[k] + served.unmet[k], served.load[k], ROUNDING)) parts++;
      sums = {
        direct: sums.direct + served.direct[k],
        battery: sums.battery + served.battery[k],
        unmet: sums.unmet + served.unmet[k],
        excess: sums.excess + served.excess[k],
        delivered: sums.delivered + served.delivered[k],
        discharge: sums.discharge + (year.storage_discharge_hourly?.[k] ?? 0),
      };
    }
    t.equal(parts, HOURS_PER_YEAR, 'every hour: served directly + from the battery + unmet = the load');
    const a = st.annual[0];
    t.ok(near(sums.unmet, a.unmet_mwh, 1e-3 * a.load_mwh), `unmet ${sums.unmet} = the engine's ${a.unmet_mwh}`);
    t.ok(
      near(sums.excess, a.excess_sold_mwh, 1e-3 * a.load_mwh),
      `excess ${sums.excess} = the engine's excess sold ${a.excess_sold_mwh}`,
    );
    t.ok(sums.battery > 0, `the battery served ${sums.battery} MWh of the load`);
    t.ok(sums.battery <= sums.discharge + HOURS_PER_YEAR * ROUNDING, `no more than it discharged (${sums.discharge})`);
    // The heatmap's cells, weighted by energy, give back the year's availability.
    const match = monthHourMatch(served.load, served.delivered);
    t.equal(match.length, 12);
    t.ok(match.every((row) => row.length === 24 && row.every((v) => v !== null && v >= 0 && v <= 100 + 1e-9)));
    t.ok(
      near((100 * sums.delivered) / a.load_mwh, a.availability_year_percent, 0.01),
      'delivered ÷ load = availability',
    );
  });
});

t.test('a 25-year hourly load: the page names its peak and paints its week', async (t) => {
  await withProcessLogs(t, stack, async () => {
    // 25 years of hours, the peak (95 MW) once, in year 20: more values than Math.max(...) takes.
    const years: number[] = Array.from({ length: 25 * HOURS_PER_YEAR }, (_, i) => LOAD[i % HOURS_PER_YEAR]);
    years[19 * HOURS_PER_YEAR + 1000] = 95;
    const created = await postScenario(base, {
      ...DEFAULT_SCENARIO,
      name: 'a 25-year load',
      load: { hourly_mw: years },
    });
    t.equal(created.status, 201);
    const id = created.json.id as string;
    await waitUntil(async () => (await getJson(`${base}/api/scenarios/${id}`)).json.status === 'succeeded', {
      timeoutMs: 90_000,
      what: 'the 25-year load scenario',
    });
    const page = await openPage(browser, t, base);
    await page.goto(`${base}/scenarios/${id}`);
    await page.waitForSelector('[data-testid=load-week-chart][data-painted]', { timeout: 30_000 });
    t.match(await page.textContent('body'), /hourly profile, peak 95\.0 MW/, 'the peak of all 25 years');
    clean(t, page);
  });
});
