// A scenario's load (only when it has one, docs/load.md): a chosen week of the load against what
// served it (each hour split by load.hours.ts), the month × hour match of the chosen year, and
// availability per period against the contract's thresholds, with the shortfall.
import { MONTHS } from '../../../../shared/calendar.ts';
import { getJson } from '../api.ts';
import { amount, card, chartBox, controls, decimal, h } from '../dom.ts';
import type { loadCharts } from '../lazy.ts';
import { monthHourMatch, type ServedHours, servedHours } from '../load.hours.ts';
import type { ScenarioItem, Statements } from '../types.ts';
import {
  drawPickedWeeks,
  heaviestWeek,
  type PickedWeek,
  type WeekPickers,
  weekPickers,
  type YearFetcher,
} from '../weeks.ts';

type LoadChartModule = Awaited<ReturnType<typeof loadCharts>>;

type Period = 'year' | 'month' | 'peak';

interface LoadInputs {
  flat_mw?: number;
  /** An array, or `{resource}`: a series of the library (its figures are in the library). */
  hourly_mw?: number[] | { resource: string };
  excess?: 'sell' | 'curtail';
  contract?: {
    price_per_mwh?: number;
    availability?: Array<{ period: Period; min_percent: number }>;
    peak_hours?: number[];
  };
}

/** The load's inputs when the scenario has one. */
function loadOf(s: ScenarioItem): LoadInputs | null {
  const load = s.inputs?.load as LoadInputs | undefined;
  return load && (load.flat_mw !== undefined || load.hourly_mw !== undefined) ? load : null;
}

/** The largest value, by a loop: a 25-year hourly load (219,000 values) is too many arguments for Math.max(...). */
function peak(values: readonly number[]): number {
  let most = Number.NEGATIVE_INFINITY;
  for (const x of values) if (x > most) most = x;
  return most;
}

function describe(load: LoadInputs): string {
  const shape =
    load.flat_mw !== undefined
      ? `flat ${decimal(load.flat_mw, 1)} MW`
      : Array.isArray(load.hourly_mw)
        ? `hourly profile, peak ${decimal(peak(load.hourly_mw), 1)} MW`
        : 'hourly profile (a series of the library)';
  return `Load: ${shape}`;
}

/** A load given as a library series: its peak from the series' statistics, into the card's title once read. */
function libraryPeak(load: LoadInputs, title: Element | null): void {
  const ref = load.hourly_mw;
  if (!title || !ref || Array.isArray(ref)) return;
  getJson<{ metadata?: { statistics?: { max?: number } } }>(`/api/resources/${ref.resource}`).then(
    ({ status, json }) => {
      const max = json.metadata?.statistics?.max;
      if (status === 200 && typeof max === 'number')
        title.textContent = `Load: hourly profile, peak ${decimal(max, 1)} MW`;
    },
    () => {},
  );
}

/** The thresholds of the contract by period. */
function thresholds(load: LoadInputs): Partial<Record<Period, number>> {
  return Object.fromEntries((load.contract?.availability ?? []).map((a) => [a.period, a.min_percent]));
}

interface LoadView extends WeekPickers {
  weekEl: HTMLElement;
  matchEl: HTMLElement;
  yearsEl: HTMLElement;
  monthsEl: HTMLElement;
  peakEl: HTMLElement;
  shortfall: HTMLElement;
  monthsNote: HTMLElement;
}

function loadView(): LoadView {
  return {
    ...weekPickers('load'),
    weekEl: chartBox('load-week-chart', 'A week of the load against what served it', { tall: true }),
    matchEl: chartBox('match-heatmap', 'Hourly match by month and hour of day', { tall: true }),
    yearsEl: chartBox('availability-years', 'Availability of each year against its threshold'),
    monthsEl: chartBox('availability-months', 'Availability of each month of the chosen year against its threshold'),
    peakEl: chartBox('availability-peak', "Availability of each year's peak block against its threshold"),
    shortfall: h('div', { 'data-testid': 'load-shortfall' }),
    monthsNote: h('p', { class: 'muted', 'data-testid': 'availability-months-note' }),
  };
}

/** Runs of whole numbers written short: [1, 2, 3, 5] → "1–3, 5". */
function runs(ns: number[]): string {
  const out: string[] = [];
  for (let i = 0; i < ns.length; ) {
    let j = i;
    while (j + 1 < ns.length && ns[j + 1] === ns[j] + 1) j++;
    out.push(j > i ? `${ns[i]}–${ns[j]}` : String(ns[i]));
    i = j + 1;
  }
  return out.join(', ');
}

/** Which periods fell below a threshold: "below … in 3 of 25: years 3, 7–8" or "at or above … in all 25". */
function belowText(labels: string[] | 'years', values: number[], min: number | undefined, what: string): string {
  if (min === undefined) return `No ${what} threshold in the contract.`;
  const below = values.flatMap((v, i) => (v < min ? [i] : []));
  const named =
    labels === 'years'
      ? `year${below.length > 1 ? 's' : ''} ${runs(below.map((i) => i + 1))}`
      : below.map((i) => labels[i]).join(', ');
  return below.length
    ? `Below the ${what} minimum of ${decimal(min, 1)} % in ${below.length} of ${values.length}: ${named}.`
    : `At or above the ${what} minimum of ${decimal(min, 1)} % in all ${values.length}.`;
}

