// Charts with Apache ECharts (canvas renderer), only the parts the pages use. Every chart is kept
// so the router can dispose of them when the page changes, and resized with the window.

import { BarChart, HeatmapChart, LineChart, ScatterChart } from 'echarts/charts';
import {
  GridComponent,
  LegendComponent,
  PolarComponent,
  TooltipComponent,
  VisualMapComponent,
} from 'echarts/components';
import * as echarts from 'echarts/core';
import { CanvasRenderer } from 'echarts/renderers';
import { DAYS_IN_MONTH, MONTHS } from '../../../shared/calendar.ts';

echarts.use([
  BarChart,
  HeatmapChart,
  LineChart,
  ScatterChart,
  GridComponent,
  LegendComponent,
  PolarComponent,
  TooltipComponent,
  VisualMapComponent,
  CanvasRenderer,
]);

const live = new Set<echarts.ECharts>();
window.addEventListener('resize', () => {
  for (const c of live) c.resize();
});

export const COLORS = {
  solar: '#d98e04',
  wind: '#2b6cb0',
  curtailed: '#9aa5b1',
  cash: '#2f855a',
  negative: '#c53030',
  charge: '#805ad5',
  discharge: '#38a169',
  battery: '#319795',
};

export function chart(el: HTMLElement, option: echarts.EChartsCoreOption, painted?: () => void): echarts.ECharts {
  const existing = echarts.getInstanceByDom(el);
  const c = existing ?? echarts.init(el, undefined, { renderer: 'canvas' });
  live.add(c);
  // One 'finished' (drawn) callback per setOption: the chart fires it after every later redraw too.
  c.off('finished');
  if (painted) {
    const once = () => {
      c.off('finished', once);
      painted();
    };
    c.on('finished', once);
  }
  // No animation: charts are read, not watched, and a test (or a screenshot) sees them at once.
  c.setOption({ animation: false, ...option }, { notMerge: true });
  return c;
}

export function disposeCharts(): void {
  for (const c of live) c.dispose();
  live.clear();
}

export const axisMoney = { type: 'value', axisLabel: { formatter: (v: number) => compact(v) } };

function compact(v: number): string {
  const a = Math.abs(v);
  if (a >= 1e9) return `${(v / 1e9).toFixed(1)}B`;
  if (a >= 1e6) return `${(v / 1e6).toFixed(1)}M`;
  if (a >= 1e3) return `${(v / 1e3).toFixed(0)}k`;
  return String(Math.round(v * 100) / 100);
}

interface AnnualRow {
  year: number;
  solar_mwh: number;
  wind_mwh: number;
  curtailed_mwh: number;
}

/** Solar and wind energy as stacked bars over categories, with more series beside them. */
function energyBars(
  el: HTMLElement,
  categories: Array<string | number>,
  solar: number[],
  wind: number[],
  more: object[] = [],
  xName = '',
): void {
  chart(el, {
    tooltip: { trigger: 'axis' },
    legend: { top: 0 },
    grid: { left: 60, right: 16, top: 36, bottom: 28 },
    xAxis: { type: 'category', data: categories, name: xName, nameLocation: 'middle', nameGap: 22 },
    yAxis: { ...axisMoney, name: 'MWh' },
    series: [
      { name: 'Solar', type: 'bar', stack: 'energy', color: COLORS.solar, data: solar },
      { name: 'Wind', type: 'bar', stack: 'energy', color: COLORS.wind, data: wind },
      ...more,
    ],
  });
}

/** Delivered energy by technology (stacked) and curtailment, per operating year. */
export function annualChart(el: HTMLElement, annual: AnnualRow[]): void {
  const curtailed = {
    name: 'Curtailed',
    type: 'line',
    color: COLORS.curtailed,
    data: annual.map((a) => a.curtailed_mwh),
  };
  energyBars(
    el,
    annual.map((a) => a.year),
    annual.map((a) => a.solar_mwh),
    annual.map((a) => a.wind_mwh),
    [curtailed],
    'year',
  );
}

