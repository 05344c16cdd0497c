// A scenario's battery (only when it has one): a chosen week's dispatch (solar, wind, charge below
// zero, discharge, export, the export limit and the hour's price), a SOC heatmap of the chosen year,
// and the annual table. The price is computed here from the stored inputs as docs/storage.md
// defines it; with a solved PPA price, at the solved price (the revenue's price, not the dispatch's
// stand-in); with a load, the merchant price its excess sells at.
import { amount, card, chartBox, controls, decimal, h, yearSelect } from '../dom.ts';
import type { charts } from '../lazy.ts';
import type { HourlyYear, Kpis, ScenarioItem, Statements, StorageAnnualName } from '../types.ts';

type ChartModule = Awaited<ReturnType<typeof charts>>;
/** One operating year's hourly data, fetched once; null when the scenario kept none. */
export type YearFetcher = (year: number) => Promise<HourlyYear | null>;

const HOURS_PER_DAY = 24;
const DAYS_PER_WEEK = 7;
const WEEK_HOURS = HOURS_PER_DAY * DAYS_PER_WEEK;
const WEEKS = 52;
const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

interface MarketInputs {
  currency?: string;
  ppa_share?: number;
  ppa_price_per_mwh?: number | 'solve';
  ppa_escalation_percent?: number;
  merchant_escalation_percent?: number;
  merchant_price_per_mwh?: number;
  merchant_hourly_prices?: number[] | null;
  merchant_hour_of_day_multipliers?: number[] | null;
  ppa_month_hour_multipliers?: number[][] | null;
}

type Inputs = NonNullable<ScenarioItem['inputs']>;

/** The battery's inputs when the scenario has one (power above 0). */
function batteryOf(inputs: Inputs | undefined): { power_mw: number; energy_mwh: number } | null {
  const storage = inputs?.storage as { power_mw?: number; energy_mwh?: number } | undefined;
  return storage && (storage.power_mw ?? 0) > 0
    ? { power_mw: storage.power_mw ?? 0, energy_mwh: storage.energy_mwh ?? 0 }
    : null;
}

/** The month of each hour of the year (0–11). */
function monthOfHour(hour: number): number {
  let day = Math.floor(hour / HOURS_PER_DAY);
  for (let m = 0; m < DAYS_IN_MONTH.length; m++) {
    if (day < DAYS_IN_MONTH[m]) return m;
    day -= DAYS_IN_MONTH[m];
  }
  return DAYS_IN_MONTH.length - 1;
}

/**
 * What a MWh exported in hour `hour` of operating year `year` earns (docs/storage.md): PPA share ×
 * PPA price (escalated) × its month-hour factor + merchant share × the hour's merchant price (escalated).
 */
function hourPrice(market: MarketInputs, kpis: Kpis, year: number, hour: number): number {
  const share = market.ppa_share ?? 1;
  const ppaYear1 =
    market.ppa_price_per_mwh === 'solve' ? (kpis.solved_ppa_price_per_mwh ?? 0) : (market.ppa_price_per_mwh ?? 0);
  const tod = market.ppa_month_hour_multipliers?.[monthOfHour(hour)]?.[hour % HOURS_PER_DAY] ?? 1;
  const ppa = ppaYear1 * (1 + (market.ppa_escalation_percent ?? 0) / 100) ** (year - 1) * tod;
  const merchantYear1 =
    market.merchant_hourly_prices?.[hour] ??
    (market.merchant_price_per_mwh ?? 0) * (market.merchant_hour_of_day_multipliers?.[hour % HOURS_PER_DAY] ?? 1);
  const merchant = merchantYear1 * (1 + (market.merchant_escalation_percent ?? 0) / 100) ** (year - 1);
  return share * ppa + (1 - share) * merchant;
}

/** The week of the year whose battery discharged most (where the chart starts). */
function busiestWeek(discharge: number[]): number {
  let best = 0;
  let bestSum = -1;
  for (let w = 0; w < WEEKS; w++) {
    let sum = 0;
    for (let i = w * WEEK_HOURS; i < (w + 1) * WEEK_HOURS; i++) sum += discharge[i] ?? 0;
    if (sum > bestSum) [best, bestSum] = [w, sum];
  }
  return best;
}

const ANNUAL_COLUMNS: Array<[StorageAnnualName, string]> = [
  ['storage_charge_from_plant_mwh', 'Charged from the plant (MWh)'],
  ['storage_charge_from_grid_mwh', 'Charged from the grid (MWh)'],
  ['storage_discharge_mwh', 'Discharged (MWh)'],
  ['storage_cycles', 'Cycles'],
  ['storage_capacity_percent', 'Capacity at year end (%)'],
  ['storage_replacements', 'Replacements'],
  ['curtailed_without_storage_mwh', 'Curtailed without the battery (MWh)'],
];

