// A year of a load's hours split by how each was served, as the engine's author defines it, from
// the statements' hourly arrays (A = solar + wind, x the battery's charge, y its discharge, D
// delivered, L the load): the grid's part of the charge g is what the point of interconnection
// took in, D − (A − x + y) when positive (the battery never buys from the grid in an hour the plant
// has excess to sell, so an hour has g or excess, not both); served directly = min(L, A − (x − g));
// from the battery = D − that; unmet = L − D; excess = A + y − (x − g) − D (after any curtailment,
// so 0 with excess "curtail"). Plain functions with no DOM: tests check them against the engine.
import { DAYS_IN_MONTH, HOURS_PER_DAY } from '../../../shared/calendar.ts';
import { seriesByRole } from '../../../shared/hourly.series.ts';
import type { HourlyYear } from './types.ts';

/** A year's hours split by how the load was served (module header), MWh. */
export interface ServedHours {
  load: number[];
  direct: number[];
  battery: number[];
  unmet: number[];
  excess: number[];
  delivered: number[];
}

export function servedHours(data: HourlyYear): ServedHours | null {
  const served = seriesByRole('load', data);
  if (!served) return null;
  const { load, delivered } = served;
  const { solar, wind } = seriesByRole('generation', data);
  const storage = seriesByRole('storage', data);
  const n = load.length;
  const out: ServedHours = {
    load,
    delivered,
    direct: new Array(n),
    battery: new Array(n),
    unmet: new Array(n),
    excess: new Array(n),
  };
  for (let k = 0; k < n; k++) {
    const A = solar[k] + wind[k];
    const x = storage?.charge[k] ?? 0;
    const y = storage?.discharge[k] ?? 0;
    const net = storage?.grid[k] ?? A - x + y;
    const D = delivered[k];
    const fromGrid = Math.max(0, D - net);
    const fromPlant = Math.max(0, x - fromGrid);
    const direct = Math.min(load[k], Math.max(0, A - fromPlant));
    out.direct[k] = direct;
    out.battery[k] = Math.max(0, D - direct);
    out.unmet[k] = Math.max(0, load[k] - D);
    out.excess[k] = Math.max(0, A + y - fromPlant - D);
  }
  return out;
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
