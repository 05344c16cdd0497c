// The charts of a scenario's load (docs/load.md), drawn with charts.ts's helpers: a week of the
// load against what served it, the month × hour match, and availability against a threshold.
import { MONTHS } from '../../../shared/calendar.ts';
import { COLORS, chart, weekAxis, weekHours } from './charts.ts';

export const LOAD_COLORS = {
  direct: '#2f855a',
  battery: COLORS.battery,
  unmet: COLORS.negative,
  excess: '#a0aec0',
  load: '#1a202c',
};

/** One week of a load's hours, each MWh: how the load was served, and what was left over. */
export interface LoadWeek {
  /** Hour of the year of the first hour. */
  firstHour: number;
  load: number[];
  direct: number[];
  battery: number[];
  unmet: number[];
  excess: number[];
}

/**
 * A week of the load: served directly, from the battery and unmet stacked (their sum is the load),
 * excess stacked above them, the load as a line.
 */
export function loadWeekChart(el: HTMLElement, week: LoadWeek, painted?: () => void): void {
  const bar = (name: string, color: string, data: number[]) => ({
    name,
    type: 'bar',
    stack: 'load',
    color,
    barCategoryGap: '10%',
    data,
  });
  chart(
    el,
    {
      tooltip: { trigger: 'axis', valueFormatter: (v: number) => `${v.toFixed(2)} MWh` },
      legend: { top: 0, type: 'scroll' },
      grid: { left: 56, right: 16, top: 52, bottom: 40 },
      xAxis: weekAxis(weekHours(week.firstHour, week.load.length)),
      yAxis: { type: 'value', name: 'MWh' },
      series: [
        bar('Served directly', LOAD_COLORS.direct, week.direct),
        bar('From the battery', LOAD_COLORS.battery, week.battery),
        bar('Unmet', LOAD_COLORS.unmet, week.unmet),
        bar('Excess', LOAD_COLORS.excess, week.excess),
        { name: 'Load', type: 'line', step: 'middle', color: LOAD_COLORS.load, symbol: 'none', data: week.load },
      ],
    },
    painted,
  );
}

/** The match of each month (x) and hour of day (y), %: null where the cell has no load. */
export function matchHeatmap(el: HTMLElement, match: Array<Array<number | null>>, painted?: () => void): void {
  const data: Array<[number, number, number | '-']> = [];
  for (let m = 0; m < match.length; m++)
    for (let hour = 0; hour < match[m].length; hour++) data.push([m, hour, match[m][hour] ?? '-']);
  chart(
    el,
    {
      tooltip: {
        formatter: (p: { value: [number, number, number | '-'] }) =>
          `${MONTHS[p.value[0]]}, ${p.value[1]}:00–${p.value[1] + 1}:00<br>match: ${
            typeof p.value[2] === 'number' ? `${p.value[2].toFixed(1)} %` : 'no load'
          }`,
      },
      grid: { left: 44, right: 16, top: 10, bottom: 70 },
      xAxis: { type: 'category', data: MONTHS, splitArea: { show: false } },
      yAxis: { type: 'category', data: Array.from({ length: 24 }, (_, h) => h), name: 'hour', inverse: true },
      visualMap: {
        min: 0,
        max: 100,
        calculable: false,
        orient: 'horizontal',
        left: 'center',
        bottom: 0,
        itemHeight: 160,
        text: ['100 % matched', '0 %'],
        inRange: { color: [LOAD_COLORS.unmet, '#fefcbf', LOAD_COLORS.direct] },
      },
      series: [{ type: 'heatmap', data, progressive: 0, label: { show: false } }],
    },
    painted,
  );
}

/**
 * Availability of each period (bars, %), red where below the contract's threshold, which is drawn
 * as a dashed line; no line when the contract sets none for this period.
 */
export function availabilityChart(
  el: HTMLElement,
  categories: Array<string | number>,
  values: number[],
  minPercent: number | null,
  painted?: () => void,
): void {
  chart(
    el,
    {
      tooltip: { trigger: 'axis', valueFormatter: (v: number) => `${v.toFixed(2)} %` },
      legend: { top: 0 },
      grid: { left: 48, right: 16, top: 48, bottom: 28 },
      xAxis: { type: 'category', data: categories },
      yAxis: {
        type: 'value',
        name: '%',
        min: (v: { min: number }) => Math.max(0, Math.floor(v.min / 10) * 10 - 10),
        max: 100,
      },
      series: [
        {
          name: 'Availability',
          type: 'bar',
          color: LOAD_COLORS.direct,
          data: values.map((v) => ({
            value: v,
            itemStyle: { color: minPercent !== null && v < minPercent ? LOAD_COLORS.unmet : LOAD_COLORS.direct },
          })),
        },
        ...(minPercent === null
          ? []
          : [
              {
                name: `Contract minimum (${minPercent} %)`,
                type: 'line',
                color: LOAD_COLORS.load,
                symbol: 'none',
                lineStyle: { type: 'dashed' },
                data: values.map(() => minPercent),
              },
            ]),
      ],
    },
    painted,
  );
}
