// The capital stack's rules the schema cannot say: debt cases need DSCR sizing, one case per
// energy level and, beyond P50, an energy uncertainty to take the P level from; a partnership's
// terms only with a structure that uses them.
import type { ScenarioInputs } from './schemas/inputs.ts';
import type { FieldError } from './schemas/problem.ts';

export function capitalStackErrors(v: ScenarioInputs, out: FieldError[]): void {
  const f = v.finance;
  if (f.tax_equity && (f.structure ?? 'single_owner') === 'single_owner') {
    out.push({
      path: '/finance/tax_equity',
      message: 'used only when finance.structure is leveraged_flip, all_equity_flip or sale_leaseback',
    });
  }
  const cases = f.debt.cases;
  if (!cases) return;
  if (f.structure === 'sale_leaseback') {
    out.push({ path: '/finance/debt/cases', message: 'a sale-leaseback has no project debt to size' });
  }
  if (f.debt.sizing !== 'dscr') {
    out.push({
      path: '/finance/debt/cases',
      message: 'debt cases size the debt by coverage: needs finance.debt.sizing "dscr"',
    });
  }
  const u = v.uncertainty;
  const solarSigma = v.solar.capacity_mw_dc > 0 ? u.solar.interannual_percent + u.solar.model_percent : 0;
  const windSigma = v.wind.capacity_mw > 0 ? u.wind.interannual_percent + u.wind.model_percent : 0;
  cases.forEach((c, i) => {
    if (cases.findIndex((d) => d.energy === c.energy) !== i) {
      out.push({ path: `/finance/debt/cases/${i}/energy`, message: `${c.energy} is given twice` });
    }
    if (c.energy !== 'p50' && solarSigma + windSigma === 0) {
      out.push({
        path: `/finance/debt/cases/${i}/energy`,
        message: `${c.energy} needs an energy uncertainty: the uncertainty of every technology in the plant is 0`,
      });
    }
  });
}
