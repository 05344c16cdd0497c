// The scaling curve of bench #30 as a picture: scenarios a second against the number of worker
// processes (beside perfect scaling from one), and the CPU a scenario costs Postgres and the
// workers, from bench/scale.json, drawn by ECharts in Chromium into docs/screenshots/scaling.png.
// `node bench/scale.chart.ts` after `npm run bench -- --only=scale`.
import { readFileSync } from 'node:fs';
import { chromium } from 'playwright-core';
import { CHROMIUM } from '../scripts/chromium.ts';
import type { ScalePoint } from './figures.scale.ts';

const data = JSON.parse(readFileSync(new URL('./scale.json', import.meta.url), 'utf8')) as {
  measured_at: string;
  engine_ms: number;
  cpus: number;
  points: ScalePoint[];
};
const out = new URL('../docs/screenshots/scaling.png', import.meta.url);
const echarts = readFileSync(new URL('../node_modules/echarts/dist/echarts.min.js', import.meta.url), 'utf8');
const p = data.points;
const one = p[0].perSecond;
const round = (x: number) => Math.round(x * 10) / 10;
const pct = (x: number) => `${Math.round(100 * Math.min(1, x))} %`;
const option = {
  animation: false,
  backgroundColor: '#fff',
  title: {
    text: 'One Postgres, N worker processes (engine replayed: no engine CPU)',
    subtext: `${data.measured_at.slice(0, 10)}, ${data.cpus} CPUs shared by Postgres, the workers and other work; each calculation waits ${data.engine_ms.toFixed(0)} ms (engine #1 in that run)\nthe host's CPUs ${pct(Math.min(...p.map((x) => x.hostBusy)))}–${pct(Math.max(...p.map((x) => x.hostBusy)))} busy in the windows; other processes took ${pct(Math.min(...p.map((x) => x.othersBusy)))}–${pct(Math.max(...p.map((x) => x.othersBusy)))} of them`,
    left: 'center',
    textStyle: { fontSize: 16 },
    itemGap: 8,
    subtextStyle: { lineHeight: 16 },
  },
  legend: { top: 68 },
  grid: [
    { left: 70, right: 30, top: 110, height: 220 },
    { left: 70, right: 30, top: 400, height: 150 },
  ],
  xAxis: [
    {
      type: 'category',
      gridIndex: 0,
      data: p.map((x) => String(x.workers)),
      name: 'worker processes',
      nameLocation: 'middle',
      nameGap: 28,
    },
    {
      type: 'category',
      gridIndex: 1,
      data: p.map((x) => String(x.workers)),
      name: 'worker processes',
      nameLocation: 'middle',
      nameGap: 28,
    },
  ],
  yAxis: [
    {
      type: 'value',
      gridIndex: 0,
      name: 'scenarios / s',
      max: Math.ceil((Math.max(...p.map((x) => x.perSecond)) * 1.6) / 10) * 10,
    },
    { type: 'value', gridIndex: 1, name: 'CPU ms per scenario' },
  ],
  series: [
    {
      name: 'scenarios / s (measured)',
      type: 'line',
      xAxisIndex: 0,
      yAxisIndex: 0,
      data: p.map((x) => round(x.perSecond)),
      label: { show: true, position: 'top' },
      lineStyle: { width: 3 },
      symbolSize: 8,
    },
    {
      name: 'N × one worker',
      type: 'line',
      xAxisIndex: 0,
      yAxisIndex: 0,
      data: p.map((x) => round(x.workers * one)),
      lineStyle: { type: 'dashed' },
      symbol: 'none',
    },
    {
      name: 'Postgres CPU / scenario',
      type: 'bar',
      xAxisIndex: 1,
      yAxisIndex: 1,
      data: p.map((x) => round(x.postgresCpuMs)),
      label: { show: true, position: 'top' },
    },
    {
      name: 'workers CPU / scenario',
      type: 'bar',
      xAxisIndex: 1,
      yAxisIndex: 1,
      data: p.map((x) => round(x.workerCpuMs)),
      label: { show: true, position: 'top' },
    },
  ],
};

const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
try {
  const page = await browser.newPage({ viewport: { width: 900, height: 600 } });
  await page.setContent('<div id="c" style="width:900px;height:600px"></div>');
  await page.addScriptTag({ content: echarts });
  await page.evaluate(`echarts.init(document.getElementById('c')).setOption(${JSON.stringify(option)})`);
  await page.locator('#c').screenshot({ path: out.pathname });
  console.log(`written ${out.pathname}`);
} finally {
  await browser.close();
}
