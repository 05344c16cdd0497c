// The revenue stack by year (docs/markets.md): each revenue line of the income statement a stacked
// bar, any line the statements carry (a line that is 0 every year is left out; each ancillary
// product's line its own bar), so a new line shows without a change here; known lines get their
// label and colour.
import { axisMoney, COLORS, chart } from './charts.ts';
import { type RevenueOfYear, revenueLine, revenueLines } from './revenue.lines.ts';

const KNOWN: Record<string, { label: string; color: string }> = {
  ppa_solar: { label: 'PPA solar', color: COLORS.solar },
  merchant_solar: { label: 'Merchant solar', color: '#f6c453' },
  ppa_wind: { label: 'PPA wind', color: COLORS.wind },
  merchant_wind: { label: 'Merchant wind', color: '#63b3ed' },
  ppa_storage: { label: 'PPA battery', color: COLORS.battery },
  merchant_storage: { label: 'Merchant battery', color: '#81e6d9' },
  load_contract: { label: 'Load contract', color: '#2f855a' },
  load_excess: { label: 'Load excess sold', color: '#a0aec0' },
  capacity: { label: 'Capacity', color: '#6b46c1' },
  curtailment_payment: { label: 'Curtailment paid', color: '#dd6b20' },
};
const OTHER_COLORS = ['#b83280', '#975a16', '#276749', '#2c5282', '#9b2c2c', '#4a5568'];

/** Each operating year's revenue, its lines stacked (negative ones below the axis), and the total as a line. */
export function revenueChart(
  el: HTMLElement,
  years: ReadonlyArray<{ year: number; revenue: RevenueOfYear }>,
  painted?: () => void,
): void {
  let other = 0;
  const series = revenueLines(years).map((name) => {
    const known = KNOWN[name] ?? {
      label: name.replace('ancillary.', 'Ancillary ').replaceAll('_', ' '),
      color: OTHER_COLORS[other++ % OTHER_COLORS.length],
    };
    return {
      name: known.label,
      type: 'bar',
      stack: 'revenue',
      color: known.color,
      data: years.map((y) => revenueLine(y.revenue, name)),
    };
  });
  // The lines drawn, by their legend's names (a test reads them).
  el.dataset.lines = series.map((s) => s.name).join(', ');
  chart(
    el,
    {
      tooltip: { trigger: 'axis' },
      legend: { top: 0, type: 'scroll' },
      grid: { left: 64, right: 16, top: 36, bottom: 28 },
      xAxis: { type: 'category', data: years.map((y) => y.year), name: 'year', nameLocation: 'middle', nameGap: 22 },
      yAxis: axisMoney,
      series: [
        ...series,
        { name: 'Total', type: 'line', color: '#1a202c', data: years.map((y) => revenueLine(y.revenue, 'total')) },
      ],
    },
    painted,
  );
}
