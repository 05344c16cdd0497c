// The hourly data as CSV, generated from the stored statements' hourly arrays one year at a time.
import { DAYS_IN_MONTH, HOURS_PER_YEAR } from '../shared/calendar.ts';
import { HOURLY_NAMES, HOURLY_SERIES, type HourlyRecord } from '../shared/hourly.series.ts';

const HOURS = HOURS_PER_YEAR;

const pad = (n: number) => (n < 10 ? `0${n}` : String(n));

function offsetText(hours: number): string {
  const sign = hours < 0 ? '-' : '+';
  const minutes = Math.round(Math.abs(hours) * 60);
  return `${sign}${pad(Math.floor(minutes / 60))}:${pad(minutes % 60)}`;
}

/** "-MM-DDTHH:00:00±hh:mm" for each hour of a 365-day year; Feb 29 is skipped as in the arrays. */
function hourSuffixes(timezoneHours: number): string[] {
  const tz = offsetText(timezoneHours);
  const out: string[] = [];
  for (let m = 0; m < 12; m++) {
    for (let d = 1; d <= DAYS_IN_MONTH[m]; d++) {
      for (let h = 0; h < 24; h++) out.push(`-${pad(m + 1)}-${pad(d)}T${pad(h)}:00:00${tz}`);
    }
  }
  return out;
}

/** The stored hourly series (year × hour) by name; a series absent from the result is absent here. */
export type StoredHourly = HourlyRecord<ArrayLike<number>[]>;

/**
 * Yields the CSV body year by year: one column per stored series (shared/hourly.series.ts: its CSV
 * column, in the registry's order), a series' group present or absent together.
 */
export function* csvChunks(hourly: StoredHourly, startYear: number, timezoneHours: number): Generator<string> {
  const names = HOURLY_NAMES.filter((n) => hourly[n] !== undefined);
  const series = names.map((n) => hourly[n] as ArrayLike<number>[]);
  const suffixes = hourSuffixes(timezoneHours);
  yield `year,hour,timestamp${names.map((n) => `,${HOURLY_SERIES[n].csv}`).join('')}\n`;
  for (let y = 0; y < (series[0]?.length ?? 0); y++) {
    const year = startYear + y;
    // `year` is the operating year (1–25) as in `annual`; the timestamp carries the calendar year.
    const prefix = `${y + 1},`;
    const rows = series.map((s) => s[y]);
    let chunk = '';
    for (let h = 0; h < HOURS; h++) {
      let line = `${prefix}${h},${year}${suffixes[h]}`;
      for (const row of rows) line += `,${row[h]}`;
      chunk += `${line}\n`;
    }
    yield chunk;
  }
}
