// A week of a chosen year, as the battery's and the load's sections show it: their year and week
// pickers, the week a chart starts at, and drawing what is picked (the week on every pick, the
// year's charts when the year changed), each year's hourly data fetched through a YearFetcher.
import { h, yearSelect } from './dom.ts';
import type { HourlyYear } from './types.ts';

export const WEEK_HOURS = 24 * 7;
export const WEEKS = 52;

/** One operating year's hourly data, fetched once; null when the scenario kept none. */
export type YearFetcher = (year: number) => Promise<HourlyYear | null>;

/** The week of the year whose hours add up to most (where a week chart starts). */
export function heaviestWeek(hourly: number[]): number {
  let best = 0;
  let bestSum = -1;
  for (let w = 0; w < WEEKS; w++) {
    let sum = 0;
    for (let i = w * WEEK_HOURS; i < (w + 1) * WEEK_HOURS; i++) sum += hourly[i] ?? 0;
    if (sum > bestSum) [best, bestSum] = [w, sum];
  }
  return best;
}

/** A section's year and week pickers, with ids `<prefix>-year` and `<prefix>-week`. */
export interface WeekPickers {
  year: HTMLSelectElement;
  week: HTMLSelectElement;
}

export function weekPickers(prefix: string): WeekPickers {
  return {
    year: yearSelect(`${prefix}-year`),
    week: h(
      'select',
      { id: `${prefix}-week` },
      ...Array.from({ length: WEEKS }, (_, w) => h('option', { value: String(w) }, `Week ${w + 1}`)),
    ),
  };
}

/** What is picked, as a section draws it: the year, its data, the section's hours of it, the week. */
export interface PickedWeek<T> {
  year: number;
  data: HourlyYear;
  hours: T;
  /** The week's first hour of the year. */
  firstHour: number;
  /** The week's part of an hourly array of the year. */
  cut(hourly: number[]): number[];
  /** The year was picked (or this is the first drawing), not only the week. */
  yearChanged: boolean;
}

/** How a section draws the picked week. */
export interface WeekSection<T> {
  /** The charts a year without hourly data leaves: the first says so, the others are emptied. */
  charts: [HTMLElement, ...HTMLElement[]];
  /** The hours the section draws from a year's data; null when the scenario kept none. */
  hours(data: HourlyYear): T | null;
  /** The week shown first, before any is picked. */
  firstWeek(hours: T): number;
  draw(picked: PickedWeek<T>): void;
}

/** Draws the picked week now, and again on each pick. */
export async function drawPickedWeeks<T>(
  pickers: WeekPickers,
  fetchYear: YearFetcher,
  section: WeekSection<T>,
): Promise<void> {
  let chosen = false;
  const redraw = async (yearChanged: boolean) => {
    const year = Number(pickers.year.value);
    const data = await fetchYear(year);
    const hours = data ? section.hours(data) : null;
    if (!data || !hours) {
      const [first, ...others] = section.charts;
      // Hours kept without this section's series: a result stored before they were published.
      const why = data
        ? 'This result was calculated before these hourly series were stored; create the scenario again to see them.'
        : 'This scenario kept no hourly data (a sweep variant).';
      first.replaceChildren(h('p', { class: 'muted' }, why));
      for (const chart of others) chart.replaceChildren();
      return;
    }
    if (!chosen) {
      pickers.week.value = String(section.firstWeek(hours));
      chosen = true;
    }
    const firstHour = Number(pickers.week.value) * WEEK_HOURS;
    const cut = (hourly: number[]) => hourly.slice(firstHour, firstHour + WEEK_HOURS);
    section.draw({ year, data, hours, firstHour, cut, yearChanged });
  };
  pickers.year.addEventListener('change', () => void redraw(true));
  pickers.week.addEventListener('change', () => void redraw(false));
  await redraw(true);
}
