// A load's and a generation profile's rules that their schemas cannot say (shared/validate.ts runs
// them after the schema): one form of load, whole years of hours (profiles, the load, a merchant
// price forecast), a dispatch that needs a load.
import { HOURS_PER_YEAR } from './calendar.ts';
import type { ScenarioInputs } from './schemas/inputs.ts';
import type { FieldError } from './schemas/problem.ts';

/** A series of whole years: 8,760 × n values (a library series' length is checked with its reference). */
function wholeYears(
  series: readonly number[] | { resource: string } | undefined,
  path: string,
  out: FieldError[],
): void {
  if (Array.isArray(series) && series.length % HOURS_PER_YEAR !== 0) {
    out.push({
      path,
      message: `must hold 8,760 × n values (whole years of hours); it holds ${series.length}`,
    });
  }
}

export function loadErrors(v: ScenarioInputs, out: FieldError[]): void {
  wholeYears(v.solar.profile?.hourly_mw, '/solar/profile/hourly_mw', out);
  wholeYears(v.wind.profile?.hourly_mw, '/wind/profile/hourly_mw', out);
  wholeYears(v.market.merchant_hourly_prices, '/market/merchant_hourly_prices', out);
  const load = v.load;
  if (v.storage?.dispatch.strategy === 'load' && !load) {
    out.push({ path: '/storage/dispatch/strategy', message: 'strategy "load" needs a load (the `load` input)' });
  }
  if (!load) return;
  if ((load.hourly_mw === undefined) === (load.flat_mw === undefined)) {
    out.push({ path: '/load', message: 'give the load as hourly_mw or as flat_mw, one of them' });
  }
  wholeYears(load.hourly_mw, '/load/hourly_mw', out);
  const periods = load.contract.availability.map((a) => a.period);
  periods.forEach((p, i) => {
    if (periods.indexOf(p) !== i) {
      out.push({
        path: `/load/contract/availability/${i}/period`,
        message: `the period "${p}" has a threshold already`,
      });
    }
  });
  if (v.market.ppa_price_per_mwh === 'solve') {
    out.push({
      path: '/market/ppa_price_per_mwh',
      message: 'cannot be "solve" with a load: the load is sold under load.contract, not the PPA',
    });
  }
}
