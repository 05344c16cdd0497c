// `/scenarios/{id}`: live progress while it runs (resuming after a dropped connection), then KPI
// cards, annual energy, a heatmap of one year's hourly output (year and technology chosen), the
// monthly profile, with a load its card, the cash-flow chart and the statements' tables (per party
// for a flip or a sale-leaseback), and downloads. A failed scenario shows its error.
import { seriesByRole } from '../../../../shared/hourly.series.ts';
import { download, follow, getJson, pageResource } from '../api.ts';
import { amount, card, chartBox, controls, decimal, h, main, yearSelect } from '../dom.ts';
import { KPI_CARDS, kpiText } from '../kpis.ts';
import { charts, loadCharts, revenueCharts } from '../lazy.ts';
import { statusBadge } from '../live.ts';
import type { RevenueOfYear } from '../revenue.lines.ts';
import { batterySection } from '../sections/battery.ts';
import { loadSection } from '../sections/load.ts';
import { optimizeForm } from '../sections/optimize.ts';
import { resourceSection } from '../sections/resource.ts';
import { HEATMAP_PAINTED } from '../timings.ts';
import type { HourlyYear, Kpis, ScenarioItem, Statements } from '../types.ts';
import type { YearFetcher } from '../weeks.ts';

export async function scenarioPage(id: string, stop: AbortSignal): Promise<void> {
  const m = main();
  const s = await pageResource<ScenarioItem>(m, 'scenario', id);
  if (!s) return;
  const badge = h('span', {}, statusBadge(s.status));
  const body = h('div', {});
  m.replaceChildren(
    h('p', { class: 'crumbs' }, h('a', { href: '/', 'data-link': true }, 'All scenarios')),
    h('h1', {}, s.name, ' ', badge),
    body,
  );
  if (s.sweep_id)
    m.querySelector('.crumbs')?.append(
      ' · ',
      h('a', { href: `/sweeps/${s.sweep_id}`, 'data-link': true }, 'its sweep'),
    );

  if (s.status === 'succeeded') {
    m.append(optimizeForm(s));
    return results(s, body);
  }
  if (s.status === 'failed') return failed(s.error, body);
  if (s.status === 'cancelled') {
    body.replaceChildren(h('p', {}, 'This scenario was cancelled before it ran.'));
    return;
  }

  // Queued or running: a progress bar fed by the event stream.
  const bar = h('progress', { max: 1, value: s.progress, 'data-testid': 'progress', 'aria-label': 'Progress' });
  const stage = h('p', { 'data-testid': 'stage', 'aria-live': 'polite' }, s.stage ?? 'Waiting for a worker');
  const connection = h('p', { class: 'muted', 'data-testid': 'connection' });
  body.replaceChildren(h('div', { class: 'card' }, bar, stage, connection));
  await follow(
    `/api/scenarios/${id}/events`,
    (e) => {
      const d = e.data as { progress?: number; message?: string; stage?: string; error?: ScenarioItem['error'] };
      if (e.event === 'running') {
        badge.replaceChildren(statusBadge('running'));
        stage.textContent = 'Running';
      }
      if (e.event === 'queued') badge.replaceChildren(statusBadge('queued'));
      if (e.event === 'progress') {
        bar.value = d.progress ?? bar.value;
        stage.textContent = d.message ?? d.stage ?? '';
      }
      if (e.event === 'failed') {
        badge.replaceChildren(statusBadge('failed'));
        failed(d.error ?? null, body);
        return true;
      }
      if (e.event === 'cancelled') {
        badge.replaceChildren(statusBadge('cancelled'));
        body.replaceChildren(h('p', {}, 'This scenario was cancelled.'));
        return true;
      }
      if (e.event === 'succeeded') {
        badge.replaceChildren(statusBadge('succeeded'));
        void getJson<ScenarioItem>(`/api/scenarios/${id}`).then(({ json: done }) => results(done, body));
        return true;
      }
      return false;
    },
    {
      stop,
      onConnection: (state) => {
        connection.textContent = state === 'open' ? '' : 'Connection lost: reconnecting…';
      },
    },
  );
}

