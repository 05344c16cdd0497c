import { card, chartBox, controls, h } from '../dom.ts';
import { KPI_COLUMNS, kpiLabel, kpiText, lowerIsBetter } from '../kpis.ts';
import { charts } from '../lazy.ts';
import { liveParentPage, statusBadge } from '../live.ts';
import { SWEEP_TABLE_SORTED } from '../timings.ts';
import type { SweepItem, VariantRow } from '../types.ts';

interface Column {
  /** `p:<path>` for a parameter, the KPI's name for a KPI. */
  key: string;
  label: string;
}

/** The page's parts that change after it is built. */
interface SweepView {
  badge: HTMLElement;
  bar: HTMLProgressElement;
  counts: HTMLElement;
  thead: HTMLTableSectionElement;
  tbody: HTMLTableSectionElement;
  kpiSelect: HTMLSelectElement;
  xSelect: HTMLSelectElement;
  seriesSelect: HTMLSelectElement;
  chartEl: HTMLElement;
}

function show(name: string, v: unknown): string {
  if (typeof v !== 'number') return v === null || v === undefined ? '—' : String(v);
  return kpiText(name, v);
}

const columnValue = (r: VariantRow, key: string): unknown =>
  key.startsWith('p:') ? r.values[key.slice(2)] : r.kpis?.[key];

/** The results table, re-read as variants finish and as the counts move. */
const STREAM = { table: 'results', rows: 'variants', ticks: ['variant', 'progress'] };

export function sweepPage(id: string, stop: AbortSignal): Promise<void> {
  return liveParentPage<SweepItem, VariantRow>('sweep', id, stop, STREAM, (m, first) => {
    const view = sweepLayout(m, first);
    const table = resultsTable(view, [
      ...first.parameters.map((p) => ({ key: `p:${p}`, label: p })),
      ...KPI_COLUMNS.map((k) => ({ key: k, label: kpiLabel(k) })),
    ]);
    let rows: VariantRow[] = [];
    const drawChart = () => renderChart(view, rows);
    for (const el of [view.kpiSelect, view.xSelect, view.seriesSelect]) el.addEventListener('change', drawChart);
    return (sweep, variants) => {
      rows = variants;
      view.badge.replaceChildren(statusBadge(sweep.status));
      renderCounts(view, sweep);
      table.render(rows);
      drawChart();
    };
  });
}

/** Fills the page's container: the heading, progress, the chart's controls and the results table. */
function sweepLayout(m: HTMLElement, sweep: SweepItem): SweepView {
  const params = sweep.parameters;
  const view: SweepView = {
    badge: h('span', {}, statusBadge(sweep.status)),
    bar: h('progress', {
      max: 1,
      value: sweep.progress,
      'aria-label': 'Variants finished',
      'data-testid': 'progress',
    }),
    counts: h('p', { 'data-testid': 'counts', 'aria-live': 'polite' }),
    thead: h('thead'),
    tbody: h('tbody'),
    kpiSelect: h('select', { id: 'chart-kpi' }, ...KPI_COLUMNS.map((k) => h('option', { value: k }, kpiLabel(k)))),
    xSelect: h('select', { id: 'chart-x' }, ...params.map((p) => h('option', { value: p }, p))),
    seriesSelect: h(
      'select',
      { id: 'chart-series' },
      h('option', { value: '' }, '(one line)'),
      ...params.map((p, i) => h('option', { value: p, selected: i === 1 }, p)),
    ),
    chartEl: chartBox('sweep-chart', 'KPI against a parameter', { tall: true }),
  };
  m.replaceChildren(
    h('p', { class: 'crumbs' }, h('a', { href: '/', 'data-link': true }, 'All scenarios and sweeps')),
    h('h1', {}, sweep.name, ' ', view.badge),
    h('div', { class: 'card' }, view.bar, view.counts),
    card(
      'KPI against a parameter',
      controls(['KPI', view.kpiSelect], ['against', view.xSelect], ['one line per', view.seriesSelect]),
      view.chartEl,
    ),
    card(
      'Results',
      h('p', { class: 'muted' }, 'Click a column to sort; the best row by that column is marked ★.'),
      h('div', { class: 'scroll' }, h('table', { 'data-testid': 'sweep-results' }, view.thead, view.tbody)),
    ),
  );
  return view;
}

type Keyed = { r: VariantRow; v: unknown };

/** The rows with their values in the sort column, sorted; rows without the value (not finished, failed) last. */
function sortRows(rows: VariantRow[], key: string, descending: boolean): Keyed[] {
  const keyed = rows.map((r) => ({ r, v: columnValue(r, key) }));
  keyed.sort((a, b) => {
    const x = a.v;
    const y = b.v;
    if (x === undefined || x === null) return y === undefined || y === null ? a.r.index - b.r.index : 1;
    if (y === undefined || y === null) return -1;
    const c = typeof x === 'number' && typeof y === 'number' ? x - y : String(x).localeCompare(String(y));
    return (descending ? -c : c) || a.r.index - b.r.index;
  });
  return keyed;
}

