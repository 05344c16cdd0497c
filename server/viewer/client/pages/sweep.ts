// `/sweeps/{id}`: live progress with rows filling in as variants finish; the results table,
// sortable by any column, the best row marked, each row linking to its scenario; and a chart of a
// chosen KPI against a chosen parameter, one line per value of a second parameter.
import { follow, getJson } from '../api.ts';
import { amount, card, chartBox, controls, decimal, h, main, percent } from '../dom.ts';
import { charts } from '../lazy.ts';
import type { SweepItem, VariantRow } from '../types.ts';
import { statusBadge } from './home.ts';

/** KPIs where lower is better; for the rest, higher is. */
const LOWER_IS_BETTER = new Set(['lcoe_nominal', 'lcoe_real', 'payback_year', 'solved_ppa_price_per_mwh']);
const KPI_COLUMNS = [
  'equity_npv',
  'equity_irr',
  'project_irr',
  'lcoe_nominal',
  'lcoe_real',
  'min_dscr',
  'energy_p50_mwh',
  'energy_p90_mwh',
];

declare global {
  interface Window {
    hourglassSweep?: { sortMs: number[] };
  }
}

function show(name: string, v: unknown): string {
  if (typeof v !== 'number') return v === null || v === undefined ? '—' : String(v);
  if (name.endsWith('_irr')) return percent(v);
  if (name.includes('dscr') || name.startsWith('lcoe')) return decimal(v);
  return Math.abs(v) >= 1000 ? amount(v) : decimal(v, Number.isInteger(v) ? 0 : 2);
}

