// The project's calendar, defined once: 25 operating years of 8,760 hours each (Feb 29 is skipped,
// as SAM and PVWatts do), hour 0 = Jan 1 00:00–01:00 local standard time.

export const YEARS = 25;
export const HOURS_PER_YEAR = 8760;
export const HOURS_PER_DAY = 24;
