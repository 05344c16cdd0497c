// A scenario's battery (only when it has one): a chosen week's dispatch (solar, wind, charge below
// zero, discharge, export, the export limit and the hour's price), a SOC heatmap of the chosen year,
// and the annual table. The price is computed here from the stored inputs as docs/storage.md
// defines it; with a solved PPA price, at the solved price (the revenue's price, not the dispatch's
// stand-in); with a load, the merchant price its excess sells at.

import { DAYS_IN_MONTH, HOURS_PER_DAY, HOURS_PER_YEAR } from '../../../../shared/calendar.ts';
import { seriesByRole } from '../../../../shared/hourly.series.ts';
import { getJson } from '../api.ts';
import { amount, card, chartBox, controls, decimal, h } from '../dom.ts';
import type { charts } from '../lazy.ts';
import type { HourlyYear, Kpis, ScenarioItem, Statements, StorageAnnualName } from '../types.ts';
import {
  drawPickedWeeks,
  heaviestWeek,
  type PickedWeek,
  WEEK_HOURS,
  type WeekPickers,
  weekPickers,
  type YearFetcher,
} from '../weeks.ts';

type ChartModule = Awaited<ReturnType<typeof charts>>;

interface MarketInputs {
  currency?: string;
  ppa_share?: number;
  ppa_price_per_mwh?: number | 'solve';
  ppa_escalation_percent?: number;
  merchant_escalation_percent?: number;
  merchant_price_per_mwh?: number;
  merchant_hourly_prices?: number[] | { resource: string } | null;
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
  // A library series (`{resource}`) is read by libraryPrices before this; unread, the scalar price serves.
  const prices = Array.isArray(market.merchant_hourly_prices) ? market.merchant_hourly_prices : undefined;
  // A forecast of n years is used year by year, not escalated; its last year repeats.
  const forecastYears = prices && prices.length > HOURS_PER_YEAR ? prices.length / HOURS_PER_YEAR : 0;
  const merchantHour =
    (forecastYears ? prices?.[(Math.min(year, forecastYears) - 1) * HOURS_PER_YEAR + hour] : prices?.[hour]) ??
    (market.merchant_price_per_mwh ?? 0) * (market.merchant_hour_of_day_multipliers?.[hour % HOURS_PER_DAY] ?? 1);
  const escalation = forecastYears ? 0 : (market.merchant_escalation_percent ?? 0) / 100;
  const merchant = merchantHour * (1 + escalation) ** (year - 1);
  return share * ppa + (1 - share) * merchant;
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
interface BatteryView extends WeekPickers {
  dispatchEl: HTMLElement;
  socEl: HTMLElement;
  table: HTMLElement;
}

/** A year's battery hours, when the scenario kept them. */
interface StorageHours {
  charge: number[];
  discharge: number[];
  soc: number[];
}

function storageHours(data: HourlyYear): StorageHours | null {
  return seriesByRole('storage', data);
}

function batteryView(): BatteryView {
  return {
    ...weekPickers('battery'),
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
      const prices = await libraryPrices(s);
      await drawPickedWeeks(view, fetchYear, {
        charts: [view.dispatchEl, view.socEl],
        hours: storageHours,
        // The week whose battery discharged most.
        firstWeek: (storage) => heaviestWeek(storage.discharge),
        draw: weekDrawer(s, view, drawn, prices),
      });
    },
  };
}

/** The merchant prices of a scenario that references a library series for them (else null): its content, read once. */
async function libraryPrices(s: ScenarioItem): Promise<number[] | null> {
  const ref = (s.inputs?.market as MarketInputs | undefined)?.merchant_hourly_prices;
  if (!ref || Array.isArray(ref)) return null;
  const { status, json } = await getJson<number[]>(`/api/resources/${ref.resource}/content`).catch(() => ({
    status: 0,
    json: null,
  }));
  return status === 200 && Array.isArray(json) ? json : null;
}

/** Draws the chosen week's dispatch and, when the year changed, its SOC heatmap. */
function weekDrawer(
  s: ScenarioItem,
  view: BatteryView,
  drawn: ChartModule,
  prices: number[] | null,
): (picked: PickedWeek<StorageHours>) => void {
  // With a load the PPA is not used: the battery's excess sells at the whole merchant price (docs/load.md).
  const market = {
    ...(s.inputs?.market ?? {}),
    ...(prices ? { merchant_hourly_prices: prices } : {}),
    ...(s.inputs?.load ? { ppa_share: 0 } : {}),
  } as MarketInputs;
  const limit = (s.inputs?.grid as { export_limit_mw?: number } | undefined)?.export_limit_mw ?? null;
  return ({ year, data, hours: storage, firstHour: from, cut, yearChanged }) => {
    const { solar, wind } = seriesByRole('generation', data);
    const grid = seriesByRole('storage', data)?.grid ?? solar.map((v, i) => v + wind[i]);
    const reserved = seriesByRole('ancillary', data);
    const week = {
      firstHour: from,
      solar: cut(solar),
      wind: cut(wind),
      charge: cut(storage.charge),
      discharge: cut(storage.discharge),
      grid: cut(grid),
      limitMw: limit,
      price: Array.from({ length: WEEK_HOURS }, (_, i) => hourPrice(market, s.kpis ?? {}, year, from + i)),
      currency: String(market.currency ?? ''),
      ...(reserved ? { reserveUp: cut(reserved.up), reserveDown: cut(reserved.down) } : {}),
    };
    drawn.dispatchChart(view.dispatchEl, week, () => {
      view.dispatchEl.dataset.painted = `${year}-${view.week.value}`;
    });
    if (yearChanged) {
      drawn.heatmap(view.socEl, storage.soc, 'Stored', drawn.COLORS.battery, () => {
        view.socEl.dataset.painted = String(data.calendar_year);
      });
    }
  };
}
