// A capacity payment (docs/markets.md). The credit is given, or HOPP's top-hours rule: over the N
// hours of highest system load, the mean of the plant's available MW ÷ its accredited MW, each hour
// capped at 1. A battery is available up to what it delivers plus what it holds, capped at its
// power. Accredited MW = min(nameplate, export limit). As HOPP, the rule reads year 1's hours and
// the credit holds for every year; the price escalates.
import { HOURS_PER_YEAR } from '../../../shared/calendar.ts';
import type { CapacityInputs } from '../../../shared/schemas/inputs.ts';
import { escalation } from '../escalation.ts';

/** The indices of the `n` hours of highest system load; of equal loads, the earlier hour first. */
export function topHours(systemLoadMw: ArrayLike<number>, n: number): Uint32Array {
  const order = Uint32Array.from({ length: systemLoadMw.length }, (_, h) => h);
  order.sort((a, b) => systemLoadMw[b] - systemLoadMw[a] || a - b);
  return order.slice(0, Math.min(n, order.length));
}

/** The MW a plant is accredited on: its nameplate, at most the export limit (none: no cap). */
export function accreditedMw(nameplateMw: number, exportLimitMw: number | undefined): number {
  return Math.min(nameplateMw, exportLimitMw ?? Number.POSITIVE_INFINITY);
}

/** A battery's available MW each hour: discharge + energy held (MWh over one hour), capped at its power. */
export function batteryAvailableMw(
  discharge: ArrayLike<number>,
  soc: ArrayLike<number>,
  powerMw: number,
  out: Float64Array,
): Float64Array {
  for (let h = 0; h < out.length; h++) out[h] = Math.min(discharge[h] + soc[h], powerMw);
  return out;
}

/** HOPP's credit, %: the mean over `hours` of min(available ÷ accredited, 1); 0 without hours or MW. */
export function capacityCreditPercent(availableMw: ArrayLike<number>, accredited: number, hours: Uint32Array): number {
  if (hours.length === 0 || !(accredited > 0)) return 0;
  let sum = 0;
  for (const h of hours) sum += Math.min(Math.max(availableMw[h], 0) / accredited, 1);
  return Math.min(100, (100 * sum) / hours.length);
}

/** The capacity revenue of operating year `year` (1-based): price × (1 + e)^(y−1) × credit × accredited MW. */
export function capacityRevenue(
  pricePerMwYear: number,
  escalationPercent: number,
  creditPercent: number,
  accredited: number,
  year: number,
): number {
  return pricePerMwYear * escalation(escalationPercent / 100, year) * (creditPercent / 100) * accredited;
}

/** Year 1's hours of the plant at its point of interconnection, as the credit reads them. */
export interface CapacityHours {
  /** Solar and wind MWh at the point of interconnection (after the limit, with what a battery stored). */
  solar: ArrayLike<number>;
  wind: ArrayLike<number>;
  battery: { discharge: ArrayLike<number>; soc: ArrayLike<number>; powerMw: number } | null;
}

/** The credit (%) and the accredited MW of a plant of `nameplateMw` behind `exportLimitMw`. */
export function plantCapacityCredit(
  capacity: CapacityInputs,
  nameplateMw: number,
  exportLimitMw: number | undefined,
  hours: CapacityHours,
): { percent: number; accreditedMw: number } {
  const accredited = accreditedMw(nameplateMw, exportLimitMw);
  const { percent, top_hours: n, system_load_mw: load } = capacity.credit;
  if (percent !== undefined || n === undefined || load === undefined) {
    return { percent: percent ?? 0, accreditedMw: accredited };
  }
  const available = new Float64Array(HOURS_PER_YEAR);
  const b = hours.battery;
  if (b) batteryAvailableMw(b.discharge, b.soc, b.powerMw, available);
  for (let h = 0; h < HOURS_PER_YEAR; h++) available[h] += hours.solar[h] + hours.wind[h];
  return { percent: capacityCreditPercent(available, accredited, topHours(load, n)), accreditedMw: accredited };
}