function failed(error: ScenarioItem['error'], body: HTMLElement): void {
  body.replaceChildren(
    h(
      'div',
      { class: 'card failed', role: 'alert', 'data-testid': 'error' },
      h('h2', {}, 'The calculation failed'),
      h('p', {}, h('code', {}, error?.code ?? 'unknown')),
      h('p', {}, error?.message ?? ''),
    ),
  );
}

function kpiCards(kpis: Kpis): HTMLElement {
  return h(
    'div',
    { class: 'kpis' },
    ...KPI_CARDS.filter((k) => k.presence === 'always' || (kpis[k.name] !== null && kpis[k.name] !== undefined)).map(
      (k) =>
        h(
          'div',
          // The registry's definition on hover: what "LCOD" or "worst month" means.
          { class: 'kpi', 'data-testid': `kpi-${k.name}`, 'data-value': String(kpis[k.name]), title: k.description },
          h('span', { class: 'label' }, k.label),
          h('span', { class: 'value' }, kpiText(k.name, kpis[k.name])),
        ),
    ),
  );
}

function downloadButton(label: string, path: string, filename: string): HTMLElement {
  return h('button', { type: 'button', class: 'secondary', onclick: () => void download(path, filename) }, label);
}

type ChartModule = Awaited<ReturnType<typeof charts>>;

/** The hourly heatmap's parts: its year and technology pickers and where it and the month chart draw. */
interface HourlyView {
  year: HTMLSelectElement;
  tech: HTMLSelectElement;
  heatEl: HTMLElement;
  monthlyEl: HTMLElement;
}

function hourlyView(): HourlyView {
  return {
    year: yearSelect('heat-year'),
    tech: h(
      'select',
      { id: 'heat-tech' },
      h('option', { value: 'solar' }, 'Solar'),
      h('option', { value: 'wind' }, 'Wind'),
      h('option', { value: 'total' }, 'Solar + wind'),
    ),
    heatEl: chartBox('heatmap', 'Hourly output heatmap', { tall: true }),
    monthlyEl: chartBox('monthly-chart', 'Monthly energy'),
  };
}

async function results(s: ScenarioItem, body: HTMLElement): Promise<void> {
  const annualEl = chartBox('annual-chart', 'Annual energy by technology and curtailment');
  const cashEl = chartBox('cashflow-chart', 'Equity cash flow');
  const revenueEl = chartBox('revenue-chart', 'Revenue by year, by line');
  const hourly = hourlyView();
  const tables = h('div', {});
  const battery = batterySection(s);
  const load = loadSection(s);
  const resource = resourceSection(s);
  body.replaceChildren(
    kpiCards(s.kpis ?? {}),
    h(
      'p',
      { class: 'downloads' },
      downloadButton('Download JSON', `/api/scenarios/${s.id}/statements`, `scenario-${s.id}.json`),
      ' ',
      downloadButton(
        'Download hourly CSV',
        `/api/scenarios/${s.id}/statements?format=csv`,
        `scenario-${s.id}-hourly.csv`,
      ),
    ),
    card('Annual energy', annualEl),
    card(
      'Hourly output',
      controls(['Year', hourly.year], ['Technology', hourly.tech]),
      hourly.heatEl,
      h('h3', {}, 'Monthly energy of that year'),
      hourly.monthlyEl,
    ),
    ...(load ? [load.element] : []),
    ...(battery ? [battery.element] : []),
    resource.element,
    card('Equity cash flow', cashEl),
    card('Revenue by year', revenueEl),
    tables,
  );

  const [statements, drawn] = await Promise.all([
    getJson<Statements>(`/api/scenarios/${s.id}/statements?hourly=false`).then((r) => r.json),
    charts(),
  ]);
  tables.replaceChildren(
    cashFlowTable(statements),
    ...(statements.parties ? [partiesTable(statements)] : []),
    incomeTable(statements),
  );
  drawn.annualChart(annualEl, statements.annual);
  drawn.cashflowChart(cashEl, statements.cash_flow);

  resource.draw(statements, drawn);
  const fetchYear = yearFetcher(s.id);
  const draw = hourlyDrawer(hourly, drawn, fetchYear);
  hourly.year.addEventListener('change', () => void draw());
  hourly.tech.addEventListener('change', () => void draw());
  await Promise.all([
    draw(),
    battery?.draw(statements, drawn, fetchYear),
    load && loadCharts().then((loadDrawn) => load.draw(statements, loadDrawn, fetchYear)),
    revenueCharts().then((r) => r.revenueChart(revenueEl, revenueYears(statements))),
  ]);
}

