// One year of weather written into each solar file format the service reads (SAM CSV, NSRDB PSM3
// at 60 and 30 minutes, with and without a leap day, EPW) reads back as the same hourly arrays.
import { readFileSync } from 'node:fs';
import t, { type Test } from 'tap';
import { HOURS_PER_YEAR } from '../shared/calendar.ts';
import { parseEpw } from '../shared/weather/epw.ts';
import { parseSamCsv, type SamCsvData } from '../shared/weather/samcsv.ts';
import { epw, psm3, samCsv } from './fixtures/weather.writers.ts';

const phoenix = parseSamCsv(readFileSync(new URL('./fixtures/reference/phoenix_az_tmy2.csv', import.meta.url), 'utf8'));
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
