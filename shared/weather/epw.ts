// Reads an EnergyPlus weather (EPW) file: 8 header lines (LOCATION first: city, state, country,
// source, WMO, latitude, longitude, time zone, elevation), then one row per hour. EPW's time
// convention: Hour 1–24 is the hour *ending* at that time, local standard time, and its
// irradiances are the energy over that hour (Wh/m², the hour's mean W/m²); so row 1 (Jan 1,
// hour 1) is the engine's hour 0 (00:00–01:00, hour-beginning), and rows map one to one. Wind
// speed is at 10 m. Missing values (9999 irradiance, 99.9 °C, 999999 Pa, 999 m/s) are errors.
import { HOURS_PER_YEAR as HOURS, HOURS_PER_DAY } from '../calendar.ts';
import { type SamCsvData, weatherYearFromSamCsv } from './samcsv.ts';
import type { WeatherYear } from './types.ts';
import { WeatherFileError } from './weather.error.ts';

const HEADER_LINES = 8;
const LEAP_HOURS = HOURS + HOURS_PER_DAY;
/** EPW's standard wind measurement height, m. */
const EPW_WIND_HEIGHT_M = 10;

// Data row fields (0-based), with their missing-value codes.
const FIELDS = {
  month: { index: 1, missing: null },
  day: { index: 2, missing: null },
  hour: { index: 3, missing: null },
  tempC: { index: 6, missing: 99.9 },
  pressurePa: { index: 9, missing: 999999 },
  ghi: { index: 13, missing: 9999 },
  dni: { index: 14, missing: 9999 },
  dhi: { index: 15, missing: 9999 },
  windMs: { index: 21, missing: 999 },
} as const;
/** Snow depth, cm, read as given (999 = missing) for PVWatts v8 to judge each value; its albedo field is not read, as SSC does not. */
const SNOW_DEPTH_INDEX = 30;

const NAMES: Record<keyof typeof FIELDS, string> = {
  month: 'Month',
  day: 'Day',
  hour: 'Hour',
  tempC: 'dry bulb temperature',
  pressurePa: 'atmospheric pressure',
  ghi: 'global horizontal radiation',
  dni: 'direct normal radiation',
  dhi: 'diffuse horizontal radiation',
  windMs: 'wind speed',
};

function locationOf(line: string): { latitude: number; longitude: number; timezoneHours: number; elevationM: number } {
  const cells = line.split(',');
  if (cells[0]?.trim().toUpperCase() !== 'LOCATION' || cells.length < 10) {
    throw new WeatherFileError(
      1,
      'expected the LOCATION line (LOCATION, city, state, country, source, WMO, latitude, longitude, time zone, elevation)',
    );
  }
  const num = (i: number, what: string, lo: number, hi: number): number => {
    const v = Number(cells[i].trim());
    if (cells[i].trim() === '' || !(v >= lo && v <= hi)) {
      throw new WeatherFileError(
        1,
        `${what} '${cells[i].trim().slice(0, 20)}' is not a number from ${lo} to ${hi}`,
        i + 1,
      );
    }
    return v;
  };
  return {
    latitude: num(6, 'latitude', -90, 90),
    longitude: num(7, 'longitude', -180, 180),
    timezoneHours: num(8, 'time zone', -12, 14),
    elevationM: num(9, 'elevation', -450, 9000),
  };
}

/** Parses an EPW file into the same shape as a SAM CSV; throws WeatherFileError naming the line and column. */
export function parseEpw(text: string): SamCsvData {
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  const location = locationOf(lines[0] ?? '');
  let last = lines.length;
  while (last > HEADER_LINES && lines[last - 1].trim() === '') last--;
  const rows = Math.max(0, last - HEADER_LINES);
  if (rows !== HOURS && rows !== LEAP_HOURS) {
    throw new WeatherFileError(
      Math.max(last, HEADER_LINES + 1),
      `found ${rows} data rows; expected ${HOURS} (or ${LEAP_HOURS} for a leap year)`,
    );
  }
  const out = {
    ghi: new Float64Array(HOURS),
    dni: new Float64Array(HOURS),
    dhi: new Float64Array(HOURS),
    tempC: new Float64Array(HOURS),
    windMs: new Float64Array(HOURS),
    pressureMbar: new Float64Array(HOURS),
    snowDepthCm: new Float64Array(HOURS),
  };
  const lenient = (raw: string | undefined): number =>
    (raw ?? '').trim() === '' ? Number.NaN : Number((raw ?? '').trim());
  let h = 0;
  for (let r = 0; r < rows; r++) {
    const line = HEADER_LINES + r + 1;
    const cells = lines[line - 1].split(',');
    const value = (key: keyof typeof FIELDS, lo: number, hi: number): number => {
      const { index, missing } = FIELDS[key];
      const raw = (cells[index] ?? '').trim();
      const v = Number(raw);
      if (raw === '' || !Number.isFinite(v)) {
        throw new WeatherFileError(
          line,
          `${NAMES[key]} is ${raw === '' ? 'empty' : `not a number ('${raw.slice(0, 20)}')`}`,
          index + 1,
        );
      }
      if (missing !== null && v >= missing)
        throw new WeatherFileError(line, `${NAMES[key]} is missing (${raw})`, index + 1);
      if (!(v >= lo && v <= hi))
        throw new WeatherFileError(line, `${NAMES[key]} ${v} is outside ${lo} to ${hi}`, index + 1);
      return v;
    };
    const month = value('month', 1, 12);
    const day = value('day', 1, 31);
    const hour = value('hour', 1, 24);
    if (rows === LEAP_HOURS && month === 2 && day === 29) continue;
    if (hour !== (h % 24) + 1) {
      throw new WeatherFileError(
        line,
        `Hour ${hour} out of sequence: expected ${(h % 24) + 1} (hourly data, hour ending 1–24)`,
        FIELDS.hour.index + 1,
      );
    }
    if (h >= HOURS) throw new WeatherFileError(line, `more than ${HOURS} hours besides Feb 29`);
    // Night-time pyranometer offsets of a few W/m² below zero are harmless.
    out.ghi[h] = Math.max(0, value('ghi', -10, 1500));
    out.dni[h] = Math.max(0, value('dni', -10, 1500));
    out.dhi[h] = Math.max(0, value('dhi', -10, 1000));
    out.tempC[h] = value('tempC', -90, 70);
    out.pressureMbar[h] = value('pressurePa', 30_000, 110_000) / 100;
    out.windMs[h] = value('windMs', 0, 100);
    out.snowDepthCm[h] = lenient(cells[SNOW_DEPTH_INDEX]);
    h++;
  }
  if (h !== HOURS)
    throw new WeatherFileError(last, `${LEAP_HOURS} rows but Feb 29 has ${LEAP_HOURS - h} hours, not 24`);
  return { ...location, windHeightM: EPW_WIND_HEIGHT_M, albedo: null, ...out };
}

export function weatherYearFromEpw(data: SamCsvData): WeatherYear {
  return weatherYearFromSamCsv(data, { windHeightM: EPW_WIND_HEIGHT_M });
}
