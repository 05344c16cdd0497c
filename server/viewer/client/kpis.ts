// The KPIs as the viewer shows them, from the registry (shared/kpis.ts, plain data bundled into
// the page): the scenario page's cards, the sweep table's columns, which way is better, and how a
// value is written.
import { KPIS, type KpiDefinition } from '../../../shared/kpis.ts';
import { amount, decimal, percent } from './dom.ts';

const ENTRIES = Object.entries(KPIS) as Array<[string, KpiDefinition]>;

/** The cards, in the registry's order; one without a value (null, or absent) is left out unless always given. */
export const KPI_CARDS = ENTRIES.filter(([, d]) => d.card).map(([name, d]) => ({ name, ...d }));

/** The sweep table's KPI columns, in the registry's order. */
export const KPI_COLUMNS = ENTRIES.filter(([, d]) => d.column).map(([name]) => name);

/** The KPIs with a direction: what an optimization can aim at. */
export const OBJECTIVE_KPIS = ENTRIES.filter(([, d]) => d.better !== null).map(([name, d]) => ({ name, ...d }));

export const kpiLabel = (name: string): string => (KPIS as Record<string, KpiDefinition>)[name]?.label ?? name;

/** Whether lower values of this KPI are better (an LCOE, a payback year). */
export const lowerIsBetter = (name: string): boolean =>
  (KPIS as Record<string, KpiDefinition>)[name]?.better === 'lower';

/** A KPI's value as its format writes it; — when there is none. */
export function kpiText(name: string, v: number | null | undefined): string {
  const format = (KPIS as Record<string, KpiDefinition>)[name]?.format;
  if (v === null || v === undefined) return '—';
  if (format === 'percent') return percent(v);
  if (format === 'ratio' || format === 'price') return decimal(v);
  if (format === 'points') return `${decimal(v)} %`;
  if (format === 'year') return String(v);
  if (format === 'energy' || format === 'money') return amount(v);
  return Math.abs(v) >= 1000 ? amount(v) : decimal(v, Number.isInteger(v) ? 0 : 2);
}
