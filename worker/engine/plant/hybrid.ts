// The hybrid plant at its point of interconnection: yearly degradation of each
// technology, then the export limit. When solar + wind exceed the limit both
// are cut in proportion to their output in that hour, so neither technology
// is favoured and the revenue split follows the energy split.
import { HOURS_PER_YEAR } from '../../../shared/calendar.ts';
import { escalation } from '../escalation.ts';

/** Output remaining after `year` − 1 years of compounded decline (year 1 = 1). */
export function degradationFactor(percentPerYear: number, year: number): number {
  return escalation(-percentPerYear / 100, year);
}

/** The grid operator's limit of each hour of the year, and what it cut below the fixed limit (MWh, added to). */
export interface OperatorLimit {
  limitMw: ArrayLike<number>;
  curtailedMwh: number;
}

/**
 * One pass over a year: delivered = min(limit, degraded output), shared in
 * proportion. Reads the undegraded hourly MWh, writes the delivered MWh into
 * `outSolar`/`outWind` (which may alias the inputs) and returns the MWh
 * curtailed. `limitMw` of Infinity means no limit; an hour is 1 h, so MW = MWh.
 * With an operator's hourly limit the hour's limit is the lesser of the two,
 * and what it cuts below the fixed limit is added to `operator.curtailedMwh`.
 */
export function hybridYear(
  solarMwh: Float64Array,
  windMwh: Float64Array,
  solarFactor: number,
  windFactor: number,
  limitMw: number,
  outSolar: Float64Array,
  outWind: Float64Array,
  operator?: OperatorLimit,
): number {
  let curtailed = 0;
  for (let h = 0; h < HOURS_PER_YEAR; h++) {
    const s = solarMwh[h] * solarFactor;
    const w = windMwh[h] * windFactor;
    const total = s + w;
    const limit = operator ? Math.min(limitMw, operator.limitMw[h]) : limitMw;
    if (total > limit) {
      const cutSolar = s * (limit / total);
      outSolar[h] = cutSolar;
      // The wind share is the remainder, so that delivered never exceeds the
      // limit by a rounding error in the scaled sum.
      outWind[h] = Math.max(0, limit - cutSolar);
      curtailed += total - limit;
      if (operator) operator.curtailedMwh += Math.min(total, limitMw) - limit;
    } else {
      outSolar[h] = s;
      outWind[h] = w;
    }
  }
  return curtailed;
}
