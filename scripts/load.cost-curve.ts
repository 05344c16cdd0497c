// `node scripts/load.cost-curve.ts`: the cheapest plant serving a flat 100 MW data-centre load at
// the README's site at 80, 90, 95 and 99 % hourly match, taken through the API (docs/load.md, the
// README's walkthrough): four optimizations minimising lcod_nominal with hourly_match_percent ≥ X,
// calculated by a real web and worker on a database of their own (DATABASE_URL's server, or an
// embedded Postgres). Writes what they answered to docs/load-cost-curve.json, then draws it
// (match against lcod_nominal: every evaluation, and the cheapest plant at each target) with the
// viewer's ECharts in Debian's Chromium into docs/screenshots/load-cost-curve.png.
// `--draw` only draws the picture again from the JSON. `npm run format` then lays the JSON out as
// biome does.

import { readFileSync, writeFileSync } from 'node:fs';
import { chromium } from 'playwright-core';
import { loadSizing } from '../test/helpers/load.inputs.ts';
import { CHROMIUM } from './chromium.ts';
import { startOwnStack } from './own.stack.ts';

const JSON_OUT = new URL('../docs/load-cost-curve.json', import.meta.url);
const PNG_OUT = new URL('../docs/screenshots/load-cost-curve.png', import.meta.url);
const TARGETS = [80, 90, 95, 99];

/** The request for target `x` %, every input not given at its default: the README's curl is this at 90. */
export const request = (x: number) => ({
  name: `Data centre 100 MW, ≥ ${x} % hourly match`,
  base: {
    site: { latitude: 35.2, longitude: -101.8 },
    seed: 42,
    load: { flat_mw: 100 },
    storage: { power_mw: 50, energy_mwh: 1000, dispatch: { strategy: 'load' } },
  },
  ...loadSizing(x, { solar: [0, 1000, 50], wind: [0, 1000, 50], power: [0, 300, 25], energy: [100, 3000, 100] }),
  max_evaluations: 300,
});

interface Kpis {
  hourly_match_percent: number;
  lcod_nominal: number;
  buyer_cost_per_mwh: number;
  cfe_percent: number;
  unmet_mwh_year1: number;
  excess_mwh_year1: number;
}
interface Measured {
  target: number;
  id: string;
  evaluations: number;
  rounds: number;
  best: { values: Record<string, number>; kpis: Kpis };
  /** Every calculated evaluation: [hourly match %, lcod_nominal]. */
  points: Array<[number, number]>;
}

const round = (x: number) => Number(x.toFixed(3));

async function measure(): Promise<Measured[]> {
  const stack = await startOwnStack('load-cost-curve', { entry: 'server/main.ts' });
  try {
    const ids: string[] = [];
    for (const x of TARGETS) ids.push(await stack.create('/api/optimizations', request(x)));
    const out: Measured[] = [];
    for (const [i, id] of ids.entries()) {
      const o = await stack.finished<{
        status: string;
        evaluations: number;
        rounds: number;
        best: Measured['best'] | null;
      }>(`/api/optimizations/${id}`);
      if (o.status !== 'succeeded' || !o.best) throw new Error(`optimization ${id}: ${o.status}`);
      const { evaluations } = (await stack.get(`/api/optimizations/${id}/evaluations`)) as {
        evaluations: Array<{ kpis: Kpis | null }>;
      };
      const points = evaluations
        .filter((e) => e.kpis && Number.isFinite(e.kpis.lcod_nominal))
        .map((e) => [round(e.kpis!.hourly_match_percent), round(e.kpis!.lcod_nominal)] as [number, number]);
      out.push({ target: TARGETS[i], id, evaluations: o.evaluations, rounds: o.rounds, best: o.best, points });
      console.log(`${TARGETS[i]} %: ${JSON.stringify(o.best.values)} ${JSON.stringify(o.best.kpis)}`);
    }
    return out;
  } finally {
    await stack.stop();
  }
}

/** The chart: every evaluation (grey), and the cheapest plant at each target joined (the cost curve). */
async function draw(measured: Measured[]): Promise<void> {
  const echarts = readFileSync(new URL('../node_modules/echarts/dist/echarts.min.js', import.meta.url), 'utf8');
  const option = {
    animation: false,
    backgroundColor: '#fff',
    title: {
      text: 'The cheapest plant for a flat 100 MW load, by hourly match',
      subtext:
        'Amarillo (35.2, −101.8); solar, wind and a battery on load dispatch; each point a plant the search calculated',
      left: 'center',
    },
    grid: { left: 70, right: 30, top: 80, bottom: 60 },
    xAxis: { type: 'value', name: 'hourly match, %', nameLocation: 'middle', nameGap: 32, min: 50, max: 100 },
    yAxis: {
      type: 'value',
      name: 'lcod_nominal, $/MWh delivered',
      nameLocation: 'middle',
      nameGap: 48,
      min: 0,
      max: 400,
    },
    legend: { bottom: 0 },
    series: [
      {
        name: 'evaluations (any plant the four searches tried)',
        type: 'scatter',
        symbolSize: 4,
        itemStyle: { color: '#bbb' },
        data: measured.flatMap((m) => m.points).filter(([x, y]) => x >= 50 && y <= 400),
      },
      {
        name: 'the cheapest plant at ≥ 80, 90, 95, 99 %',
        type: 'line',
        symbolSize: 9,
        itemStyle: { color: '#c0392b' },
        label: { show: true, position: 'left', backgroundColor: 'rgba(255,255,255,0.85)', padding: 2 },
        data: measured.map((m) => {
          const v = m.best.values;
          const battery =
            v['/storage/power_mw'] > 0 ? `${v['/storage/power_mw']} MW / ${v['/storage/energy_mwh']} MWh` : 'none';
          return [
            m.best.kpis.hourly_match_percent,
            m.best.kpis.lcod_nominal,
            `≥ ${m.target} %: solar ${v['/solar/capacity_mw_dc']}, wind ${v['/wind/capacity_mw']}, battery ${battery}`,
          ];
        }),
      },
    ],
  };
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  try {
    const page = await browser.newPage({ viewport: { width: 900, height: 560 } });
    await page.setContent('<div id="c" style="width:900px;height:560px"></div>');
    await page.addScriptTag({ content: echarts });
    // The label formatter is a function: the option is sent as source text, not JSON.
    await page.evaluate(`(() => {
      const o = ${JSON.stringify(option)};
      o.series[1].label.formatter = (p) => p.data[2];
      echarts.init(document.getElementById('c'), null, { renderer: 'canvas' }).setOption(o);
    })()`);
    await page.locator('#c').screenshot({ path: PNG_OUT.pathname });
  } finally {
    await browser.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const measured = process.argv.includes('--draw')
    ? (JSON.parse(readFileSync(JSON_OUT, 'utf8')) as Measured[])
    : await measure();
  if (!process.argv.includes('--draw')) writeFileSync(JSON_OUT, `${JSON.stringify(measured, null, 1)}\n`);
  await draw(measured);
  console.log(`wrote ${PNG_OUT.pathname}`);
}
