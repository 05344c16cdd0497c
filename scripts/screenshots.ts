// `npm run screenshots`: PNGs of each page of the viewer, at desktop (1,400 px) and phone (390 px)
// width, into docs/screenshots/. Runs its own web and worker on a database of its own (on
// DATABASE_URL's server, or an embedded Postgres), with scenarios (one with a battery and a wind
// file, one serving a buyer's load), a sweep, an optimization and library files to show, and Debian's Chromium (apt-get install -y chromium).

import { mkdirSync, readFileSync } from 'node:fs';
import { chromium } from 'playwright-core';
import { CHROMIUM } from './chromium.ts';
import { startOwnStack } from './own.stack.ts';

const OUT = new URL('../docs/screenshots/', import.meta.url);
const site = { latitude: 35.2, longitude: -101.8, elevation_m: 1100 };
/** The plant the scenario pages show, alone, behind a limit with a battery, and serving a load. */
const hybrid = { site, solar: { capacity_mw_dc: 150 }, wind: { capacity_mw: 100 } };

const stack = await startOwnStack('screenshots');
const browser = await chromium.launch({
  executablePath: CHROMIUM,
  args: ['--no-sandbox'],
});
const { create, finished } = stack;

try {
  mkdirSync(OUT, { recursive: true });
  const scenario = await create('/api/scenarios', {
    name: 'Amarillo hybrid, 150 MW solar + 100 MW wind',
    ...hybrid,
    grid: { export_limit_mw: 200 },
    finance: { tax_credits: { solar: { itc_percent: 30 }, wind: { ptc_per_mwh: 27.5 } } },
  });
  const battery = await create('/api/scenarios', {
    name: 'Behind a 120 MW limit: a 40 MW / 160 MWh battery, evening prices, wind from an SRW file',
    ...hybrid,
    wind: { ...hybrid.wind, turbine: { hub_height_m: 80 } },
    wind_resource: {
      source: 'srw',
      text: readFileSync(new URL('../test/fixtures/reference/az_eastern_rolling_hills.srw', import.meta.url), 'utf8'),
    },
    grid: { export_limit_mw: 120 },
    // Half merchant, dear in the evening: the battery moves the midday surplus there.
    market: {
      ppa_share: 0.5,
      merchant_hour_of_day_multipliers: [
        0.8, 0.7, 0.7, 0.7, 0.8, 0.9, 1, 1, 0.9, 0.7, 0.6, 0.5, 0.5, 0.5, 0.6, 0.8, 1.1, 1.5, 2, 2, 1.6, 1.2, 1, 0.9,
      ],
    },
    storage: { power_mw: 40, energy_mwh: 160 },
  });
  const load = await create('/api/scenarios', {
    name: 'A data centre: 60 MW, 90 MW in the evening, served by solar, wind and a 40 MW / 160 MWh battery',
    ...hybrid,
    grid: { export_limit_mw: 150 },
    storage: { power_mw: 40, energy_mwh: 160, dispatch: { strategy: 'load' } },
    load: {
      hourly_mw: Array.from({ length: 8760 }, (_, h) => (h % 24 >= 18 && h % 24 < 22 ? 90 : 60)),
      contract: {
        price_per_mwh: 70,
        availability: [
          { period: 'year', min_percent: 72 },
          { period: 'month', min_percent: 65 },
          { period: 'peak', min_percent: 45 },
        ],
      },
      backup: { price_per_mwh: 90 },
    },
  });
  await create('/api/scenarios', {
    name: 'Solar only, PPA price solved for 9 %',
    site,
    wind: { capacity_mw: 0 },
    market: { ppa_price_per_mwh: 'solve' },
    finance: { target_equity_irr_percent: 9 },
  });
  const sweep = await create('/api/sweeps', {
    name: 'Mix and export limit',
    base: { site },
    vary: [
      { path: '/solar/capacity_mw_dc', values: [0, 50, 100, 150, 200] },
      { path: '/grid/export_limit_mw', values: [100, 150, 200, 250] },
    ],
  });
  const optimization = await create('/api/optimizations', {
    name: 'Amarillo best mix',
    base: { site, seed: 42, grid: { export_limit_mw: 150 }, finance: { capex: { solar_per_kw_dc: 700 } } },
    variables: [
      { path: '/solar/capacity_mw_dc', min: 0, max: 300, step: 10 },
      { path: '/wind/capacity_mw', min: 0, max: 300, step: 10 },
    ],
    objective: { maximize: 'equity_npv' },
    max_evaluations: 96,
  });
  // The library: the Phoenix TMY2 file, an SRW file and an evening-peaking price.
  for (const [name, file] of [
    ['Phoenix TMY2', 'phoenix_az_tmy2.csv'],
    ['Eastern Arizona, rolling hills (SRW)', 'az_eastern_rolling_hills.srw'],
  ]) {
    const text = readFileSync(new URL(`../test/fixtures/reference/${file}`, import.meta.url), 'utf8');
    const res = await fetch(`${stack.baseUrl}/api/resources?name=${encodeURIComponent(name)}`, {
      method: 'POST',
      headers: { 'content-type': 'text/csv' },
      body: text,
    });
    // 200: the bytes are in the library already (a scenario above sent the file inline).
    if (res.status !== 201 && res.status !== 200) throw new Error(`upload ${file}: ${res.status} ${await res.text()}`);
  }
  await create('/api/resources', {
    name: 'Merchant price forecast, base case',
    values: Array.from({ length: 8760 }, (_, h) => Math.round(30 + 25 * Math.exp(-(((h % 24) - 19) ** 2) / 4))),
  });
  await finished(`/api/scenarios/${scenario}`);
  await finished(`/api/scenarios/${battery}`);
  await finished(`/api/scenarios/${load}`);
  await finished(`/api/sweeps/${sweep}`);
  await finished(`/api/optimizations/${optimization}`);
  const painted = (...testids: string[]) => testids.map((id) => `[data-testid=${id}][data-painted]`);
  const pages: Array<[string, string, string[]]> = [
    ['home', '/', ['[data-testid=scenario-list] tbody tr']],
    ['scenario', `/scenarios/${scenario}`, painted('heatmap')],
    ['sweep', `/sweeps/${sweep}`, ['[data-testid=sweep-chart] canvas']],
    ['battery', `/scenarios/${battery}`, painted('heatmap', 'dispatch-chart', 'soc-heatmap', 'wind-rose')],
    [
      'load',
      `/scenarios/${load}`,
      painted('load-week-chart', 'match-heatmap', 'availability-years', 'availability-months', 'availability-peak'),
    ],
    ['optimization', `/optimizations/${optimization}`, ['[data-testid=points-chart-1] canvas']],
    [
      'files',
      '/files',
      painted('resource-chart-weather', 'resource-chart-wind_resource', 'resource-chart-hourly_series'),
    ],
  ];
  for (const [width, label] of [
    [1400, 'desktop'],
    [390, 'phone'],
  ] as const) {
    const context = await browser.newContext({
      viewport: { width, height: width > 500 ? 900 : 844 },
      deviceScaleFactor: 1,
    });
    const page = await context.newPage();
    for (const [pageName, path, ready] of pages) {
      const open = async () => {
        await page.goto(`${stack.baseUrl}${path}`);
        for (const selector of ready) await page.waitForSelector(selector);
      };
      // Opened once to measure it, then again in a window as tall as the page: charts redrawn by a
      // resize during a full-page capture were caught half drawn (a heatmap of 8,760 cells).
      await open();
      const height = (await page.evaluate('document.documentElement.scrollHeight')) as number;
      await page.setViewportSize({ width, height });
      await open();
      await page.waitForTimeout(1000);
      const file = new URL(`${pageName}-${label}.png`, OUT).pathname;
      await page.screenshot({ path: file, fullPage: true });
      await page.setViewportSize({ width, height: width > 500 ? 900 : 844 });
      console.log(`wrote ${file}`);
    }
    await context.close();
  }
} finally {
  await browser.close();
  await stack.stop();
}