/** The income statement's revenue lines of each year, as the revenue stack draws them. */
function revenueYears(st: Statements): Array<{ year: number; revenue: RevenueOfYear }> {
  return st.income_statement.map((r) => ({ year: r.year, revenue: r.revenue as RevenueOfYear }));
}

/** Each operating year's hourly data, fetched once and shared by the charts; null when not kept. */
function yearFetcher(id: string): YearFetcher {
  const cache = new Map<number, Promise<HourlyYear | null>>();
  return (year) => {
    let data = cache.get(year);
    if (!data) {
      data = getJson<HourlyYear>(`/api/scenarios/${id}/statements?year=${year}`).then((res) =>
        res.status === 200 ? res.json : null,
      );
      cache.set(year, data);
    }
    return data;
  };
}

/**
 * Draws the chosen year's heatmap and month chart, each year's data fetched once; each heatmap
 * painted leaves a HEATMAP_PAINTED measure (data arrival → painted).
 */
function hourlyDrawer(view: HourlyView, drawn: ChartModule, fetchYear: YearFetcher): () => Promise<void> {
  const { year, tech, heatEl, monthlyEl } = view;
  const { COLORS, heatmap, monthlyChart } = drawn;
  return async () => {
    const y = Number(year.value);
    const data = await fetchYear(y);
    if (!data) {
      heatEl.replaceChildren(h('p', { class: 'muted' }, 'This scenario kept no hourly data (a sweep variant).'));
      monthlyEl.replaceChildren();
      return;
    }
    const arrived = performance.mark(`${HEATMAP_PAINTED}:data`);
    const technology = tech.value;
    const { solar, wind } = seriesByRole('generation', data);
    const series = technology === 'solar' ? solar : technology === 'wind' ? wind : solar.map((v, i) => v + wind[i]);
    const color = technology === 'solar' ? COLORS.solar : technology === 'wind' ? COLORS.wind : '#6b46c1';
    heatmap(heatEl, series, tech.options[tech.selectedIndex].text, color, () => {
      performance.measure(HEATMAP_PAINTED, { start: arrived.startTime, detail: { year: y, technology } });
      heatEl.dataset.painted = `${data.calendar_year}-${technology}`;
    });
    monthlyChart(monthlyEl, solar, wind);
  };
}

/**
 * The statements' table columns: [table, header, path in the year's row, "opt"?]; `c` is the cash
 * flow, `i` the income statement. Money unless the path is `dscr`. An `opt` column (a line of SAM
 * Single Owner's structure that is 0 unless its input is set) shows only when some year has it;
 * `opt:path` when some year has that other line (the federal tax, beside a state tax).
 */
