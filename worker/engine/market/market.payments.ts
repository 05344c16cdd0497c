// The payments that are not for energy delivered: capacity (market.capacity.ts makes the credit) and
// curtailment by the operator's hourly export limit (docs/markets.md). Each is a revenue line of its
// own, present only when its input is; both escalate from year 1.
import type { ResolvedInputs } from '../../../shared/schemas/inputs.ts';
import type { RevenueLines } from '../../../shared/schemas/result.ts';
import { escalation } from '../escalation.ts';
import { capacityRevenue } from './market.capacity.ts';

export interface MarketPayments {
  /** Year-1 price per accredited MW-year and its yearly escalation, %; null without market.capacity. */
  capacity: { pricePerMwYear: number; escalationPercent: number } | null;
  /** Year-1 payment per MWh curtailed by the operator and its escalation; null without one. */
  curtailment: { perMwh: number; escalation: number } | null;
}

export function preparePayments(m: ResolvedInputs['market']): MarketPayments | null {
  const c = m.capacity;
  const perMwh = m.curtailment_payment_per_mwh;
  if (!c && perMwh === undefined) return null;
  return {
    capacity: c ? { pricePerMwYear: c.price_per_mw_year, escalationPercent: c.escalation_percent } : null,
    curtailment:
      perMwh === undefined ? null : { perMwh, escalation: (m.curtailment_payment_escalation_percent ?? 0) / 100 },
  };
}

/** What a year's payments are made on: the capacity credit (%), the accredited MW, the MWh the operator curtailed. */
export interface PaymentBasis {
  capacityCreditPercent: number;
  accreditedMw: number;
  operatorCurtailedMwh: number;
}

/** Adds the year's payment lines (operating year `year`, 1-based) to `out` and to its total. */
export function addPayments(p: MarketPayments | null, year: number, basis: PaymentBasis, out: RevenueLines): void {
  if (!p) return;
  if (p.capacity) {
    const { pricePerMwYear, escalationPercent } = p.capacity;
    out.capacity = capacityRevenue(
      pricePerMwYear,
      escalationPercent,
      basis.capacityCreditPercent,
      basis.accreditedMw,
      year,
    );
    out.total += out.capacity;
  }
  if (p.curtailment) {
    out.curtailment_payment =
      p.curtailment.perMwh * escalation(p.curtailment.escalation, year) * basis.operatorCurtailedMwh;
    out.total += out.curtailment_payment;
  }
}
