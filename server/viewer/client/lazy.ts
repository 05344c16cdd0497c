// Apache ECharts is most of the script's weight: it loads in its own chunk, after a page has shown
// its figures (KPIs, tables), and only on pages that draw.
type Charts = typeof import('./charts.ts');

let loading: Promise<Charts> | null = null;
let loaded: Charts | null = null;

export function charts(): Promise<Charts> {
  loading ??= import('./charts.ts').then((m) => {
    loaded = m;
    return m;
  });
  return loading;
}

/** Disposes of the drawn charts, if the chart module was ever loaded. */
export function disposeCharts(): void {
  loaded?.disposeCharts();
}

type LoadCharts = typeof import('./charts.load.ts');
let loadingLoad: Promise<LoadCharts> | null = null;

/** The load's charts (with charts.ts, in the same lazy way). */
export function loadCharts(): Promise<LoadCharts> {
  loadingLoad ??= charts().then(() => import('./charts.load.ts'));
  return loadingLoad;
}

type RevenueCharts = typeof import('./charts.revenue.ts');
let loadingRevenue: Promise<RevenueCharts> | null = null;

/** The revenue stack chart (with charts.ts, in the same lazy way). */
export function revenueCharts(): Promise<RevenueCharts> {
  loadingRevenue ??= charts().then(() => import('./charts.revenue.ts'));
  return loadingRevenue;
}
