// The Files page in a real browser against the real web and Postgres: reached from the header's
// link; the Phoenix TMY2 file, an SRW file and an hourly series uploaded through its form, each
// listed with the statistics the API computed and its picture painted (monthly irradiance, a wind
// rose, the series' week); a bad file refused with the line and column shown; a used file's delete
// refused naming its users, an unused one deleted; a phone's width; the create form's pick of a
// library file posted as a reference. HOURGLASS_FILES_PNG=<path> keeps a screenshot.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { HOURS_PER_YEAR } from '../shared/calendar.ts';
import { uuidv7 } from '../shared/ids.ts';
import { browserAndStack, clean, openPage, paintedPixels, until } from './helpers/browser.ts';
import { getJson } from './helpers/http.ts';
import { withProcessLogs } from './helpers/stack.ts';

const { browser, stack } = await browserAndStack(t, {});
const base = stack.web.baseUrl;
const fixture = (name: string) => new URL(`./fixtures/reference/${name}`, import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), 'hourglass-files-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));

interface Listed {
  id: string;
  name: string;
  kind: string;
  metadata: { heights_m?: number[]; statistics: Record<string, unknown> };
}

const card = (kind: string) => `[data-testid=resource][data-kind=${kind}]`;

t.test('upload, list with statistics and pictures, refuse a bad file, delete', async (t) => {
  await withProcessLogs(t, stack, async () => {
    const page = await openPage(browser, t, base);
    page.on('dialog', (d) => void d.accept());
    await page.goto(`${base}/`);
    await page.getByRole('link', { name: 'Files' }).click();
    await page.waitForSelector('[data-testid=upload-form]');
    t.equal(new URL(page.url()).pathname, '/files', 'the header links to the Files page');
    await page.getByText('No files yet').waitFor();

    const upload = async (path: string, kind: 'file' | 'hourly_series') => {
      await page.setInputFiles('#upload-file', path);
      await page.selectOption('#upload-kind', kind);
      await page.click('[data-testid=upload-form] button[type=submit]');
    };
    await upload(fixture('phoenix_az_tmy2.csv'), 'file');
    await page.waitForSelector(`${card('weather')} [data-testid=resource-chart-weather][data-painted]`);
    await upload(fixture('az_eastern_rolling_hills.srw'), 'file');
    await page.waitForSelector(`${card('wind_resource')} [data-testid=resource-chart-wind_resource][data-painted]`);
    // A price: dear in the evening, dearest on one July day; one value a line under a header.
    const prices = Array.from({ length: HOURS_PER_YEAR }, (_, h): number => (h % 24 >= 17 && h % 24 < 21 ? 80 : 30));
    prices[4500] = 250;
    const priceFile = join(dir, 'evening prices.csv');
    writeFileSync(priceFile, `price_per_mwh\n${prices.join('\n')}\n`);
    await upload(priceFile, 'hourly_series');
    await page.waitForSelector(`${card('hourly_series')} [data-testid=resource-chart-hourly_series][data-painted]`);
    t.match(await page.textContent('[data-testid=upload-status]'), /Stored evening prices\.csv/);

    // What the cards say is what the API computed.
    const { json } = await getJson(`${base}/api/resources`);
    const items = (json as unknown as { items: Listed[] }).items;
    t.same(
      items.map((r) => r.kind),
      ['hourly_series', 'wind_resource', 'weather'],
      'newest first',
    );
    const [series, srw, tmy] = items;
    t.equal(tmy.name, 'phoenix_az_tmy2', 'named after the file');
    const weatherText = (await page.textContent(card('weather'))) ?? '';
    const ghi = Math.round(tmy.metadata.statistics.annual_ghi_kwh_m2 as number).toLocaleString('en-US');
    t.match(weatherText, `Annual GHI${ghi} kWh/m²`, `annual GHI ${ghi}`);
    t.match(weatherText, /Mean temperature\d+\.\d °C/);
    t.match(weatherText, /Location33\.\d+°, -112\.\d+°Elevation339 m/, 'Phoenix');
    const srwText = (await page.textContent(card('wind_resource'))) ?? '';
    for (const height of srw.metadata.heights_m ?? []) t.match(srwText, `Mean speed at ${height} m`);
    t.match(srwText, /Wind rose at \d+ m/);
    t.match(srwText, 'Locationnot in the fileElevation1,829 m', "the header's lat?? and lon??, and its elevation");
    const seriesText = (await page.textContent(card('hourly_series'))) ?? '';
    t.match(seriesText, 'Max250.00');
    t.match(seriesText, 'Min30.00');
    t.match(seriesText, 'Values8,760');
    t.equal((series.metadata.statistics.peak_week as { values: number[] }).values.length, 168);
    for (const kind of ['weather', 'wind_resource', 'hourly_series'])
      t.ok((await paintedPixels(page, `resource-chart-${kind}`)) > 2000, `${kind}: its picture has pixels`);
    t.same(await page.locator('[data-testid=resource] [data-testid=users]').allTextContents(), [
      '0 scenario(s), 0 sweep(s), 0 optimization(s)',
      '0 scenario(s), 0 sweep(s), 0 optimization(s)',
      '0 scenario(s), 0 sweep(s), 0 optimization(s)',
    ]);

    // A bad cell on line 101 of an SRW file: the error names it, nothing is stored.
    const lines = readFileSync(fixture('ssc_wind_constant_5ms.srw'), 'utf8').split('\n');
    const bad = join(dir, 'bad.srw');
    writeFileSync(bad, lines.map((l, i) => (i === 100 ? '15,0.95,five,180' : l)).join('\n'));
    await upload(bad, 'file');
    await until(page, `document.querySelector('[data-testid=upload-error]').textContent !== ''`);
    t.match(await page.textContent('[data-testid=upload-error]'), /line 101, column 3/);
    t.equal(await page.locator('[data-testid=resource]').count(), 3, 'nothing listed');

    if (process.env.HOURGLASS_FILES_PNG)
      await page.screenshot({ path: process.env.HOURGLASS_FILES_PNG, fullPage: true });

    // The weather file used by a sweep: its delete refused, naming the user.
    const sweepId = uuidv7();
    await stack.pool.query(
      `INSERT INTO sweeps (id, workspace, name, base, vary, combine, keep_hourly, parameters, total)
       VALUES ($1, 'default', 's', '{}', '[]', 'grid', false, '[]', 1)`,
      [sweepId],
    );
    await stack.pool.query('INSERT INTO resource_uses (resource_id, sweep_id) VALUES ($1, $2)', [tmy.id, sweepId]);
    await page.click(`${card('weather')} [data-testid=delete]`);
    await until(page, `document.querySelector('${card('weather')} [data-testid=delete-error]').textContent !== ''`);
    t.match(await page.textContent(`${card('weather')} [data-testid=delete-error]`), /1 user.*1 sweep\(s\)/);
    t.equal(
      await page.textContent(`${card('weather')} [data-testid=users]`),
      '0 scenario(s), 1 sweep(s), 0 optimization(s)',
    );
    t.equal((await getJson(`${base}/api/resources/${tmy.id}`)).status, 200, 'still there');

    // The series, unused: deleted.
    await page.click(`${card('hourly_series')} [data-testid=delete]`);
    await until(page, `!document.querySelector('${card('hourly_series')}')`);
    t.equal((await getJson(`${base}/api/resources/${series.id}`)).status, 404, 'deleted');
    // A phone: no sideways scrolling; every control labelled.
    await page.setViewportSize({ width: 390, height: 844 });
    // The charts follow the window's resize event: wait for it (a page that never fits fails here).
    await until(page, 'document.documentElement.scrollWidth - window.innerWidth <= 1', 5000).catch(() => {});
    const overflow = (await page.evaluate('document.documentElement.scrollWidth - window.innerWidth')) as number;
    t.ok(overflow <= 1, `at 390 px: no sideways scrolling (${overflow} px)`);
    const unlabelled = await page.evaluate(`[...document.querySelectorAll('input, select, textarea')]
      .filter((el) => !el.labels?.length && !el.getAttribute('aria-label')).map((el) => el.id)`);
    t.same(unlabelled, [], 'every control has a label');
    await page.setViewportSize({ width: 1400, height: 900 });

    // The create form offers the library's files of each kind; a pick is posted as a reference
    // (what the server then does with it is not this test's).
    await page.getByRole('link', { name: 'Scenarios and sweeps' }).click();
    await until(page, `document.querySelectorAll('#f-weather-library option').length > 1`);
    const options = (select: string) => page.$$eval(`${select} option`, (os) => os.map((o) => o.textContent));
    t.same(await options('#f-weather-library'), ['—', 'phoenix_az_tmy2'], 'weather files only');
    t.same(await options('#f-wind_resource-library'), ['—', 'az_eastern_rolling_hills'], 'wind files only');
    await page.selectOption('#f-weather-library', tmy.id);
    await page.selectOption('#f-wind_resource-library', srw.id);
    const posted = page.waitForRequest((r) => r.method() === 'POST' && r.url().endsWith('/api/scenarios'));
    await page.click('[data-testid=scenario-form] button[type=submit]');
    const inputs = JSON.parse((await posted).postData() ?? '{}');
    t.same(inputs.weather, { source: 'resource', id: tmy.id });
    t.same(inputs.wind_resource, { source: 'resource', id: srw.id });
    clean(t, page);
  });
});