export async function sweepPage(id: string, stop: AbortSignal): Promise<void> {
  const m = main();
  const first = await getJson<SweepItem>(`/api/sweeps/${id}`);
  if (first.status !== 200) {
    m.replaceChildren(h('h1', {}, 'Sweep not found'), h('p', {}, `No sweep has the id ${id}.`));
    return;
  }
  let sweep = first.json;
  document.title = `${sweep.name} · Hourglass`;
  const params = sweep.parameters;
  const columns = [
    ...params.map((p) => ({ key: `p:${p}`, label: p })),
    ...KPI_COLUMNS.map((k) => ({ key: k, label: k })),
  ];
  let sortKey = 'equity_npv';
  let descending = true;
  let rows: VariantRow[] = [];

  const badge = h('span', {}, statusBadge(sweep.status));
  const bar = h('progress', {
    max: 1,
    value: sweep.progress,
    'aria-label': 'Variants finished',
    'data-testid': 'progress',
  });
  const counts = h('p', { 'data-testid': 'counts', 'aria-live': 'polite' });
  const thead = h('thead');
  const tbody = h('tbody');
  const kpiSelect = h('select', { id: 'chart-kpi' }, ...KPI_COLUMNS.map((k) => h('option', { value: k }, k)));
  const xSelect = h('select', { id: 'chart-x' }, ...params.map((p) => h('option', { value: p }, p)));
  const seriesSelect = h(
    'select',
    { id: 'chart-series' },
    h('option', { value: '' }, '(one line)'),
    ...params.map((p, i) => h('option', { value: p, selected: i === 1 }, p)),
  );
  const chartEl = chartBox('sweep-chart', 'KPI against a parameter', true);
  m.replaceChildren(
    h('p', { class: 'crumbs' }, h('a', { href: '/', 'data-link': true }, 'All scenarios and sweeps')),
    h('h1', {}, sweep.name, ' ', badge),
    h('div', { class: 'card' }, bar, counts),
    card(
      'KPI against a parameter',
      controls(['KPI', kpiSelect], ['against', xSelect], ['one line per', seriesSelect]),
      chartEl,
    ),
    card(
      'Results',
      h('p', { class: 'muted' }, 'Click a column to sort; the best row by that column is marked ★.'),
      h('div', { class: 'scroll' }, h('table', { 'data-testid': 'sweep-results' }, thead, tbody)),
    ),
  );

  const value = (r: VariantRow, key: string): unknown =>
    key.startsWith('p:') ? r.values[key.slice(2)] : r.kpis?.[key];

  const renderHead = () => {
    thead.replaceChildren(
      h(
        'tr',
        {},
        h('th', { scope: 'col' }, '#'),
        h('th', { scope: 'col' }, 'Status'),
        ...columns.map((c) =>
          h(
            'th',
            { scope: 'col', 'aria-sort': c.key === sortKey ? (descending ? 'descending' : 'ascending') : 'none' },
            h(
              'button',
              { type: 'button', class: 'sort', 'data-sort': c.key, onclick: () => sortBy(c.key) },
              c.label,
              c.key === sortKey ? (descending ? ' ▼' : ' ▲') : '',
            ),
          ),
        ),
      ),
    );
  };

  // One <tr> per variant, made when its row first shows or its status changes; sorting only
  // reorders them (2,000 rows: making them is the slow part, moving them is not).
  const made = new Map<number, { status: string; tr: HTMLTableRowElement; link: HTMLAnchorElement }>();
  const rowOf = (r: VariantRow) => {
    const have = made.get(r.index);
    if (have && have.status === r.status) return have;
    const link = h('a', { href: `/scenarios/${r.scenario_id}`, 'data-link': true }, String(r.index));
    const tr = h(
      'tr',
      { 'data-testid': 'sweep-row', 'data-index': r.index },
      h('td', {}, link),
      h('td', {}, statusBadge(r.status, 'row-status')),
      ...columns.map((c) => h('td', { class: 'num' }, show(c.key.replace(/^p:/, ''), value(r, c.key)))),
    );
    const entry = { status: r.status, tr, link };
    made.set(r.index, entry);
    return entry;
  };
  let marked: { tr: HTMLTableRowElement; link: HTMLAnchorElement; index: number } | null = null;

  const renderBody = () => {
    const t0 = performance.now();
    const keyed = rows.map((r) => ({ r, v: value(r, sortKey) }));
    keyed.sort((a, b) => {
      const x = a.v;
      const y = b.v;
      // Rows without the value (not finished, failed) go last either way.
      if (x === undefined || x === null) return y === undefined || y === null ? a.r.index - b.r.index : 1;
      if (y === undefined || y === null) return -1;
      const c = typeof x === 'number' && typeof y === 'number' ? x - y : String(x).localeCompare(String(y));
      return (descending ? -c : c) || a.r.index - b.r.index;
    });
    // The best by the sort column: its first row when sorted the better way round.
    const finished = keyed.filter((k) => typeof k.v === 'number');
    const better = LOWER_IS_BETTER.has(sortKey) ? !descending : descending;
    const best = finished.length ? (better ? finished[0] : finished[finished.length - 1]).r : null;
    if (marked) {
      marked.tr.classList.remove('best');
      marked.link.textContent = String(marked.index);
      marked = null;
    }
    tbody.replaceChildren(...keyed.map((k) => rowOf(k.r).tr));
    if (best) {
      const { tr, link } = rowOf(best);
      tr.classList.add('best');
      link.textContent = `★ ${best.index}`;
      marked = { tr, link, index: best.index };
    }
    window.hourglassSweep ??= { sortMs: [] };
    window.hourglassSweep.sortMs.push(performance.now() - t0);
  };

  const renderChart = () => {
    const kpi = kpiSelect.value;
    const x = xSelect.value;
    const series = seriesSelect.value && seriesSelect.value !== x ? seriesSelect.value : '';
    const points = rows
      .filter((r) => r.kpis)
      .map((r) => ({
        x: r.values[x] as number | string,
        series: series ? `${series} = ${r.values[series]}` : kpi,
        y: (r.kpis?.[kpi] as number | null) ?? null,
      }));
    void charts().then(({ sweepChart }) => sweepChart(chartEl, points, x, kpi));
  };

  function sortBy(key: string): void {
    if (key === sortKey) descending = !descending;
    else {
      sortKey = key;
      descending = !LOWER_IS_BETTER.has(key);
    }
    renderHead();
    renderBody();
  }

  const renderCounts = () => {
    const c = sweep.counts;
    const done = c.succeeded + c.failed + c.cancelled;
    bar.value = c.total ? done / c.total : 0;
    counts.textContent = `${done} of ${c.total} variants finished (${c.succeeded} succeeded, ${c.failed} failed, ${c.cancelled} cancelled; ${c.running} running, ${c.queued} queued)`;
  };

  let refreshing: Promise<void> | null = null;
  let again = false;
  /** Re-reads the results (at most one request at a time; one more if asked meanwhile). */
  const refresh = async (): Promise<void> => {
    if (refreshing) {
      again = true;
      return refreshing;
    }
    refreshing = (async () => {
      do {
        again = false;
        const [results, s] = await Promise.all([
          getJson<{ variants: VariantRow[] }>(`/api/sweeps/${id}/results`),
          getJson<SweepItem>(`/api/sweeps/${id}`),
        ]);
        rows = results.json.variants;
        sweep = s.json;
        badge.replaceChildren(statusBadge(sweep.status));
        renderCounts();
        renderBody();
        renderChart();
      } while (again);
    })().finally(() => {
      refreshing = null;
    });
    return refreshing;
  };

  for (const el of [kpiSelect, xSelect, seriesSelect]) el.addEventListener('change', renderChart);
  renderHead();
  await refresh();
  if (sweep.finished_at) return;
  let timer: ReturnType<typeof setTimeout> | null = null;
  await follow(
    `/api/sweeps/${id}/events`,
    (e) => {
      if (e.event === 'variant' || e.event === 'progress') {
        // Variants can finish hundreds a second: the table is re-read at most every 300 ms.
        if (timer === null) {
          timer = setTimeout(() => {
            timer = null;
            void refresh();
          }, 300);
        }
      }
      if (e.event === 'finished') {
        void refresh();
        return true;
      }
      return false;
    },
    stop,
  );
}
