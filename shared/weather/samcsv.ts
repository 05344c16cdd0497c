// Reads SAM's CSV weather format (line 1 metadata names, line 2 their values, line 3
// column names, then one row per time step) and turns supplied weather into the engine's
// WeatherYear. Shared because the web validator rejects a bad upload with the line
// number before it is stored, and the engine reads the same text the same way.
// Time: rows are in local standard time, in order; row h of an hourly file is the engine's hour
// h (hour-beginning), whether it is stamped hh:00 (SAM's TMY, values for the hour) or hh:30
// (NSRDB PSM3, values at the middle of the hour). Sub-hourly files (PSM3 30-minute: rows at :00
// and :30) are averaged to the hour. A leap year's Feb 29 (by its Month and Day columns, else
// day 60) is dropped.
import type { Static } from '@sinclair/typebox';
import { HOURS_PER_DAY, HOURS_PER_YEAR } from '../calendar.ts';
import type { SuppliedWeather } from '../schemas/inputs.ts';
import type { WeatherYear } from './types.ts';
import { WeatherFileError } from './weather.error.ts';

export { WeatherFileError };

const HOURS = HOURS_PER_YEAR;
const LEAP_HOURS = HOURS_PER_YEAR + HOURS_PER_DAY;
/** One-minute data at the finest. */
const MAX_STEPS_PER_HOUR = 60;
/** Feb 29 starts after 31 + 28 days. */
const FEB29_FIRST_ROW = 59 * 24;

export interface SamCsvData {
  latitude: number;
  longitude: number;
  timezoneHours: number;
  elevationM: number | null;
  /** Wind measurement height when the header gives one. */
  windHeightM: number | null;
  ghi: Float64Array;
  dni: Float64Array;
  dhi: Float64Array;
  tempC: Float64Array;
  windMs: Float64Array;
  /** mbar, converted from Pa or kPa when the column is plainly in those units. */
  pressureMbar: Float64Array | null;
  /** Snow depth, cm, and the ground's albedo, when the file has them (unreadable values are NaN). */
  snowDepthCm: Float64Array | null;
  albedo: Float64Array | null;
}

/** The mean of each hour's steps: sub-hourly (e.g. NSRDB PSM3 30-minute) data to hours. */
function hourlyMeans(a: Float64Array, stepsPerHour: number): Float64Array {
  const out = new Float64Array(HOURS);
  for (let h = 0; h < HOURS; h++) {
    let sum = 0;
    for (let s = h * stepsPerHour; s < (h + 1) * stepsPerHour; s++) sum += a[s];
    out[h] = sum / stepsPerHour;
  }
  return out;
}

/** Standard-atmosphere pressure at an elevation, mbar. */
export function pressureFromElevation(elevationM: number): number {
  return 1013.25 * (1 - 2.25577e-5 * elevationM) ** 5.25588;
}

