// The reserve dispatch's independent LP (test/engine.reserves.optimality.test.ts): the horizon with
// ancillary reserves written out here in CPLEX LP format, from the problem's statement in
// docs/markets.md, not from the engine's matrix, and solved by HiGHS through its text reader. Also
// the plan's checks: its SOC path (standing loss and the expected deployment included) within the
// bands at every hour's start and end, and the power headroom of every hour.
import type { HorizonBattery, HorizonHours } from '../../worker/engine/storage/storage.dispatch.ts';
import type { ReserveHours, ReservePlan, ReserveProduct } from '../../worker/engine/storage/storage.reserves.ts';
import { cplexLp } from './horizon.lp.ts';

/** The horizon with reserves as an LP: maximise energy margin + reserve revenue subject to power, energy and bands. */
export function reserveLp(
  b: HorizonBattery,
  h: HorizonHours,
  m: ReserveHours,
  products: readonly ReserveProduct[],
  soc0: number,
): string {
  const obj: string[] = [];
  const rows: string[] = [];
  const bounds: string[] = [];
  // Where idling from soc0 would leave the SOC at the end of hour t (t = −1: soc0): each bound is
  // widened to it when it lies outside, so that idling stays feasible.
  const idle = (t: number) => soc0 * m.keep ** (t + 1);
  const ups = products.map((p, j) => ({ p, j })).filter((e) => e.p.up);
  const downs = products.map((p, j) => ({ p, j })).filter((e) => !e.p.up);
  const sum = (terms: string[]) => (terms.length > 0 ? ` + ${terms.join(' + ')}` : '');
  for (let t = 0; t < h.hours; t++) {
    const lo = Math.min(b.socMinMwh, idle(t));
    const hi = Math.max(b.socMaxMwh, idle(t));
    const loBefore = Math.min(b.socMinMwh, idle(t - 1));
    const hiBefore = Math.max(b.socMaxMwh, idle(t - 1));
    const p = h.price[t];
    const e = m.energyPrice[t];
    const headroom = Math.min(b.powerMw, h.room[t]);
    obj.push(`${p - b.dischargeCost} dis${t}`, `${-(p + b.chargeCost)} buy${t}`, `${-b.chargeCost} cur${t}`);
    for (const { p: pr, j } of ups) obj.push(`${m.capacityPrice[j][t] + pr.deployedShare * e} up${j}_${t}`);
    for (const { p: pr, j } of downs) obj.push(`${m.capacityPrice[j][t] - pr.deployedShare * e} dn${j}_${t}`);
    const upVars = ups.map(({ j }) => `up${j}_${t}`);
    const dnVars = downs.map(({ j }) => `dn${j}_${t}`);
    rows.push(`pin${t}: cur${t} + buy${t}${sum(dnVars)} <= ${b.powerMw}`);
    rows.push(`pout${t}: dis${t}${sum(upVars)} <= ${headroom}`);
    if (dnVars.length > 0) rows.push(`imp${t}: ${dnVars.join(' + ')} <= ${Math.min(b.powerMw, m.importMw)}`);
    // soc_t = keep soc_{t-1} + η (cur + buy) − dis/η − Σ_up σ up/η + Σ_down σ dn η
    const deploy = [
      ...ups.map(({ p: pr, j }) => `${pr.deployedShare / b.etaOut} up${j}_${t}`),
      ...downs.map(({ p: pr, j }) => `${-pr.deployedShare * b.etaIn} dn${j}_${t}`),
    ];
    const prev = t === 0 ? '' : ` - ${m.keep} soc${t - 1}`;
    rows.push(
      `bal${t}: soc${t}${prev} - ${b.etaIn} cur${t} - ${b.etaIn} buy${t} + ${1 / b.etaOut} dis${t}${sum(deploy)} = ${t === 0 ? m.keep * soc0 : 0}`,
    );
    const upNeed = ups.map(({ p: pr, j }) => `${-pr.durationHours / b.etaOut} up${j}_${t}`);
    const dnNeed = downs.map(({ p: pr, j }) => `${pr.durationHours * b.etaIn} dn${j}_${t}`);
    rows.push(`upend${t}: soc${t}${sum(upNeed)} >= ${lo}`);
    rows.push(`dnend${t}: soc${t}${sum(dnNeed)} <= ${hi}`);
    if (t === 0) {
      if (upNeed.length > 0) rows.push(`upbeg${t}: ${upNeed.join(' + ')} >= ${loBefore - soc0}`);
      if (dnNeed.length > 0) rows.push(`dnbeg${t}: ${dnNeed.join(' + ')} <= ${hiBefore - soc0}`);
    } else {
      rows.push(`upbeg${t}: soc${t - 1}${sum(upNeed)} >= ${loBefore}`);
      rows.push(`dnbeg${t}: soc${t - 1}${sum(dnNeed)} <= ${hiBefore}`);
    }
    bounds.push(
      `0 <= cur${t} <= ${Math.min(b.powerMw, h.free[t])}`,
      `0 <= buy${t} <= ${h.priced[t]}`,
      `0 <= dis${t} <= ${headroom}`,
      `${lo} <= soc${t} <= ${hi}`,
    );
  }
  return cplexLp(b, h, { obj, rows, bounds }, (t) => `dis${t}`);
}