function annualTable(st: Statements): HTMLElement {
  const format = (name: StorageAnnualName, v: number | undefined) =>
    name === 'storage_cycles' || name === 'storage_capacity_percent' ? decimal(v, 1) : amount(v);
  return h(
    'div',
    { class: 'scroll' },
    h(
      'table',
      { 'data-testid': 'storage-annual-table', class: 'statement' },
      h('caption', {}, 'The battery, year by year'),
      h(
        'thead',
        {},
        h('tr', {}, h('th', { scope: 'col' }, 'Year'), ...ANNUAL_COLUMNS.map(([, t]) => h('th', { scope: 'col' }, t))),
      ),
      h(
        'tbody',
        {},
        ...st.annual.map((row) =>
          h(
            'tr',
            {},
            h('th', { scope: 'row' }, String(row.year)),
            ...ANNUAL_COLUMNS.map(([name]) => h('td', { class: 'num' }, format(name, row[name]))),
          ),
        ),
      ),
    ),
  );
}

/** The battery card's parts: its pickers and where its charts and table go. */
interface BatteryView {
  year: HTMLSelectElement;
  week: HTMLSelectElement;
  dispatchEl: HTMLElement;
  socEl: HTMLElement;
  table: HTMLElement;
}

function batteryView(): BatteryView {
  return {
    year: yearSelect('battery-year'),
    week: h(
      'select',
      { id: 'battery-week' },
      ...Array.from({ length: WEEKS }, (_, w) => h('option', { value: String(w) }, `Week ${w + 1}`)),
    ),
    dispatchEl: chartBox('dispatch-chart', "A week of the battery's dispatch", { tall: true }),
    socEl: chartBox('soc-heatmap', 'Battery state of charge heatmap', { tall: true }),
    table: h('div', {}),
  };
}

/** The battery card of a scenario with a battery, and how to fill it once the statements and charts are in. */
export function batterySection(s: ScenarioItem): {
  element: HTMLElement;
  draw(st: Statements, drawn: ChartModule, fetchYear: YearFetcher): Promise<void>;
} | null {
  const battery = batteryOf(s.inputs);
  if (!battery) return null;
  const view = batteryView();
  const element = card(
    `Battery: ${decimal(battery.power_mw, 0)} MW / ${decimal(battery.energy_mwh, 0)} MWh`,
    controls(['Year', view.year], ['Week', view.week]),
    h('h3', {}, 'Dispatch of that week'),
    view.dispatchEl,
    h('h3', {}, 'State of charge (MWh stored at each hour’s end)'),
    view.socEl,
    view.table,
  );
  return {
    element,
    async draw(st, drawn, fetchYear) {
      view.table.replaceChildren(annualTable(st));
      const redraw = weekDrawer(s, view, drawn, fetchYear);
      view.year.addEventListener('change', () => void redraw(true));
      view.week.addEventListener('change', () => void redraw(false));
      await redraw(true);
    },
  };
}

/** Draws the chosen week's dispatch and, when the year changed, its SOC heatmap. */
function weekDrawer(
  s: ScenarioItem,
  view: BatteryView,
  drawn: ChartModule,
  fetchYear: YearFetcher,
): (yearChanged: boolean) => Promise<void> {
  // With a load the PPA is not used: the battery's excess sells at the whole merchant price (docs/load.md).
  const market = { ...(s.inputs?.market ?? {}), ...(s.inputs?.load ? { ppa_share: 0 } : {}) } as MarketInputs;
  const limit = (s.inputs?.grid as { export_limit_mw?: number } | undefined)?.export_limit_mw ?? null;
  let chosen = false;
  return async (yearChanged) => {
    const year = Number(view.year.value);
    const data = await fetchYear(year);
    if (!data?.storage_discharge_hourly || !data.storage_charge_hourly || !data.storage_soc_hourly) {
      view.dispatchEl.replaceChildren(
        h('p', { class: 'muted' }, 'This scenario kept no hourly data (a sweep variant).'),
      );
      view.socEl.replaceChildren();
      return;
    }
    if (!chosen) {
      view.week.value = String(busiestWeek(data.storage_discharge_hourly));
      chosen = true;
    }
    const from = Number(view.week.value) * WEEK_HOURS;
    const cut = (a: number[]) => a.slice(from, from + WEEK_HOURS);
    const grid = data.grid_hourly ?? data.solar_hourly.map((v, i) => v + data.wind_hourly[i]);
    const week = {
      firstHour: from,
      solar: cut(data.solar_hourly),
      wind: cut(data.wind_hourly),
      charge: cut(data.storage_charge_hourly),
      discharge: cut(data.storage_discharge_hourly),
      grid: cut(grid),
      limitMw: limit,
      price: Array.from({ length: WEEK_HOURS }, (_, i) => hourPrice(market, s.kpis ?? {}, year, from + i)),
      currency: String(market.currency ?? ''),
    };
    drawn.dispatchChart(view.dispatchEl, week, () => {
      view.dispatchEl.dataset.painted = `${year}-${view.week.value}`;
    });
    if (yearChanged) {
      drawn.heatmap(view.socEl, data.storage_soc_hourly, 'Stored', drawn.COLORS.battery, () => {
        view.socEl.dataset.painted = String(data.calendar_year);
      });
    }
  };
}
