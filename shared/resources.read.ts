// An upload to the library read as the engine will read it: its format detected (SRW, EPW, SAM
// CSV), the file parsed (a file that cannot be read is refused with its line and column), and what
// it says and its statistics taken for the resource's metadata. A series is checked for its length
// (8,760 values, or 8,760 × n with n ≤ 25) and described by its mean, min, max and annual sum.
import { createHash } from 'node:crypto';
import { HOURS_PER_YEAR, MONTH_OF_HOUR, YEARS } from './calendar.ts';
import type { ResourceKind } from './resources.repository.ts';
import { parseEpw } from './weather/epw.ts';
import { parseSamCsv, type SamCsvData } from './weather/samcsv.ts';
import { parseSrw, type SrwData } from './weather/srw.ts';
import { WeatherFileError } from './weather/weather.error.ts';

/** An upload that cannot be stored: the message names the line and column, or the field. */
export class ResourceReadError extends Error {
  readonly field: string;
  constructor(field: string, message: string) {
    super(message);
    this.field = field;
  }
}

export interface ReadResource {
  kind: ResourceKind;
  format: 'sam_csv' | 'epw' | 'srw' | 'series';
  sha256: string;
  content: Buffer;
  metadata: Record<string, unknown>;
}

const WEEK_HOURS = 168;
const round = (x: number, digits = 3) => Math.round(x * 10 ** digits) / 10 ** digits;

function mean(a: ArrayLike<number>): number {
  let s = 0;
  let n = 0;
  for (let i = 0; i < a.length; i++)
    if (Number.isFinite(a[i])) {
      s += a[i];
      n++;
    }
  return n === 0 ? Number.NaN : s / n;
}

/** kWh/m² over the year, and by month, of an hourly W/m² array. */
function irradiance(a: Float64Array): { annual: number; monthly: number[] } {
  const monthly = new Array<number>(12).fill(0);
  for (let h = 0; h < a.length; h++) monthly[MONTH_OF_HOUR[h % HOURS_PER_YEAR]] += a[h] / 1000;
  return {
    annual: round(
      monthly.reduce((x, y) => x + y, 0),
      1,
    ),
    monthly: monthly.map((m) => round(m, 1)),
  };
}

function weatherMetadata(d: SamCsvData): Record<string, unknown> {
  const ghi = irradiance(d.ghi);
  const dni = irradiance(d.dni);
  return {
    latitude: d.latitude,
    longitude: d.longitude,
    elevation_m: d.elevationM,
    time_zone_hours: d.timezoneHours,
    years: 1,
    time_step_minutes: 60,
    wind_height_m: d.windHeightM,
    statistics: {
      annual_ghi_kwh_m2: ghi.annual,
      annual_dni_kwh_m2: dni.annual,
      monthly_ghi_kwh_m2: ghi.monthly,
      monthly_dni_kwh_m2: dni.monthly,
      mean_temperature_c: round(mean(d.tempC), 2),
      mean_wind_speed_ms: round(mean(d.windMs), 2),
    },
  };
}

/** Lower edges of a wind rose's speed bins, m/s (the last open above), and its 16 sectors of 22.5°. */
export const ROSE_SPEED_BINS_MS = [0, 3, 6, 9, 12, 15];
const ROSE_SECTORS = 16;

/**
 * The wind rose at the file's highest speed column: the share of steps from each of 16 sectors
 * (sector 0 centred on north, clockwise) in each speed bin, with the direction column nearest in height.
 */
function windRose(d: SrwData): { height_m: number; speed_bins_ms: number[]; frequency: number[][] } | null {
  const cols = d.columns.length;
  const at = (field: string) => d.columns.map((c, i) => ({ ...c, i })).filter((c) => c.field === field);
  const speed = at('speed').sort((a, b) => b.heightM - a.heightM)[0];
  const dir = at('direction').sort(
    (a, b) => Math.abs(a.heightM - speed.heightM) - Math.abs(b.heightM - speed.heightM),
  )[0];
  const counts = Array.from({ length: ROSE_SECTORS }, () => ROSE_SPEED_BINS_MS.map(() => 0));
  let n = 0;
  for (let r = 0; r < d.rows; r++) {
    const deg = d.values[r * cols + dir.i];
    const v = d.values[r * cols + speed.i];
    if (!Number.isFinite(deg) || !Number.isFinite(v)) continue;
    const sector = Math.floor(((((deg + 360 / ROSE_SECTORS / 2) % 360) + 360) % 360) / (360 / ROSE_SECTORS));
    let bin = 0;
    while (bin + 1 < ROSE_SPEED_BINS_MS.length && v >= ROSE_SPEED_BINS_MS[bin + 1]) bin++;
    counts[Math.min(ROSE_SECTORS - 1, sector)][bin]++;
    n++;
  }
  if (n === 0) return null;
  return {
    height_m: speed.heightM,
    speed_bins_ms: [...ROSE_SPEED_BINS_MS],
    frequency: counts.map((row) => row.map((c) => round(c / n, 5))),
  };
}