/**
 * The first rule the plan breaks, or '': charge and discharge in one hour; charge + down reserves
 * above the power; discharge + up reserves above the power or the room under the limit; the SOC
 * (standing loss and expected deployment included) outside its bounds, or, at an hour's start or
 * end, closer to a bound than the hour's reserves need (up: Σ r d ÷ η above the minimum; down:
 * Σ r d η below the maximum).
 */
export function reserveViolation(
  b: HorizonBattery,
  h: HorizonHours,
  m: ReserveHours,
  products: readonly ReserveProduct[],
  soc0: number,
  plan: ReservePlan,
): string {
  const tol = 1e-6;
  const idle = (t: number) => soc0 * m.keep ** (t + 1);
  let soc = soc0;
  for (let t = 0; t < h.hours; t++) {
    const x = plan.charge[t];
    const y = plan.discharge[t];
    if (x > tol && y > tol) return `hour ${t}: charges and discharges`;
    let up = 0;
    let down = 0;
    let upNeed = 0;
    let downNeed = 0;
    let deployed = 0;
    for (let j = 0; j < products.length; j++) {
      const r = plan.reserve[j][t];
      const pr = products[j];
      if (r < -tol) return `hour ${t}: reserve ${r}`;
      if (pr.up) {
        up += r;
        upNeed += (r * pr.durationHours) / b.etaOut;
        deployed -= (pr.deployedShare * r) / b.etaOut;
      } else {
        down += r;
        downNeed += r * pr.durationHours * b.etaIn;
        deployed += pr.deployedShare * r * b.etaIn;
      }
    }
    if (x + down > b.powerMw + tol) return `hour ${t}: charge ${x} + down reserves ${down} above ${b.powerMw}`;
    const headroom = Math.min(b.powerMw, h.room[t]);
    if (y + up > headroom + tol) return `hour ${t}: discharge ${y} + up reserves ${up} above ${headroom}`;
    if (x > Math.min(b.powerMw, h.free[t] + h.priced[t]) + tol) return `hour ${t}: charge ${x} above what is there`;
    const before = { lo: Math.min(b.socMinMwh, idle(t - 1)), hi: Math.max(b.socMaxMwh, idle(t - 1)) };
    if (soc - upNeed < before.lo - tol || soc + downNeed > before.hi + tol) {
      return `hour ${t}: SOC ${soc} at its start outside the bands`;
    }
    soc = m.keep * soc + b.etaIn * x - y / b.etaOut + deployed;
    const after = { lo: Math.min(b.socMinMwh, idle(t)), hi: Math.max(b.socMaxMwh, idle(t)) };
    if (soc - upNeed < after.lo - tol || soc + downNeed > after.hi + tol) {
      return `hour ${t}: SOC ${soc} at its end outside the bands`;
    }
  }
  return '';
}

/** The plan's SOC after its first `hours` hours from soc0: standing loss and the expected deployment included. */
export function socAfter(
  b: HorizonBattery,
  m: ReserveHours,
  products: readonly ReserveProduct[],
  soc0: number,
  plan: ReservePlan,
  hours: number,
): number {
  let soc = soc0;
  for (let t = 0; t < hours; t++) {
    let deployed = 0;
    for (let j = 0; j < products.length; j++) {
      const pr = products[j];
      const r = plan.reserve[j][t];
      deployed += pr.up ? -(pr.deployedShare * r) / b.etaOut : pr.deployedShare * r * b.etaIn;
    }
    soc = m.keep * soc + b.etaIn * plan.charge[t] - plan.discharge[t] / b.etaOut + deployed;
  }
  return soc;
}
