// The hourly data as CSV, generated from the stored statements' hourly arrays one year at a time.
import { DAYS_IN_MONTH, HOURS_PER_YEAR } from '../shared/calendar.ts';

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

const CSV_HEADER = 'year,hour,timestamp,solar_mwh,wind_mwh\n';
/** With a battery, four more columns: AC MWh charged and discharged, MWh stored, net MWh at the grid. */
const CSV_STORAGE_COLUMNS = ',storage_charge_mwh,storage_discharge_mwh,storage_soc_mwh,grid_mwh';

/** With a load, two more (after the battery's): its MWh and the MWh delivered to it. */
export const CSV_LOAD_COLUMNS = ',load_mwh,delivered_mwh';

/** The battery's four hourly series, [year][hour], in the CSV's column order. */
export type StorageSeries = readonly [number[][], number[][], number[][], number[][]];
/** The load's two hourly series, [year][hour]: load, delivered. */
export type LoadSeries = readonly [number[][], number[][]];

/** Yields the CSV body year by year from `solar[year][hour]` and `wind[year][hour]` (MWh), and the battery's and the load's series. */
export function* csvChunks(
  solar: readonly number[][],
  wind: readonly number[][],
  startYear: number,
  timezoneHours: number,
  extra: { storage?: StorageSeries; load?: LoadSeries } = {},
): Generator<string> {
  const { storage, load } = extra;
  const suffixes = hourSuffixes(timezoneHours);
  yield `${CSV_HEADER.slice(0, -1)}${storage ? CSV_STORAGE_COLUMNS : ''}${load ? CSV_LOAD_COLUMNS : ''}\n`;
  for (let y = 0; y < solar.length; y++) {
    const year = startYear + y;
    // `year` is the operating year (1–25) as in `annual`; the timestamp carries the calendar year.
    const prefix = `${y + 1},`;
    const s = solar[y];
    const w = wind[y];
    const rows = storage?.map((series) => series[y]);
    const loadRows = load?.map((series) => series[y]);
    let chunk = '';
    for (let h = 0; h < HOURS; h++) {
      const battery = rows ? `,${rows[0][h]},${rows[1][h]},${rows[2][h]},${rows[3][h]}` : '';
      const served = loadRows ? `,${loadRows[0][h]},${loadRows[1][h]}` : '';
      chunk += `${prefix}${h},${year}${suffixes[h]},${s[h]},${w[h]}${battery}${served}\n`;
    }
    yield chunk;
  }
}