const COLUMNS = (
  `c Capex capex|c Debt_fee debt_fee opt|c EBITDA ebitda|c Reserve_interest reserve_interest opt|c Income_tax income_tax|c Tax_credits tax_credits.total|c Debt_drawn debt_drawdown|c Interest interest|c Principal principal|c CFADS cfads|c DSCR dscr|c Reserves_funded reserve_funding opt|c Equipment_replaced equipment_replacement opt|c Closing_costs closing_costs opt|c Credits_sold credit_transfer_proceeds opt|c Equity_cash_flow equity_cash_flow|c Cumulative cumulative_equity_cash_flow|i Revenue revenue.total|` +
  `i Capacity revenue.capacity opt|i Curtailment_paid revenue.curtailment_payment opt|` +
  `i Salvage salvage_value opt|i Operating_expenses operating_expenses.total|i EBITDA ebitda|i Reserve_interest reserve_interest opt|i Depreciation depreciation|i Interest interest|i Pre-tax_income pre_tax_income|i State_tax state_income_tax opt|i Federal_tax federal_income_tax opt:state_income_tax|i Income_tax income_tax|i Tax_credits tax_credits.total|i Net_income net_income|p Investor_pre-tax tax_investor.pre_tax_cash|p Investor_tax_benefit tax_investor.tax_benefit|p Investor_after-tax tax_investor.after_tax_cash|p Investor_cumulative tax_investor.cumulative|p Sponsor_pre-tax sponsor.pre_tax_cash|p Sponsor_tax_benefit sponsor.tax_benefit|p Sponsor_after-tax sponsor.after_tax_cash|p Sponsor_cumulative sponsor.cumulative`
)
  .split('|')
  .map((spec) => {
    const [table, header, path, opt] = spec.split(' ');
    const shownIf = opt === 'opt' ? path : opt?.startsWith('opt:') ? opt.slice(4) : null;
    return { table, header: header.replaceAll('_', ' '), path, shownIf };
  });

function value(row: Record<string, unknown>, path: string): unknown {
  return path.split('.').reduce<unknown>((o, k) => (o as Record<string, unknown> | undefined)?.[k], row);
}

function cell(row: Record<string, unknown>, path: string): string {
  const v = value(row, path);
  const n = typeof v === 'number' ? v : null;
  return path === 'dscr' ? decimal(n) : amount(n);
}

function statementTable(
  table: 'c' | 'i' | 'p',
  caption: string,
  testid: string,
  rows: Array<Record<string, unknown> & { year: number }>,
): HTMLElement {
  const columns = COLUMNS.filter(
    (c) =>
      c.table === table &&
      (c.shownIf === null ||
        rows.some((r) => {
          const v = value(r, c.shownIf as string);
          return typeof v === 'number' && v !== 0;
        })),
  );
  return h(
    'section',
    { class: 'card' },
    h(
      'div',
      { class: 'scroll' },
      h(
        'table',
        { 'data-testid': testid, class: 'statement' },
        h('caption', {}, caption),
        h(
          'thead',
          {},
          h('tr', {}, h('th', { scope: 'col' }, 'Year'), ...columns.map((c) => h('th', { scope: 'col' }, c.header))),
        ),
        h(
          'tbody',
          {},
          ...rows.map((r) =>
            h(
              'tr',
              {},
              h('th', { scope: 'row' }, String(r.year)),
              ...columns.map((c) => h('td', { class: 'num' }, cell(r, c.path))),
            ),
          ),
        ),
      ),
    ),
  );
}

function cashFlowTable(st: Statements): HTMLElement {
  return statementTable('c', `Cash flow (${st.currency})`, 'cashflow-table', st.cash_flow);
}

/** A flip's or a sale-leaseback's cash flow per party, the tax investor's and the sponsor's years side by side. */
function partiesTable(st: Statements): HTMLElement {
  const p = st.parties as NonNullable<Statements['parties']>;
  const rows = p.tax_investor.years.map((y, i) => ({ year: y.year, tax_investor: y, sponsor: p.sponsor.years[i] }));
  const flip = p.flip_year === null ? '' : `, flip in year ${p.flip_year}`;
  const who = p.structure === 'sale_leaseback' ? 'lessor (investor) and lessee (sponsor)' : 'tax investor and sponsor';
  return statementTable('p', `Cash flow by party: ${who}${flip} (${st.currency})`, 'parties-table', rows);
}

function incomeTable(st: Statements): HTMLElement {
  return statementTable('i', `Income statement (${st.currency})`, 'income-table', st.income_statement);
}
