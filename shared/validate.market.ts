// The capacity and curtailment payments' rules that their schema cannot say (shared/validate.ts runs
// them after the schema; docs/markets.md).
import type { ScenarioInputs } from './schemas/inputs.ts';
import type { FieldError } from './schemas/problem.ts';

/** A credit given or HOPP's rule (one of them, whole); a curtailment payment needs the operator's series. */
export function marketPaymentErrors(v: ScenarioInputs, out: FieldError[]): void {
  const credit = v.market.capacity?.credit;
  if (credit) {
    const given = credit.percent !== undefined;
    const rule = credit.top_hours !== undefined || credit.system_load_mw !== undefined;
    if (given === rule) {
      out.push({
        path: '/market/capacity/credit',
        message: given
          ? 'either percent or top_hours with system_load_mw, not both'
          : 'needs percent, or top_hours with system_load_mw',
      });
    } else if (rule && credit.top_hours === undefined) {
      out.push({ path: '/market/capacity/credit/top_hours', message: 'required with system_load_mw' });
    } else if (rule && credit.system_load_mw === undefined) {
      out.push({ path: '/market/capacity/credit/system_load_mw', message: 'required with top_hours' });
    }
  }
  const hourly = v.grid.export_limit_hourly_mw !== undefined;
  if (v.market.curtailment_payment_per_mwh !== undefined && !hourly) {
    out.push({
      path: '/market/curtailment_payment_per_mwh',
      message: "pays for curtailment by the operator's series: needs grid.export_limit_hourly_mw",
    });
  }
}
