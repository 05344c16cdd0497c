import { resolvedInputs } from '/work/wt/ancillary/test/fixtures/inputs.ts';
import { calculate } from '/work/wt/ancillary/worker/engine/index.ts';
import { merchantPrices } from '/work/wt/ancillary/test/helpers/horizon.lp.ts';
const base = { grid: { export_limit_mw: 110 }, market: { merchant_hourly_prices: merchantPrices, ppa_share: 0.5 }, storage: { power_mw: 100, energy_mwh: 400 } };
let t0 = performance.now();
const a = calculate(resolvedInputs(base as any));
console.log('arbitrage ms', performance.now() - t0);
const anc = { ...base, market: { ...base.market, ancillary: [
  { name: 'reg_up', direction: 'up', price_per_mw_hour: 8, duration_hours: 1, deployed_share: 0.1 },
  { name: 'reg_down', direction: 'down', price_per_mw_hour: 6, duration_hours: 1, deployed_share: 0.1 } ] } };
t0 = performance.now();
const b = calculate(resolvedInputs(anc as any));
console.log('ancillary ms', performance.now() - t0);
console.log(b.income_statement[0].revenue, a.income_statement[0].revenue.total);
console.log(b.kpis.equity_npv ?? '', Object.keys(b).join(','));
