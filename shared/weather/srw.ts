// Reads SAM's SRW wind resource format (as NREL's WIND Toolkit gives it) the way SSC's
// lib_windfile.cpp does: line 1 location (at least 8 cells), line 2 a description, line 3 each
// column's field (temperature, pressure, speed, direction), line 4 units, line 5 each column's
// height in metres, then one row per time step. Shared because the web validator rejects a bad
// file with its line and column before the scenario is stored, and the engine reads the same text
// the same way.
import { HOURS_PER_YEAR as HOURS, HOURS_PER_DAY } from '../calendar.ts';
import { WeatherFileError } from './weather.error.ts';

export type SrwField = 'temperature' | 'pressure' | 'speed' | 'direction';

interface SrwColumn {
  field: SrwField;
  heightM: number;
}

export interface SrwData {
  latitude: number | null;
  longitude: number | null;
  elevationM: number | null;
  columns: SrwColumn[];
  /** Data rows × columns, row-major; NaN where the file says "N/A". */
  values: Float64Array;
  rows: number;
  /** 1 for hourly data, 2 for 30-minute, … */
  stepsPerHour: number;
  /** True when the file holds 8,784 hours: Feb 29 is skipped, as SSC does. */
  leapDay: boolean;
}

/** The first line that holds data. */
export const SRW_FIRST_DATA_LINE = 6;
const LEAP_HOURS = HOURS + HOURS_PER_DAY;
/** Hour 1416 = 31 + 28 days: the first hour of Feb 29, which SSC skips. */
const FEB29_FIRST_HOUR = 59 * HOURS_PER_DAY;
/** More steps per hour than one-minute data is not a wind resource file. */
const MAX_STEPS_PER_HOUR = 60;

/** The names SSC accepts for each column type (lower case). */
const FIELD_NAMES: Record<SrwField, readonly string[]> = {
  temperature: ['temperature', 'temp'],
  pressure: ['pressure', 'pres'],
  speed: ['speed', 'velocity'],
  direction: ['direction', 'dir'],
};
const fieldNamed = (name: string): SrwField | undefined =>
  (Object.keys(FIELD_NAMES) as SrwField[]).find((f) => FIELD_NAMES[f].includes(name.trim().toLowerCase()));

/** A line's cells, without the empty cells a spreadsheet leaves at its end. */
function cellsOf(line: string): string[] {
  const cells = line.split(',');
  while (cells.length > 0 && cells[cells.length - 1].trim() === '') cells.pop();
  return cells;
}

function headerNumber(raw: string | undefined): number | null {
  const v = Number((raw ?? '').trim());
  return (raw ?? '').trim() !== '' && Number.isFinite(v) ? v : null;
}

function readColumns(lines: string[]): SrwColumn[] {
  const names = cellsOf(lines[2] ?? '');
  if (names.length < 4) {
    throw new WeatherFileError(
      3,
      `${names.length} column types; at least 4 are needed: temperature, pressure, speed and direction`,
    );
  }
  const heights = cellsOf(lines[4] ?? '');
  if (heights.length !== names.length) {
    throw new WeatherFileError(5, `${heights.length} heights for ${names.length} columns named on line 3`);
  }
  const columns = names.map((raw, i): SrwColumn => {
    const field = fieldNamed(raw);
    if (!field) throw new WeatherFileError(3, `'${raw.trim().slice(0, 20)}' is not a column type`, i + 1);
    const heightM = Number(heights[i].trim());
    if (heights[i].trim() === '' || !Number.isFinite(heightM) || heightM <= 0 || heightM > 1000) {
      throw new WeatherFileError(5, `height '${heights[i].trim().slice(0, 20)}' is not a height in metres`, i + 1);
    }
    return { field, heightM };
  });
  for (const field of ['temperature', 'pressure', 'speed', 'direction'] as const) {
    if (!columns.some((c) => c.field === field)) throw new WeatherFileError(3, `no ${field} column`);
  }
  return columns;
}

/** The rows' time step from their count: whole multiples of a (leap) year of hours. */
function stepsOf(rows: number, lastLine: number): { stepsPerHour: number; leapDay: boolean } {
  for (const [hours, leapDay] of [
    [LEAP_HOURS, true],
    [HOURS, false],
  ] as const) {
    const steps = rows / hours;
    if (Number.isInteger(steps) && steps >= 1 && steps <= MAX_STEPS_PER_HOUR) return { stepsPerHour: steps, leapDay };
  }
  throw new WeatherFileError(
    lastLine,
    `found ${rows} data rows; expected ${HOURS} × steps per hour (or ${LEAP_HOURS} × steps per hour with Feb 29)`,
  );
}

/** Parses an SRW file; throws WeatherFileError naming the first bad line (and column). */
export function parseSrw(text: string): SrwData {
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  const location = cellsOf(lines[0] ?? '');
  if (lines.length < SRW_FIRST_DATA_LINE || location.length < 8) {
    throw new WeatherFileError(
      1,
      `expected a location line of at least 8 cells (id, city, state, country, year, latitude, longitude, elevation), found ${location.length}`,
    );
  }
  const columns = readColumns(lines);
  let last = lines.length;
  while (last > SRW_FIRST_DATA_LINE - 1 && lines[last - 1].trim() === '') last--;
  const rows = Math.max(0, last - (SRW_FIRST_DATA_LINE - 1));
  const { stepsPerHour, leapDay } = stepsOf(rows, Math.max(last, SRW_FIRST_DATA_LINE));
  const width = columns.length;
  const values = new Float64Array(rows * width);
  for (let r = 0; r < rows; r++) {
    const line = SRW_FIRST_DATA_LINE + r;
    const cells = lines[line - 1].split(',');
    for (let c = 0; c < width; c++) {
      const raw = cells[c];
      const fast = Number(raw);
      if (Number.isFinite(fast) && raw.trim() !== '') {
        values[r * width + c] = fast;
        continue;
      }
      const s = (raw ?? '').trim();
      if (s.toLowerCase() === 'n/a') {
        values[r * width + c] = Number.NaN;
        continue;
      }
      const what = columns[c].field;
      throw new WeatherFileError(
        line,
        s === '' ? `${what} is empty` : `${what} is not a number ('${s.slice(0, 20)}')`,
        c + 1,
      );
    }
  }
  return {
    latitude: headerNumber(location[5]),
    longitude: headerNumber(location[6]),
    elevationM: headerNumber(location[7]),
    columns,
    values,
    rows,
    stepsPerHour,
    leapDay,
  };
}

/** The data row of step `step` of the year (Feb 29 skipped). */
export function srwRow(data: SrwData, step: number): number {
  const feb29 = FEB29_FIRST_HOUR * data.stepsPerHour;
  return data.leapDay && step >= feb29 ? step + 24 * data.stepsPerHour : step;
}