/** One year's hourly MWh as day of year (x) × hour of day (y). `painted` is called once drawn. */
export function heatmap(el: HTMLElement, hourly: number[], label: string, color: string, painted?: () => void): void {
  const data: [number, number, number][] = new Array(hourly.length);
  let max = 0;
  for (let i = 0; i < hourly.length; i++) {
    const v = hourly[i];
    if (v > max) max = v;
    data[i] = [Math.floor(i / 24), i % 24, v];
  }
  chart(
    el,
    {
      tooltip: {
        formatter: (p: { value: [number, number, number] }) =>
          `day ${p.value[0] + 1}, ${p.value[1]}:00–${p.value[1] + 1}:00<br>${label}: ${p.value[2].toFixed(3)} MWh`,
      },
      grid: { left: 44, right: 16, top: 10, bottom: 70 },
      xAxis: {
        type: 'category',
        data: Array.from({ length: 365 }, (_, d) => d + 1),
        name: 'day of year',
        nameLocation: 'middle',
        nameGap: 24,
        splitArea: { show: false },
      },
      yAxis: { type: 'category', data: Array.from({ length: 24 }, (_, h) => h), name: 'hour', inverse: true },
      visualMap: {
        min: 0,
        max: max || 1,
        calculable: false,
        orient: 'horizontal',
        left: 'center',
        bottom: 0,
        itemHeight: 160,
        text: [`${max.toFixed(1)} MWh`, '0'],
        inRange: { color: ['#f7fafc', color] },
      },
      series: [{ type: 'heatmap', data, progressive: 0 }],
    },
    painted,
  );
}

/** Monthly energy of one year by technology, from its hourly arrays. */
export function monthlyChart(el: HTMLElement, solar: number[], wind: number[]): void {
  const sums = (hourly: number[]) => {
    const out: number[] = [];
    let h = 0;
    for (const days of DAYS_IN_MONTH) {
      let s = 0;
      for (let i = 0; i < days * 24; i++) s += hourly[h++] ?? 0;
      out.push(s);
    }
    return out;
  };
  energyBars(el, MONTHS, sums(solar), sums(wind));
}

interface CashRow {
  year: number;
  equity_cash_flow: number;
  cumulative_equity_cash_flow: number;
}

/** Equity cash flow per year (bars) and its running sum (line). */
export function cashflowChart(el: HTMLElement, rows: CashRow[]): void {
  chart(el, {
    tooltip: { trigger: 'axis' },
    legend: { top: 0 },
    grid: { left: 64, right: 16, top: 36, bottom: 28 },
    xAxis: { type: 'category', data: rows.map((r) => r.year) },
    yAxis: axisMoney,
    series: [
      {
        name: 'Equity cash flow',
        type: 'bar',
        data: rows.map((r) => ({
          value: r.equity_cash_flow,
          itemStyle: { color: r.equity_cash_flow < 0 ? COLORS.negative : COLORS.cash },
        })),
      },
      { name: 'Cumulative', type: 'line', color: '#4a5568', data: rows.map((r) => r.cumulative_equity_cash_flow) },
    ],
  });
}

/** A KPI against one parameter, one line per value of a second parameter (or one line). */
export function sweepChart(
  el: HTMLElement,
  points: Array<{ x: number | string; series: string; y: number | null }>,
  xName: string,
  yName: string,
): void {
  const xs = [...new Set(points.map((p) => p.x))].sort((a, b) =>
    typeof a === 'number' && typeof b === 'number' ? a - b : String(a).localeCompare(String(b)),
  );
  const names = [...new Set(points.map((p) => p.series))];
  chart(el, {
    tooltip: { trigger: 'axis' },
    legend: { top: 0, type: 'scroll' },
    grid: { left: 70, right: 16, top: 36, bottom: 36 },
    xAxis: { type: 'category', data: xs, name: xName, nameLocation: 'middle', nameGap: 24 },
    yAxis: { type: 'value', name: yName, scale: true, axisLabel: { formatter: (v: number) => compact(v) } },
    series: names.map((name) => ({
      name,
      type: 'line',
      connectNulls: false,
      data: xs.map((x) => points.find((p) => p.series === name && p.x === x)?.y ?? null),
    })),
  });
}

/** An optimization's best objective so far against the evaluations (a step line). */
export function bestSoFarChart(el: HTMLElement, best: Array<[number, number]>, yName: string): void {
  chart(el, {
    tooltip: { trigger: 'axis' },
    grid: { left: 70, right: 16, top: 16, bottom: 36 },
    xAxis: { type: 'value', name: 'evaluations', nameLocation: 'middle', nameGap: 24, minInterval: 1 },
    yAxis: { type: 'value', name: yName, scale: true, axisLabel: { formatter: (v: number) => compact(v) } },
    series: [{ name: `best ${yName}`, type: 'line', step: 'end', color: COLORS.cash, data: best }],
  });
}