/** "GHI (W/m2)", "\"Wind Speed\"" → "ghi", "wind speed". */
function normName(s: string): string {
  return s
    .trim()
    .replace(/^"(.*)"$/, '$1')
    .replace(/\s*[([].*$/, '')
    .replace(/[_\s]+/g, ' ')
    .trim()
    .toLowerCase();
}

const META: Record<string, readonly string[]> = {
  latitude: ['latitude', 'lat'],
  longitude: ['longitude', 'lon', 'long', 'lng'],
  timezone: ['time zone', 'timezone', 'tz'],
  elevation: ['elevation', 'elev', 'el', 'site elevation', 'altitude'],
  windHeight: ['wind height', 'wind speed height', 'windheight', 'measurement height', 'wind measurement height'],
  hasUnits: ['hasunits', 'units'],
};

// Column names SAM's own reader accepts, plus the NSRDB spellings.
const COLUMNS: Record<string, readonly string[]> = {
  GHI: ['ghi', 'gh', 'global', 'global horizontal', 'global horizontal irradiance'],
  DNI: ['dni', 'dn', 'beam', 'direct normal', 'direct normal irradiance'],
  DHI: ['dhi', 'df', 'diffuse', 'diffuse horizontal', 'diffuse horizontal irradiance'],
  temperature: [
    'tdry',
    'dry bulb',
    'dry bulb temp',
    'dry bulb temperature',
    'temperature',
    'ambient',
    'ambient temp',
    'temp',
  ],
  'wind speed': ['wspd', 'wind speed', 'windspeed'],
  pressure: ['pres', 'pressure', 'air pressure'],
  snow: ['snow', 'snow depth', 'snowdepth'],
  albedo: ['albedo', 'alb', 'surface albedo'],
  month: ['month', 'mo'],
  day: ['day'],
};

function findIndex(names: string[], variants: readonly string[]): number {
  return names.findIndex((n) => variants.includes(n));
}

function parseNumber(raw: string | undefined, line: number, what: string): number {
  // Fast path for the ~60,000 plain numbers of a file; Number('') and Number(' ') are 0, hence the zero check.
  const fast = Number(raw);
  if (Number.isFinite(fast) && (fast !== 0 || (raw ?? '').trim() !== '')) return fast;
  const s = (raw ?? '').trim().replace(/^"(.*)"$/, '$1');
  if (s === '') throw new WeatherFileError(line, `${what} is empty`);
  const v = Number(s);
  if (!Number.isFinite(v)) throw new WeatherFileError(line, `${what} is not a number ('${s.slice(0, 20)}')`);
  return v;
}

function checkRange(v: number, lo: number, hi: number, line: number, what: string): void {
  if (!(v >= lo && v <= hi)) throw new WeatherFileError(line, `${what} ${v} is outside ${lo} to ${hi}`);
}

/** Lines 1–2: the site's metadata by name, and whether line 4 holds units. */
function readHeader(lines: string[]) {
  if (lines.length < 3 || lines[0].trim() === '') {
    throw new WeatherFileError(
      1,
      'expected metadata names on line 1, their values on line 2 and column names on line 3',
    );
  }
  const metaNames = lines[0].split(',').map(normName);
  const metaValues = lines[1].split(',');
  const meta = (key: string): { raw: string; index: number } | null => {
    const index = findIndex(metaNames, META[key]);
    const raw = index >= 0 ? (metaValues[index] ?? '').trim() : '';
    return index >= 0 && raw !== '' ? { raw, index } : null;
  };
  const optional = (key: string, label: string, lo: number, hi: number): number | null => {
    const m = meta(key);
    const v = m ? parseNumber(m.raw, 2, label) : null;
    if (v !== null) checkRange(v, lo, hi, 2, label);
    return v;
  };
  const required = (key: string, label: string, lo: number, hi: number): number => {
    const v = optional(key, label, lo, hi);
    if (v === null)
      throw new WeatherFileError(findIndex(metaNames, META[key]) >= 0 ? 2 : 1, `no ${label} in the header`);
    return v;
  };
  const latitude = required('latitude', 'Latitude', -90, 90);
  const longitude = required('longitude', 'Longitude', -180, 180);
  const timezoneHours = required('timezone', 'Time Zone', -12, 14);
  const elevationM = optional('elevation', 'Elevation', -450, 9000);
  const windHeightM = optional('windHeight', 'wind height', 1, 300);
  const unitsFlag = meta('hasUnits')?.raw.toLowerCase();
  const hasUnits = unitsFlag === 'yes' || unitsFlag === 'true' || (unitsFlag !== undefined && Number(unitsFlag) > 0);
  return { latitude, longitude, timezoneHours, elevationM, windHeightM, hasUnits };
}

/** Line 3: where each column is, and how many columns a row has. */
function readColumns(line: string, headerLine: number) {
  const columnNames = line.split(',').map(normName);
  const col: Record<string, number> = {};
  for (const [label, variants] of Object.entries(COLUMNS)) col[label] = findIndex(columnNames, variants);
  for (const label of ['GHI', 'DNI', 'DHI', 'temperature', 'wind speed']) {
    if (col[label] < 0) throw new WeatherFileError(headerLine, `no ${label} column`);
  }
  let width = columnNames.length;
  while (width > 0 && columnNames[width - 1] === '') width--;
  return { col, width };
}

/** How many data rows there are and at how many steps per hour: one year, hourly or finer, with or without Feb 29. */
function rowLayout(lines: string[], first: number) {
  let last = lines.length;
  while (last > first && lines[last - 1].trim() === '') last--;
  const rows = last - first;
  const stepsPerHour = [HOURS, LEAP_HOURS].map((h) => rows / h).find((k) => Number.isInteger(k) && k >= 1);
  if (rows > LEAP_HOURS * MAX_STEPS_PER_HOUR) {
    throw new WeatherFileError(
      first + LEAP_HOURS * MAX_STEPS_PER_HOUR + 1,
      `more than ${LEAP_HOURS * MAX_STEPS_PER_HOUR} data rows; expected one year of data at ${MAX_STEPS_PER_HOUR} steps per hour at most`,
    );
  }
  if (stepsPerHour === undefined) {
    throw new WeatherFileError(
      Math.max(last, first),
      `found ${rows} data rows; expected ${HOURS} (or ${LEAP_HOURS} for a leap year), or a multiple for sub-hourly data`,
    );
  }
  return { rows, stepsPerHour, leapYear: rows === LEAP_HOURS * stepsPerHour };
}

type Columns = ReturnType<typeof readColumns>;

/** Every data row's values, checked; line numbers count from 1. */
function readRows(lines: string[], first: number, rows: number, { col, width }: Columns) {
  const ghi = new Float64Array(rows);
  const dni = new Float64Array(rows);
  const dhi = new Float64Array(rows);
  const tempC = new Float64Array(rows);
  const windMs = new Float64Array(rows);
  const pres = col.pressure >= 0 ? new Float64Array(rows) : null;
  const snow = col.snow >= 0 ? new Float64Array(rows) : null;
  const albedo = col.albedo >= 0 ? new Float64Array(rows) : null;
  // SSC reads these leniently (the models check each value), and so do we.
  const lenient = (raw: string | undefined): number => {
    const v = Number((raw ?? '').trim());
    return (raw ?? '').trim() === '' ? Number.NaN : v;
  };
  const months = new Uint8Array(rows);
  const days = new Uint8Array(rows);
  const irradiance = (raw: string, line: number, what: string, max: number): number => {
    const v = parseNumber(raw, line, what);
    // Night-time pyranometer offsets of a few W/m² below zero are common and harmless.
    checkRange(v, -10, max, line, what);
    return Math.max(0, v);
  };
  for (let r = 0; r < rows; r++) {
    const line = first + r + 1;
    const cells = lines[first + r].split(',');
    if (cells.length !== width && (cells.length < width || cells.slice(width).some((c) => c.trim() !== ''))) {
      throw new WeatherFileError(line, `expected ${width} columns, found ${cells.length}`);
    }
    ghi[r] = irradiance(cells[col.GHI], line, 'GHI', 1500);
    dni[r] = irradiance(cells[col.DNI], line, 'DNI', 1500);
    dhi[r] = irradiance(cells[col.DHI], line, 'DHI', 1000);
    tempC[r] = parseNumber(cells[col.temperature], line, 'temperature');
    checkRange(tempC[r], -90, 70, line, 'temperature');
    windMs[r] = parseNumber(cells[col['wind speed']], line, 'wind speed');
    checkRange(windMs[r], 0, 100, line, 'wind speed');
    if (pres) pres[r] = parseNumber(cells[col.pressure], line, 'pressure');
    if (snow) snow[r] = lenient(cells[col.snow]);
    if (albedo) albedo[r] = lenient(cells[col.albedo]);
    if (col.month >= 0 && col.day >= 0) {
      months[r] = parseNumber(cells[col.month], line, 'Month');
      days[r] = parseNumber(cells[col.day], line, 'Day');
    }
  }
  return { ghi, dni, dhi, tempC, windMs, pres, snow, albedo, months, days };
}

/** A pressure column in mbar, converted from Pa or kPa when it is plainly in those units. */
function pressureInMbar(pres: Float64Array, first: number): Float64Array {
  const rows = pres.length;
  let mean = 0;
  for (let r = 0; r < rows; r++) mean += pres[r] / rows;
  const toMbar = mean > 2000 ? 0.01 : mean < 150 ? 10 : 1;
  for (let r = 0; r < rows; r++) {
    pres[r] *= toMbar;
    checkRange(pres[r], 300, 1100, first + r + 1, 'pressure (mbar)');
  }
  return pres;
}

/** What turns a column of rows into 8,760 hours: Feb 29 dropped (by Month and Day when present), steps averaged. */
function toHours(
  layout: ReturnType<typeof rowLayout>,
  dates: { months: Uint8Array; days: Uint8Array; dated: boolean },
  first: number,
): (a: Float64Array) => Float64Array {
  const { rows, stepsPerHour, leapYear } = layout;
  let keep = (a: Float64Array): Float64Array => a;
  if (leapYear) {
    const dayRows = 24 * stepsPerHour;
    let start = FEB29_FIRST_ROW * stepsPerHour;
    if (dates.dated) {
      const feb29 = (m: number, r: number) => m === 2 && dates.days[r] === 29;
      start = dates.months.findIndex(feb29);
      const count = dates.months.filter(feb29).length;
      if (start < 0 || count !== dayRows) {
        throw new WeatherFileError(first + 1, `${rows} rows but Feb 29 has ${Math.max(count, 0)} rows, not ${dayRows}`);
      }
    }
    keep = (a) => {
      const out = new Float64Array(HOURS * stepsPerHour);
      out.set(a.subarray(0, start));
      out.set(a.subarray(start + dayRows), start);
      return out;
    };
  }
  if (stepsPerHour === 1) return keep;
  return (a) => hourlyMeans(keep(a), stepsPerHour);
}

/** Parses a SAM CSV weather file; throws WeatherFileError naming the first bad line. */
export function parseSamCsv(text: string): SamCsvData {
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  const header = readHeader(lines);
  const headerLine = 3;
  const columns = readColumns(lines[headerLine - 1], headerLine);
  const first = headerLine + (header.hasUnits ? 1 : 0);
  const layout = rowLayout(lines, first);
  const values = readRows(lines, first, layout.rows, columns);
  const pressureMbar = values.pres ? pressureInMbar(values.pres, first) : null;
  const dated = columns.col.month >= 0 && columns.col.day >= 0;
  const keep = toHours(layout, { months: values.months, days: values.days, dated }, first);
  return {
    latitude: header.latitude,
    longitude: header.longitude,
    timezoneHours: header.timezoneHours,
    elevationM: header.elevationM,
    windHeightM: header.windHeightM,
    ghi: keep(values.ghi),
    dni: keep(values.dni),
    dhi: keep(values.dhi),
    tempC: keep(values.tempC),
    windMs: keep(values.windMs),
    pressureMbar: pressureMbar ? keep(pressureMbar) : null,
    snowDepthCm: values.snow ? keep(values.snow) : null,
    albedo: values.albedo ? keep(values.albedo) : null,
  };
}

/**
 * The minute of an hourly SAM CSV file's time stamps when it has a Minute column (NSRDB PSM3: 30),
 * else null. SSC reads such a file as instantaneous values at those minutes, where a file without
 * the column is hour means (PVWatts v8 follows it: worker/engine/solar/solar.v8.ts). A file that cannot be
 * read, or is not hourly, is null: its errors are the parser's to report.
 */
export function hourlyFileMinute(text: string): number | null {
  try {
    const body = text.replace(/^\uFEFF/, '');
    const head = body.slice(0, 4096).split(/\r?\n/);
    const header = readHeader(head);
    const names = head[2].split(',').map(normName);
    const minute = findIndex(names, ['minute', 'min']);
    if (minute < 0) return null;
    const first = 3 + (header.hasUnits ? 1 : 0);
    const lines = body.split('\n').length;
    const rows = [HOURS, LEAP_HOURS].some((n) => Math.abs(lines - first - n) <= 2);
    const value = Number(head[first]?.split(',')[minute]);
    return rows && Number.isFinite(value) && value >= 0 && value < 60 ? value : null;
  } catch {
    return null;
  }
}

interface FromSamCsvOptions {
  /** The scenario's wind_height_m, which overrides the file's. */
  windHeightM?: number;
  /** Used for the pressure when the file has neither a pressure column nor an elevation. */
  siteElevationM?: number;
}

export function weatherYearFromSamCsv(data: SamCsvData, opts: FromSamCsvOptions = {}): WeatherYear {
  const pressure =
    data.pressureMbar ??
    new Float64Array(HOURS).fill(pressureFromElevation(data.elevationM ?? opts.siteElevationM ?? 0));
  return {
    ghi: data.ghi,
    dni: data.dni,
    dhi: data.dhi,
    tempC: data.tempC,
    windMs: data.windMs,
    pressureMbar: pressure,
    windHeightM: opts.windHeightM ?? data.windHeightM ?? 10,
    ...(data.snowDepthCm ? { snowDepthCm: data.snowDepthCm } : {}),
    ...(data.albedo ? { albedo: data.albedo } : {}),
  };
}

export function weatherYearFromSupplied(w: Static<typeof SuppliedWeather>, elevationM: number): WeatherYear {
  return {
    ghi: Float64Array.from(w.ghi),
    dni: Float64Array.from(w.dni),
    dhi: Float64Array.from(w.dhi),
    tempC: Float64Array.from(w.temp_air_c),
    windMs: Float64Array.from(w.wind_speed_ms),
    pressureMbar: w.pressure_mbar
      ? Float64Array.from(w.pressure_mbar)
      : new Float64Array(HOURS).fill(pressureFromElevation(elevationM)),
    windHeightM: w.wind_height_m,
  };
}