/** The load's card, and how to fill it once the statements and charts are in. */
export function loadSection(s: ScenarioItem): {
  element: HTMLElement;
  draw(st: Statements, drawn: LoadChartModule, fetchYear: YearFetcher): Promise<void>;
} | null {
  const load = loadOf(s);
  if (!load) return null;
  const view = loadView();
  const element = card(
    describe(load),
    h(
      'p',
      { class: 'muted' },
      `Contract ${decimal(load.contract?.price_per_mwh ?? 60)} per MWh delivered; excess ${
        load.excess === 'curtail' ? 'curtailed' : 'sold at the merchant price'
      }.`,
    ),
    controls(['Year', view.year], ['Week', view.week]),
    h('h3', {}, 'The load in that week: served directly, from the battery, unmet, and the excess'),
    view.weekEl,
    h('h3', {}, 'Hourly match of that year (delivered ÷ load, by month and hour of day)'),
    view.matchEl,
    h('h3', {}, 'Availability of each year'),
    view.yearsEl,
    h('h3', {}, 'Availability of each month of that year'),
    view.monthsEl,
    view.monthsNote,
    h('h3', {}, 'Availability of the peak block, each year'),
    view.peakEl,
    view.shortfall,
  );
  libraryPeak(load, element.querySelector('h2'));
  return {
    element,
    async draw(st, drawn, fetchYear) {
      drawAvailability(st, load, view, drawn);
      await drawPickedWeeks(view, fetchYear, {
        charts: [view.weekEl, view.matchEl],
        hours: servedHours,
        // The week with the most unmet load.
        firstWeek: (served) => heaviestWeek(served.unmet),
        draw: yearDrawer(st, load, view, drawn),
      });
    },
  };
}

/** The years' and peak blocks' availability, and the shortfall's note (none of it depends on the picked year). */
function drawAvailability(st: Statements, load: LoadInputs, view: LoadView, drawn: LoadChartModule): void {
  const min = thresholds(load);
  const years = st.annual.map((a) => a.year);
  const yearly = st.annual.map((a) => a.availability_year_percent ?? 100);
  const peak = st.annual.map((a) => a.availability_peak_percent ?? 100);
  drawn.availabilityChart(view.yearsEl, years, yearly, min.year ?? null, () => {
    view.yearsEl.dataset.painted = 'years';
  });
  drawn.availabilityChart(view.peakEl, years, peak, min.peak ?? null, () => {
    view.peakEl.dataset.painted = 'peak';
  });
  const shortfall = st.annual.reduce((sum, a) => sum + (a.shortfall_mwh ?? 0), 0);
  const penalty = st.income_statement.reduce((sum, row) => {
    const v = (row.operating_expenses as Record<string, number> | undefined)?.load_shortfall_penalty;
    return sum + (typeof v === 'number' ? v : 0);
  }, 0);
  const months = st.annual.flatMap((a) => a.availability_month_percent ?? []);
  const monthsBelow = min.month === undefined ? 0 : months.filter((v) => v < (min.month as number)).length;
  view.shortfall.replaceChildren(
    h('p', {}, `Years: ${belowText('years', yearly, min.year, 'yearly')}`),
    h('p', {}, `Peak block: ${belowText('years', peak, min.peak, 'peak')}`),
    h(
      'p',
      {},
      min.month === undefined
        ? 'Months: no monthly threshold in the contract.'
        : `Months: ${monthsBelow} of ${months.length} months in 25 years below the monthly minimum of ${decimal(min.month, 1)} %.`,
    ),
    h(
      'p',
      { 'data-testid': 'shortfall-total' },
      shortfall > 0
        ? `Shortfall below the thresholds: ${amount(shortfall)} MWh over 25 years, penalised ${amount(penalty)} ${st.currency}.`
        : 'No shortfall below any threshold.',
    ),
  );
}

/** Draws the chosen week and, when the year changed, that year's match heatmap and months' availability. */
function yearDrawer(
  st: Statements,
  load: LoadInputs,
  view: LoadView,
  drawn: LoadChartModule,
): (picked: PickedWeek<ServedHours>) => void {
  const min = thresholds(load);
  return ({ year, data, hours: served, firstHour, cut, yearChanged }) => {
    drawn.loadWeekChart(
      view.weekEl,
      {
        firstHour,
        load: cut(served.load),
        direct: cut(served.direct),
        battery: cut(served.battery),
        unmet: cut(served.unmet),
        excess: cut(served.excess),
      },
      () => {
        view.weekEl.dataset.painted = `${year}-${view.week.value}`;
      },
    );
    if (!yearChanged) return;
    drawn.matchHeatmap(view.matchEl, monthHourMatch(served.load, served.delivered), () => {
      view.matchEl.dataset.painted = String(data.calendar_year);
    });
    const months = st.annual[year - 1]?.availability_month_percent ?? [];
    drawn.availabilityChart(view.monthsEl, MONTHS, months, min.month ?? null, () => {
      view.monthsEl.dataset.painted = String(year);
    });
    view.monthsNote.textContent = `Year ${year}: ${belowText(MONTHS, months, min.month, 'monthly')}`;
  };
}