/** The points tried: the objective against one variable, feasible and infeasible apart, the best marked. */
export function pointsChart(
  el: HTMLElement,
  points: Array<{ x: number; y: number; feasible: boolean; best: boolean }>,
  xName: string,
  yName: string,
): void {
  const pick = (f: (p: (typeof points)[number]) => boolean) => points.filter(f).map((p) => [p.x, p.y]);
  chart(el, {
    tooltip: { trigger: 'item' },
    legend: { top: 0 },
    grid: { left: 70, right: 16, top: 36, bottom: 36 },
    xAxis: { type: 'value', name: xName, nameLocation: 'middle', nameGap: 24, scale: true },
    yAxis: { type: 'value', name: yName, scale: true, axisLabel: { formatter: (v: number) => compact(v) } },
    series: [
      { name: 'feasible', type: 'scatter', color: COLORS.wind, data: pick((p) => p.feasible && !p.best) },
      { name: 'infeasible', type: 'scatter', color: COLORS.curtailed, data: pick((p) => !p.feasible) },
      { name: 'best', type: 'scatter', color: COLORS.solar, symbolSize: 16, data: pick((p) => p.best) },
    ],
  });
}

/** One week of a battery's hours: what each source gives, charge below zero, export, the limit and the price. */
interface DispatchWeek {
  /** Hour of the year of the first hour. */
  firstHour: number;
  solar: number[];
  wind: number[];
  charge: number[];
  discharge: number[];
  grid: number[];
  limitMw: number | null;
  price: number[];
  currency: string;
  /** With ancillary products: MW reserved up and down each hour (docs/markets.md). */
  reserveUp?: number[];
  reserveDown?: number[];
}

const WEEKDAY_HOURS = 24;

/** A week's hours as category labels ("day N h:00"), shown one a day. */
export function weekHours(firstHour: number, n: number): string[] {
  return Array.from({ length: n }, (_, i) => {
    const h = firstHour + i;
    return `day ${Math.floor(h / WEEKDAY_HOURS) + 1} ${h % WEEKDAY_HOURS}:00`;
  });
}

/** The week chart's x axis: one label a day ("day N"), fewer where they would overlap (a phone). */
export function weekAxis(hours: string[]): object {
  return {
    type: 'category',
    data: hours,
    axisLabel: {
      interval: WEEKDAY_HOURS - 1,
      hideOverlap: true,
      formatter: (v: string) => v.split(' ').slice(0, 2).join(' '),
    },
  };
}

/** A week's dispatch: solar, wind and discharge stacked above zero, charge below, export and the limit as lines, the price on a second axis. */
export function dispatchChart(el: HTMLElement, week: DispatchWeek, painted?: () => void): void {
  const hours = weekHours(week.firstHour, week.solar.length);
  const bar = (name: string, color: string, data: number[], stack: string) => ({
    name,
    type: 'bar',
    stack,
    color,
    barCategoryGap: '10%',
    data,
  });
  const reserves = reserveLines(week);
  // The reservations' names on the element, for a reader of the page (and its tests).
  el.dataset.reserves = reserves.map((r) => r.name).join(', ');
  chart(
    el,
    {
      tooltip: { trigger: 'axis' },
      legend: { top: 0, type: 'scroll' },
      grid: { left: 56, right: 56, top: 52, bottom: 40 },
      xAxis: weekAxis(hours),
      yAxis: [
        { type: 'value', name: 'MWh' },
        { type: 'value', name: `${week.currency}/MWh`, splitLine: { show: false } },
      ],
      series: [
        bar('Solar', COLORS.solar, week.solar, 'in'),
        bar('Wind', COLORS.wind, week.wind, 'in'),
        bar('Discharge', COLORS.discharge, week.discharge, 'in'),
        bar(
          'Charge',
          COLORS.charge,
          week.charge.map((v) => -v),
          'out',
        ),
        { name: 'Export', type: 'line', color: '#1a202c', symbol: 'none', data: week.grid },
        ...(week.limitMw === null
          ? []
          : [
              {
                name: 'Export limit',
                type: 'line',
                color: COLORS.negative,
                symbol: 'none',
                lineStyle: { type: 'dashed' },
                data: week.grid.map(() => week.limitMw),
              },
            ]),
        { name: 'Price', type: 'line', yAxisIndex: 1, color: '#b7791f', symbol: 'none', step: 'end', data: week.price },
        ...reserves,
      ],
    },
    painted,
  );
}

