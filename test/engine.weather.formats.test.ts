// One year of weather written into each solar file format the service reads (SAM CSV, NSRDB PSM3
// at 60 and 30 minutes, with and without a leap day, EPW) reads back as the same hourly arrays.
import { readFileSync } from 'node:fs';
import t, { type Test } from 'tap';
import { HOURS_PER_YEAR } from '../shared/calendar.ts';
import { parseEpw } from '../shared/weather/epw.ts';
import { parseSamCsv, type SamCsvData } from '../shared/weather/samcsv.ts';

const phoenix = parseSamCsv(readFileSync(new URL('./fixtures/reference/phoenix_az_tmy2.csv', import.meta.url), 'utf8'));
const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** Month, day and hour (0–23) of every hour of a year, with Feb 29 when `leap`. */
function calendar(leap: boolean): Array<{ month: number; day: number; hour: number; leapDay: boolean }> {
  const out: Array<{ month: number; day: number; hour: number; leapDay: boolean }> = [];
  DAYS_IN_MONTH.forEach((days, m) => {
    const n = leap && m === 1 ? days + 1 : days;
    for (let d = 1; d <= n; d++) {
      for (let h = 0; h < 24; h++) out.push({ month: m + 1, day: d, hour: h, leapDay: m === 1 && d === 29 });
    }
  });
  return out;
}

const HEADER = 'Source,Location ID,City,State,Country,Latitude,Longitude,Time Zone,Elevation';
const META = 'TMY2,23183,Phoenix,AZ,USA,33.433333,-112.016667,-7,339';

/** The values of hour i, or made-up ones on Feb 29 (which every reader must drop). */
function hourValues(w: SamCsvData, i: number | null) {
  if (i === null) return { ghi: 777, dni: 666, dhi: 555, temp: 44, pres: 999, wind: 33 };
  return {
    ghi: w.ghi[i],
    dni: w.dni[i],
    dhi: w.dhi[i],
    temp: w.tempC[i],
    pres: w.pressureMbar?.[i] ?? 1013,
    wind: w.windMs[i],
  };
}

/** Each calendar hour with the index of its weather hour (null on Feb 29). */
function hours(leap: boolean) {
  let i = 0;
  return calendar(leap).map((c) => ({ ...c, index: c.leapDay ? null : i++ }));
}

function samCsv(w: SamCsvData): string {
  const rows = hours(false).map(({ month, day, hour, index }) => {
    const v = hourValues(w, index);
    return `1988,${month},${day},${hour},${v.ghi},${v.dni},${v.dhi},${v.temp},${v.pres},${v.wind}`;
  });
  return [HEADER, META, 'Year,Month,Day,Hour,GHI,DNI,DHI,Tdry,Pres,Wspd', ...rows].join('\n');
}

/**
 * NSRDB PSM3: a Minute column; hourly rows stamped at :30, 30-minute rows at :00 and :30. The
 * two half-hours get values 10 % below and above the hour's, so only their mean gives it back.
 */
function psm3(w: SamCsvData, stepsPerHour: 1 | 2, leap: boolean): string {
  const rows: string[] = [];
  for (const { month, day, hour, index } of hours(leap)) {
    const v = hourValues(w, index);
    const minutes = stepsPerHour === 1 ? [30] : [0, 30];
    minutes.forEach((minute, k) => {
      const f = stepsPerHour === 1 ? 1 : k === 0 ? 0.9 : 1.1;
      rows.push(
        `2020,${month},${day},${hour},${minute},${v.dhi * f},${v.dni * f},${v.ghi * f},-5,${v.temp * f},${v.pres * f},${v.wind * f},180`,
      );
    });
  }
  return [
    `${HEADER},Local Time Zone,Dew Point Units,DHI Units,DNI Units,GHI Units`,
    'NSRDB,123456,-,-,-,33.43,-112.02,-7,339,-7,c,w/m2,w/m2,w/m2',
    'Year,Month,Day,Hour,Minute,DHI,DNI,GHI,Dew Point,Temperature,Pressure,Wind Speed,Wind Direction',
    ...rows,
  ].join('\n');
}

/** EPW: Hour 1–24 ends the hour; 35 fields; pressure in Pa. */
function epw(w: SamCsvData, leap: boolean): string {
  const header = [
    'LOCATION,Phoenix,AZ,USA,TMY2,23183,33.43,-112.02,-7.0,339.0',
    'DESIGN CONDITIONS,0',
    'TYPICAL/EXTREME PERIODS,0',
    'GROUND TEMPERATURES,0',
    `HOLIDAYS/DAYLIGHT SAVINGS,${leap ? 'Yes' : 'No'},0,0,0`,
    'COMMENTS 1,written by the format test',
    'COMMENTS 2,',
    'DATA PERIODS,1,1,Data,Sunday, 1/ 1,12/31',
  ];
  const rows = hours(leap).map(({ month, day, hour, index }) => {
    const v = hourValues(w, index);
    const f = Array.from({ length: 35 }, () => '0');
    f[0] = leap ? '2020' : '1988';
    f[1] = String(month);
    f[2] = String(day);
    f[3] = String(hour + 1);
    f[4] = '60';
    f[5] = 'A7A7A7A7*0?9?9?9?9?9?9?9A7A7A7A7A7A7*0E8*0*0';
    f[6] = String(v.temp);
    f[9] = String(Math.round(v.pres * 100));
    f[13] = String(v.ghi);
    f[14] = String(v.dni);
    f[15] = String(v.dhi);
    f[21] = String(v.wind);
    return f.join(',');
  });
  return [...header, ...rows].join('\n');
}

function same(t: Test, got: SamCsvData, what: string): void {
  for (const key of ['ghi', 'dni', 'dhi', 'tempC', 'windMs', 'pressureMbar'] as const) {
    const a = got[key] as Float64Array;
    const b = phoenix[key] as Float64Array;
    t.equal(a.length, HOURS_PER_YEAR, `${what}: ${key} has a year of hours`);
    let worst = 0;
    for (let h = 0; h < HOURS_PER_YEAR; h++) worst = Math.max(worst, Math.abs(a[h] - b[h]));
    t.ok(worst < 1e-9, `${what}: ${key} equal (largest difference ${worst})`);
  }
}

t.test('the same year in every format gives the same hourly arrays', async (t) => {
  same(t, parseSamCsv(samCsv(phoenix)), 'SAM CSV');
  same(t, parseSamCsv(psm3(phoenix, 1, false)), 'PSM3 60 min');
  same(t, parseSamCsv(psm3(phoenix, 1, true)), 'PSM3 60 min, leap year');
  same(t, parseSamCsv(psm3(phoenix, 2, false)), 'PSM3 30 min');
  same(t, parseSamCsv(psm3(phoenix, 2, true)), 'PSM3 30 min, leap year');
  same(t, parseEpw(epw(phoenix, false)), 'EPW');
  same(t, parseEpw(epw(phoenix, true)), 'EPW, leap year');
});

t.test('the site from each header', async (t) => {
  const e = parseEpw(epw(phoenix, false));
  t.same([e.latitude, e.longitude, e.timezoneHours, e.elevationM, e.windHeightM], [33.43, -112.02, -7, 339, 10]);
  const p = parseSamCsv(psm3(phoenix, 2, false));
  t.same([p.latitude, p.longitude, p.timezoneHours], [33.43, -112.02, -7]);
});
