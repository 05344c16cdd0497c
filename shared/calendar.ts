// The project's calendar, defined once: 25 operating years of 8,760 hours each (Feb 29 is skipped,
// as SAM and PVWatts do), hour 0 = Jan 1 00:00–01:00 local standard time.

export const YEARS = 25;
export const HOURS_PER_YEAR = 8760;
export const HOURS_PER_DAY = 24;

/** Days in each month (January first) of the 365-day year. */
export const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
/** The months' short names, January first. */
export const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** The month (0–11) of each hour of the year. */
export const MONTH_OF_HOUR = (() => {
  const out = new Uint8Array(HOURS_PER_YEAR);
  let h = 0;
  DAYS_IN_MONTH.forEach((days, m) => {
    out.fill(m, h, h + days * HOURS_PER_DAY);
    h += days * HOURS_PER_DAY;
  });
  return out;
})();