/** Reservations beside the dispatch: up above zero, down below it (as charge), MW held each hour. */
function reserveLines(week: DispatchWeek) {
  const line = (name: string, color: string, data: number[]) => ({
    name,
    type: 'line',
    color,
    symbol: 'none',
    step: 'end',
    lineStyle: { type: 'dotted', width: 2 },
    data,
  });
  return [
    ...(week.reserveUp ? [line('Reserved up (MW)', COLORS.discharge, week.reserveUp)] : []),
    ...(week.reserveDown
      ? [
          line(
            'Reserved down (MW)',
            COLORS.charge,
            week.reserveDown.map((v) => -v),
          ),
        ]
      : []),
  ];
}

const COMPASS = ['N', 'NNE', 'NE', 'ENE', 'E', 'ESE', 'SE', 'SSE', 'S', 'SSW', 'SW', 'WSW', 'W', 'WNW', 'NW', 'NNW'];
const ROSE_COLORS = ['#bee3f8', '#90cdf4', '#63b3ed', '#3182ce', '#2b6cb0', '#1a365d'];

/** A wind rose: % of the time from each sector, stacked by speed bin, on polar axes (north up, clockwise). */
export function windRoseChart(
  el: HTMLElement,
  rose: { frequency: number[][]; speed_bins_ms: number[] },
  painted?: () => void,
): void {
  const bins = rose.speed_bins_ms;
  const label = (b: number) => (b + 1 < bins.length ? `${bins[b]}–${bins[b + 1]} m/s` : `≥ ${bins[b]} m/s`);
  chart(
    el,
    {
      tooltip: { trigger: 'item', valueFormatter: (v: number) => `${v.toFixed(2)} %` },
      legend: { top: 0, type: 'scroll' },
      polar: { center: ['50%', '56%'], radius: '72%' },
      angleAxis: { type: 'category', data: COMPASS, startAngle: 90 + 360 / 32, clockwise: true },
      // Its labels run along the first sector's edge: the outermost one would sit on a compass label.
      radiusAxis: {
        type: 'value',
        axisLabel: { fontSize: 10, showMaxLabel: false, formatter: (v: number) => `${v} %` },
      },
      series: bins.map((_, b) => ({
        name: label(b),
        type: 'bar',
        coordinateSystem: 'polar',
        stack: 'rose',
        color: ROSE_COLORS[b % ROSE_COLORS.length],
        data: rose.frequency.map((row) => row[b] * 100),
      })),
    },
    painted,
  );
}

/** A weather file's irradiance by month (kWh/m²): GHI and DNI side by side. */
export function irradianceChart(el: HTMLElement, ghi: number[], dni: number[], painted?: () => void): void {
  chart(
    el,
    {
      tooltip: { trigger: 'axis' },
      legend: { top: 0 },
      grid: { left: 52, right: 12, top: 34, bottom: 24 },
      xAxis: { type: 'category', data: MONTHS },
      yAxis: { type: 'value', name: 'kWh/m²' },
      series: [
        { name: 'GHI', type: 'bar', color: COLORS.solar, data: ghi },
        { name: 'DNI', type: 'bar', color: '#f6ad55', data: dni },
      ],
    },
    painted,
  );
}

/** A series' week, hour by hour (a load's MW or a price), as one line. */
export function seriesWeekChart(el: HTMLElement, firstHour: number, values: number[], painted?: () => void): void {
  chart(
    el,
    {
      tooltip: { trigger: 'axis' },
      grid: { left: 52, right: 12, top: 16, bottom: 24 },
      xAxis: weekAxis(weekHours(firstHour, values.length)),
      yAxis: { type: 'value', scale: true },
      series: [{ name: 'Value', type: 'line', showSymbol: false, color: COLORS.wind, data: values }],
    },
    painted,
  );
}
