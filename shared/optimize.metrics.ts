// What an optimization can aim at or constrain: every KPI of a scenario, and measures derived from
// its 25-year energy totals.
import { KPI_NAMES } from './schemas/sweep.ts';

/** Derived measures, beside the KPIs. */
export const DERIVED_METRICS = {
  curtailment_percent: 'Curtailed energy over 25 years, % of the energy generated (delivered + curtailed).',
} as const;

export const METRIC_NAMES: readonly string[] = [...KPI_NAMES, ...Object.keys(DERIVED_METRICS)];

export interface EnergyTotals {
  solar_mwh: number;
  wind_mwh: number;
  curtailed_mwh: number;
}

const sumTotals = (annual: ReadonlyArray<EnergyTotals>): EnergyTotals =>
  annual.reduce(
    (t, y) => ({
      solar_mwh: t.solar_mwh + y.solar_mwh,
      wind_mwh: t.wind_mwh + y.wind_mwh,
      curtailed_mwh: t.curtailed_mwh + y.curtailed_mwh,
    }),
    { solar_mwh: 0, wind_mwh: 0, curtailed_mwh: 0 },
  );

/** The metrics of one evaluation: its KPIs and the derived measures (from the totals, or the annual rows). */
export function metricsOf(
  kpis: Readonly<Record<string, number | null>>,
  energy: EnergyTotals | ReadonlyArray<EnergyTotals> | null,
): Record<string, number | null> {
  const totals = energy === null ? null : Array.isArray(energy) ? sumTotals(energy) : (energy as EnergyTotals);
  const generated = totals ? totals.solar_mwh + totals.wind_mwh + totals.curtailed_mwh : 0;
  return { ...kpis, curtailment_percent: generated > 0 && totals ? (100 * totals.curtailed_mwh) / generated : 0 };
}
