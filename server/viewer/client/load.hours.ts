// A year of a load's hours split by how each was served: the engine's own split (the load group of
// shared/hourly.series.ts, computed once by the engine's load stage, docs/load.md), read from the
// statements' hourly arrays; and the month × hour match. Plain functions with no DOM.
import { DAYS_IN_MONTH, HOURS_PER_DAY } from '../../../shared/calendar.ts';
import { type HourlyRoles, seriesByRole } from '../../../shared/hourly.series.ts';
import type { HourlyYear } from './types.ts';

/** A year's hours split by how the load was served, MWh: the load group's series by role. */
export type ServedHours = HourlyRoles<'load', number[]>;

export function servedHours(data: HourlyYear): ServedHours | null {
  return seriesByRole('load', data);
}

/** Delivered ÷ load of each month × hour of day, %, energy-weighted; null where the cell has no load. */
export function monthHourMatch(load: number[], delivered: number[]): Array<Array<number | null>> {
  const sums = DAYS_IN_MONTH.map(() => Array.from({ length: HOURS_PER_DAY }, () => [0, 0]));
  let k = 0;
  for (let m = 0; m < DAYS_IN_MONTH.length; m++)
    for (let d = 0; d < DAYS_IN_MONTH[m]; d++)
      for (let hour = 0; hour < HOURS_PER_DAY; hour++, k++) {
        sums[m][hour][0] += delivered[k] ?? 0;
        sums[m][hour][1] += load[k] ?? 0;
      }
  return sums.map((row) => row.map(([dl, l]) => (l > 0 ? (100 * dl) / l : null)));
}