/** The best row by the sort column: its first finished row when sorted the better way round. */
function bestRow(sorted: Keyed[], key: string, descending: boolean): VariantRow | null {
  const finished = sorted.filter((k) => typeof k.v === 'number');
  if (!finished.length) return null;
  const better = lowerIsBetter(key) ? !descending : descending;
  return (better ? finished[0] : finished[finished.length - 1]).r;
}

type MadeRow = { status: string; tr: HTMLTableRowElement; link: HTMLAnchorElement };

/**
 * One <tr> per variant, made when its row first shows or its status changes; sorting only
 * reorders them (2,000 rows: making them is the slow part, moving them is not).
 */
function rowMaker(columns: Column[]): (r: VariantRow) => MadeRow {
  const made = new Map<number, MadeRow>();
  return (r) => {
    const have = made.get(r.index);
    if (have && have.status === r.status) return have;
    const link = h('a', { href: `/scenarios/${r.scenario_id}`, 'data-link': true }, String(r.index));
    const tr = h(
      'tr',
      { 'data-testid': 'sweep-row', 'data-index': r.index },
      h('td', {}, link),
      h('td', {}, statusBadge(r.status, 'row-status')),
      ...columns.map((c) => h('td', { class: 'num' }, show(c.key.replace(/^p:/, ''), columnValue(r, c.key)))),
    );
    const entry = { status: r.status, tr, link };
    made.set(r.index, entry);
    return entry;
  };
}

/** The results table: sorted by a column its header's buttons choose, the best row marked. */
function resultsTable(view: SweepView, columns: Column[]): { render(rows: VariantRow[]): void } {
  let sortKey = 'equity_npv';
  let descending = true;
  let rows: VariantRow[] = [];
  let marked: { tr: HTMLTableRowElement; link: HTMLAnchorElement; index: number } | null = null;
  const rowOf = rowMaker(columns);

  const renderHead = () => {
    const sortBy = (key: string) => {
      if (key === sortKey) descending = !descending;
      else {
        sortKey = key;
        descending = !lowerIsBetter(key);
      }
      renderHead();
      renderBody();
    };
    view.thead.replaceChildren(headRow(columns, { key: sortKey, descending }, sortBy));
  };

  const renderBody = () => {
    const start = performance.mark(`${SWEEP_TABLE_SORTED}:start`);
    const sorted = sortRows(rows, sortKey, descending);
    const best = bestRow(sorted, sortKey, descending);
    if (marked) {
      marked.tr.classList.remove('best');
      marked.link.textContent = String(marked.index);
      marked = null;
    }
    view.tbody.replaceChildren(...sorted.map((k) => rowOf(k.r).tr));
    if (best) {
      const { tr, link } = rowOf(best);
      tr.classList.add('best');
      link.textContent = `★ ${best.index}`;
      marked = { tr, link, index: best.index };
    }
    performance.measure(SWEEP_TABLE_SORTED, { start: start.startTime, detail: { rows: rows.length, key: sortKey } });
  };

  renderHead();
  return {
    render(next) {
      rows = next;
      renderBody();
    },
  };
}

/** The header row: a sort button per column, the sorted one marked ▼ or ▲. */
function headRow(
  columns: Column[],
  sorted: { key: string; descending: boolean },
  sortBy: (key: string) => void,
): HTMLTableRowElement {
  return h(
    'tr',
    {},
    h('th', { scope: 'col' }, '#'),
    h('th', { scope: 'col' }, 'Status'),
    ...columns.map((c) => {
      const here = c.key === sorted.key;
      return h(
        'th',
        { scope: 'col', 'aria-sort': here ? (sorted.descending ? 'descending' : 'ascending') : 'none' },
        h(
          'button',
          { type: 'button', class: 'sort', 'data-sort': c.key, onclick: () => sortBy(c.key) },
          c.label,
          here ? (sorted.descending ? ' ▼' : ' ▲') : '',
        ),
      );
    }),
  );
}

/** The chosen KPI against the chosen parameter, one line per value of the series parameter. */
function renderChart(view: SweepView, rows: VariantRow[]): void {
  const kpi = view.kpiSelect.value;
  const x = view.xSelect.value;
  const seriesValue = view.seriesSelect.value;
  const series = seriesValue && seriesValue !== x ? seriesValue : '';
  const points = rows
    .filter((r) => r.kpis)
    .map((r) => ({
      x: r.values[x] as number | string,
      series: series ? `${series} = ${r.values[series]}` : kpi,
      y: (r.kpis?.[kpi] as number | null) ?? null,
    }));
  void charts().then(({ sweepChart }) => sweepChart(view.chartEl, points, x, kpi));
}

function renderCounts(view: SweepView, sweep: SweepItem): void {
  const c = sweep.counts;
  const done = c.succeeded + c.failed + c.cancelled;
  view.bar.value = c.total ? done / c.total : 0;
  view.counts.textContent = `${done} of ${c.total} variants finished (${c.succeeded} succeeded, ${c.failed} failed, ${c.cancelled} cancelled; ${c.running} running, ${c.queued} queued)`;
}