function srwMetadata(d: SrwData): Record<string, unknown> {
  const cols = d.columns.length;
  const speeds: Record<string, number> = {};
  for (let c = 0; c < cols; c++) {
    if (d.columns[c].field !== 'speed') continue;
    const col = new Float64Array(d.rows);
    for (let r = 0; r < d.rows; r++) col[r] = d.values[r * cols + c];
    speeds[String(d.columns[c].heightM)] = round(mean(col), 2);
  }
  const temps = d.columns.findIndex((c) => c.field === 'temperature');
  const tempCol = new Float64Array(temps < 0 ? 0 : d.rows);
  for (let r = 0; r < tempCol.length; r++) tempCol[r] = d.values[r * cols + temps];
  return {
    latitude: d.latitude,
    longitude: d.longitude,
    elevation_m: d.elevationM,
    years: 1,
    time_step_minutes: 60 / d.stepsPerHour,
    heights_m: [...new Set(d.columns.map((c) => c.heightM))].sort((a, b) => a - b),
    statistics: {
      mean_wind_speed_ms_by_height: speeds,
      mean_temperature_c: temps < 0 ? null : round(mean(tempCol), 2),
      wind_rose: windRose(d),
    },
  };
}

const digest = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/** The format a file's first line says: SRW, EPW, or (anything else) SAM CSV. */
function detect(text: string): 'srw' | 'epw' | 'sam_csv' {
  const first = text.slice(0, text.indexOf('\n') >>> 0).trim();
  if (first.startsWith('LOCATION,')) return 'epw';
  const lines = text.split('\n', 4);
  if (lines.length >= 3 && /^\s*(temperature|pressure|speed|direction)\s*,/i.test(lines[2])) return 'srw';
  return 'sam_csv';
}

/** Reads an uploaded file (the request's body); a file that cannot be read throws with its line and column. */
export function readResourceFile(content: Buffer): ReadResource {
  const text = content.toString('utf8');
  if (text.trim() === '') throw new ResourceReadError('body', 'the file is empty');
  const format = detect(text);
  try {
    if (format === 'srw')
      return { kind: 'wind_resource', format, sha256: digest(content), content, metadata: srwMetadata(parseSrw(text)) };
    const data = format === 'epw' ? parseEpw(text) : parseSamCsv(text);
    return { kind: 'weather', format, sha256: digest(content), content, metadata: weatherMetadata(data) };
  } catch (e) {
    if (e instanceof WeatherFileError)
      throw new ResourceReadError(
        'body',
        `not a readable ${format.replace('_', ' ').toUpperCase()} file: ${e.message}`,
      );
    throw e;
  }
}

/** Why a series of `n` values cannot be stored, or null: 8,760 values, or 8,760 × n for n ≤ 25. */
export function seriesLengthError(n: number): string | null {
  return n === 0 || n % HOURS_PER_YEAR !== 0 || n / HOURS_PER_YEAR > YEARS
    ? `a series holds ${HOURS_PER_YEAR} hourly values, or ${HOURS_PER_YEAR} × n for n years up to ${YEARS}; this one has ${n}`
    : null;
}

/** Reads a series (already checked to be finite numbers): its length and statistics. */
export function readResourceSeries(values: readonly number[]): ReadResource {
  const n = values.length;
  const wrong = seriesLengthError(n);
  if (wrong) throw new ResourceReadError('/values', wrong);
  let min = Number.POSITIVE_INFINITY;
  let max = Number.NEGATIVE_INFINITY;
  let sum = 0;
  for (const v of values) {
    min = Math.min(min, v);
    max = Math.max(max, v);
    sum += v;
  }
  const content = Buffer.from(JSON.stringify(values));
  const years = n / HOURS_PER_YEAR;
  // The week around the first year's highest hour: the picture of a load's or a price's week.
  let peak = 0;
  for (let h = 1; h < HOURS_PER_YEAR; h++) if (values[h] > values[peak]) peak = h;
  const first = Math.max(0, Math.min(HOURS_PER_YEAR - WEEK_HOURS, peak - (peak % 24) - 3 * 24));
  return {
    kind: 'hourly_series',
    format: 'series',
    sha256: digest(content),
    content,
    metadata: {
      years,
      time_step_minutes: 60,
      length: n,
      statistics: {
        mean: round(sum / n, 4),
        min,
        max,
        annual_sum: round(sum / years, 3),
        peak_week: { first_hour: first, values: values.slice(first, first + WEEK_HOURS) },
      },
    },
  };
}
