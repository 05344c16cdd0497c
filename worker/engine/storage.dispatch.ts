// The battery's horizon problem, solved exactly without an LP solver. Over a horizon of T hours the
// battery chooses, each hour, a change u of its stored energy (charge x = u / η_in AC MWh, or
// discharge y = −u · η_out AC MWh), to maximise the horizon's revenue: Σ (p − c_out) y − C_t(x),
// where C_t is the hour's charging cost (convex, piecewise linear: energy the limit would curtail is
// free, energy taken from the plant forgoes its sale at p, energy from the grid is bought at p),
// subject to the power limits and SOC ∈ [min, max] at every hour's end.
//
// The method is dynamic programming on the value function V_t(s) (the best revenue from hour t on,
// with s MWh stored). Each hour's reward, as a function of the SOC decrease v, is concave and
// piecewise linear with at most three pieces; V_T = 0 is concave; and
//   V_t(s) = max_z V_{t+1}(z) + f_t(s − z)   restricted to s ∈ [min, max]
// is the max-plus (sup-) convolution of two concave piecewise-linear functions, which is again
// concave and piecewise linear: its pieces are both functions' pieces merged in order of
// decreasing slope (the Minkowski sum of their hypographs). So V_t is exact, not sampled, and its
// pieces are merged in O(k) per hour. The forward pass reads the optimal next SOC off the merged
// pieces: of the first (s − left end) MWh of the merged function, the pieces owned by V_{t+1} say
// how far z is from V_{t+1}'s left end. The result is the LP's optimum (same feasible set, same
// objective), up to floating-point rounding; tests compare it with HiGHS.
//
// A daily cycle limit (Σ y over a day ≤ cycles × nameplate) couples the hours; it is priced in by a
// Lagrange multiplier per day of the horizon, found by bisection, and the two dispatches either side
// of the multiplier are mixed so the limit holds with equality (LP duality: the mix is optimal).

/** The battery as the horizon problem sees it (MWh, MW, fractions). */
export interface HorizonBattery {
  powerMw: number;
  socMinMwh: number;
  socMaxMwh: number;
  etaIn: number;
  etaOut: number;
  /** Cost per AC MWh charged (HOPP's cost_per_charge); the engine uses 0. */
  chargeCost: number;
  /** Cost per AC MWh discharged: variable O&M. */
  dischargeCost: number;
  /** Most discharged MWh in a day (cycles × nameplate), or Infinity. */
  dailyDischargeMwh: number;
}

/** One horizon's hours: price, free (would-be-curtailed) energy, and what may be charged or discharged at price. */
export interface HorizonHours {
  hours: number;
  price: Float64Array;
  /** MWh the export limit would curtail: charged at no cost. */
  free: Float64Array;
  /** MWh that may be charged at the hour's price (plant output forgone, or grid energy bought). */
  priced: Float64Array;
  /** MWh of room under the export limit for discharge. */
  room: Float64Array;
}

/** A planned dispatch: AC MWh in and out each hour. */
export interface HorizonPlan {
  charge: Float64Array;
  discharge: Float64Array;
}

const MAX_HOURS = 48;
/** Each hour adds at most three pieces (two charging tiers and the discharge). */
const MAX_PIECES = 3 * MAX_HOURS + 4;
const EPS = 1e-9;

/** Work space reused between horizons: a horizon allocates nothing. */
export class HorizonSolver {
  private readonly len = new Float64Array(MAX_HOURS * MAX_PIECES);
  private readonly slope = new Float64Array(MAX_HOURS * MAX_PIECES);
  /** 1 when the piece belongs to V_{t+1}, 0 when it belongs to hour t's reward. */
  private readonly own = new Uint8Array(MAX_HOURS * MAX_PIECES);
  private readonly count = new Int32Array(MAX_HOURS);
  /** Where the SOC domain [min, max] starts inside hour t's merged function. */
  private readonly skip = new Float64Array(MAX_HOURS);
  private readonly penalty = new Float64Array(MAX_HOURS);
  private readonly fLen = new Float64Array(3);
  private readonly fSlope = new Float64Array(3);
  private readonly chargePieces = new Int32Array(1);
  /** V_{t+1} restricted to the SOC domain, while hour t is merged. */
  private readonly vLen = new Float64Array(MAX_PIECES);
  private readonly vSlope = new Float64Array(MAX_PIECES);
  private readonly alt: HorizonPlan = { charge: new Float64Array(MAX_HOURS), discharge: new Float64Array(MAX_HOURS) };
  private readonly mix: HorizonPlan = { charge: new Float64Array(MAX_HOURS), discharge: new Float64Array(MAX_HOURS) };
  private readonly mu = new Float64Array(3);
  private readonly below = new Float64Array(3);

  /** The optimal plan from `soc0` (MWh stored now), written into `out`; returns the horizon's objective. */
  solve(b: HorizonBattery, h: HorizonHours, soc0: number, out: HorizonPlan): number {
    if (h.hours > MAX_HOURS) throw new Error(`a horizon is at most ${MAX_HOURS} hours`);
    this.penalty.fill(0);
    if (soc0 <= b.socMinMwh + EPS && !worthwhile(b, h)) return idle(out, h.hours);
    this.run(b, h, soc0, out);
    if (!Number.isFinite(b.dailyDischargeMwh)) return objective(b, h, out);
    const days = Math.ceil(h.hours / 24);
    let binding = false;
    for (let d = 0; d < days; d++) binding ||= dayDischarge(out, h.hours, d) > b.dailyDischargeMwh * (1 + 1e-9);
    if (!binding) return objective(b, h, out);
    return this.limitDays(b, h, soc0, out, days);
  }

  /**
   * The daily limits by a multiplier per day: coordinate bisection (each day's multiplier the least
   * that keeps its discharge within the limit, the others held), a few passes; then the plan at those
   * multipliers, or a mix of it with the plans just below one or both days' multipliers that meets
   * the limits with equality (LP duality: such a mix is optimal), when the mix is a valid plan.
   */
  private limitDays(b: HorizonBattery, h: HorizonHours, soc0: number, out: HorizonPlan, days: number): number {
    const mu = this.mu;
    const below = this.below;
    mu.fill(0);
    below.fill(0);
    for (let pass = 0; pass < 4; pass++) {
      let changed = false;
      for (let d = 0; d < days; d++) {
        this.setMultipliers(h.hours, mu);
        this.run(b, h, soc0, out);
        const over = dayDischarge(out, h.hours, d) > b.dailyDischargeMwh * (1 + 1e-9);
        if (over || (mu[d] > 0 && pass > 0)) changed = this.bisectDay(b, h, soc0, out, d) || changed;
      }
      if (!changed) break;
    }
    this.setMultipliers(h.hours, mu);
    this.run(b, h, soc0, out);
    let best = this.feasible(b, h, out, days) ? objective(b, h, out) : Number.NEGATIVE_INFINITY;
    // Mixes with the plan just below each binding day's multiplier, and with both.
    for (let d = 0; d < days; d++) {
      if (!(mu[d] > 0)) continue;
      const lower = mu.slice();
      lower[d] = below[d];
      this.setMultipliers(h.hours, lower);
      this.run(b, h, soc0, this.alt);
      best = this.tryMix(b, h, out, days, d, best);
    }
    return best === Number.NEGATIVE_INFINITY ? this.uniformLimit(b, h, soc0, out, days) : objective(b, h, out);
  }

  /** The fallback: one multiplier for every day, the least that keeps every day within its limit. */
  private uniformLimit(b: HorizonBattery, h: HorizonHours, soc0: number, out: HorizonPlan, days: number): number {
    let lo = 0;
    let hi = 1;
    for (let t = 0; t < h.hours; t++) hi = Math.max(hi, 2 * Math.abs(h.price[t]) + 1);
    const all = this.mu;
    for (let i = 0; i < 64 && hi - lo > 1e-9 * (1 + hi); i++) {
      all.fill((lo + hi) / 2);
      this.setMultipliers(h.hours, all);
      this.run(b, h, soc0, out);
      if (this.feasible(b, h, out, days)) hi = all[0];
      else lo = all[0];
    }
    all.fill(hi);
    this.setMultipliers(h.hours, all);
    this.run(b, h, soc0, out);
    return this.feasible(b, h, out, days) ? objective(b, h, out) : idle(out, h.hours);
  }

  /** Day d's multiplier: the least (to 1e-9) that keeps its discharge within the limit. Returns whether it moved. */
  private bisectDay(b: HorizonBattery, h: HorizonHours, soc0: number, out: HorizonPlan, d: number): boolean {
    const mu = this.mu;
    let lo = 0;
    let hi = 1;
    for (let t = 0; t < h.hours; t++) hi = Math.max(hi, 2 * Math.abs(h.price[t]) + 1);
    const before = mu[d];
    for (let i = 0; i < 64 && hi - lo > 1e-9 * (1 + hi); i++) {
      mu[d] = (lo + hi) / 2;
      this.setMultipliers(h.hours, mu);
      this.run(b, h, soc0, out);
      if (dayDischarge(out, h.hours, d) > b.dailyDischargeMwh * (1 + 1e-12)) lo = mu[d];
      else hi = mu[d];
    }
    mu[d] = hi;
    this.below[d] = lo;
    return Math.abs(mu[d] - before) > 1e-9 * (1 + hi);
  }

  /** out ← (1 − θ) out + θ alt, with θ meeting day d's limit, when that is a better valid plan. */
  private tryMix(b: HorizonBattery, h: HorizonHours, out: HorizonPlan, days: number, d: number, best: number): number {
    const over = dayDischarge(this.alt, h.hours, d);
    const under = dayDischarge(out, h.hours, d);
    if (over - under <= EPS) return best;
    const theta = Math.min(1, Math.max(0, (b.dailyDischargeMwh - under) / (over - under)));
    const mix = this.mix;
    for (let t = 0; t < h.hours; t++) {
      mix.charge[t] = theta * this.alt.charge[t] + (1 - theta) * out.charge[t];
      mix.discharge[t] = theta * this.alt.discharge[t] + (1 - theta) * out.discharge[t];
      // A plan never charges and discharges in one hour: such a mix is not taken.
      if (mix.charge[t] > EPS && mix.discharge[t] > EPS) return best;
    }
    if (!this.feasible(b, h, mix, days)) return best;
    const value = objective(b, h, mix);
    if (!(value > best)) return best;
    out.charge.set(mix.charge);
    out.discharge.set(mix.discharge);
    return value;
  }

  private feasible(b: HorizonBattery, h: HorizonHours, plan: HorizonPlan, days: number): boolean {
    for (let d = 0; d < days; d++) if (dayDischarge(plan, h.hours, d) > b.dailyDischargeMwh * (1 + 1e-9)) return false;
    return true;
  }

  private setMultipliers(hours: number, mu: Float64Array): void {
    for (let t = 0; t < hours; t++) this.penalty[t] = mu[Math.floor(t / 24)];
  }

  /** Backward pass (value functions) then forward pass (the plan). */
  private run(b: HorizonBattery, h: HorizonHours, soc0: number, out: HorizonPlan): void {
    this.backward(b, h);
    this.forward(b, h, soc0, out);
  }

  private backward(b: HorizonBattery, h: HorizonHours): void {
    const { len, slope, own, count, skip, fLen, fSlope, vLen, vSlope } = this;
    const span = b.socMaxMwh - b.socMinMwh;
    for (let t = h.hours - 1; t >= 0; t--) {
      const nf = rewardPieces(b, h, t, this.penalty[t], fLen, fSlope, this.chargePieces);
      // V_{t+1} restricted to [min, max]: the terminal value 0, else hour t+1's merged pieces from
      // its skip on, `span` MWh of them.
      let m = 0;
      if (t === h.hours - 1) {
        vLen[0] = span;
        vSlope[0] = 0;
        m = 1;
      } else {
        const from = (t + 1) * MAX_PIECES;
        const end = from + count[t + 1];
        let cut = skip[t + 1];
        let remaining = span;
        for (let i = from; i < end && remaining > EPS; i++) {
          let l = len[i];
          if (cut > 0) {
            const drop = Math.min(cut, l);
            cut -= drop;
            l -= drop;
            if (l <= EPS) continue;
          }
          if (l > remaining) l = remaining;
          remaining -= l;
          vLen[m] = l;
          vSlope[m] = slope[i];
          m++;
        }
      }
      // Merge by decreasing slope; neighbours of one owner and one slope become one piece.
      const base = t * MAX_PIECES;
      let n = 0;
      let i = 0;
      let j = 0;
      while (i < m || j < nf) {
        const fromV = j >= nf || (i < m && vSlope[i] >= fSlope[j]);
        const l = fromV ? vLen[i] : fLen[j];
        const sl = fromV ? vSlope[i] : fSlope[j];
        const o = fromV ? 1 : 0;
        if (fromV) i++;
        else j++;
        const k = base + n - 1;
        if (n > 0 && own[k] === o && slope[k] === sl) {
          len[k] += l;
        } else {
          len[base + n] = l;
          slope[base + n] = sl;
          own[base + n] = o;
          n++;
        }
      }
      count[t] = n;
      // The SOC domain starts after the reward's charging pieces, i.e. lo_G = min − η_in·X.
      let charging = 0;
      for (let c = 0; c < this.chargePieces[0]; c++) charging += fLen[c];
      skip[t] = charging;
    }
  }

  private forward(b: HorizonBattery, h: HorizonHours, soc0: number, out: HorizonPlan): void {
    const { len, own, count, skip } = this;
    let s = soc0;
    for (let t = 0; t < h.hours; t++) {
      const base = t * MAX_PIECES;
      // Position of s inside the merged function, whose left end is min − (charging length).
      let w = Math.max(0, s - b.socMinMwh + skip[t]);
      let z = b.socMinMwh;
      for (let i = 0; i < count[t] && w > 0; i++) {
        const step = Math.min(w, len[base + i]);
        if (own[base + i] === 1) z += step;
        w -= step;
      }
      const u = z - s;
      out.charge[t] = u > EPS ? u / b.etaIn : 0;
      out.discharge[t] = u < -EPS ? -u * b.etaOut : 0;
      s = u > EPS || u < -EPS ? z : s;
    }
  }
}

/** Hour t's reward pieces as a function of the SOC decrease v, left to right (slopes decreasing). */
function rewardPieces(
  b: HorizonBattery,
  h: HorizonHours,
  t: number,
  penalty: number,
  fLen: Float64Array,
  fSlope: Float64Array,
  chargePieces: Int32Array,
): number {
  const p = h.price[t];
  const cap = b.powerMw;
  const free = Math.min(cap, h.free[t]);
  const priced = Math.min(cap - free, h.priced[t]);
  let n = 0;
  // Charging: the dearer tier is drawn last, so it is the leftmost piece (most charge).
  const freeCost = b.chargeCost;
  const pricedCost = p + b.chargeCost;
  const pricedFirst = pricedCost >= freeCost;
  const a1 = pricedFirst ? priced : free;
  const a2 = pricedFirst ? free : priced;
  if (a1 > EPS) {
    fLen[n] = a1 * b.etaIn;
    fSlope[n] = (pricedFirst ? pricedCost : freeCost) / b.etaIn;
    n++;
  }
  if (a2 > EPS) {
    fLen[n] = a2 * b.etaIn;
    fSlope[n] = (pricedFirst ? freeCost : pricedCost) / b.etaIn;
    n++;
  }
  chargePieces[0] = n;
  // Discharging: only into room under the limit, and only where it earns more than it costs.
  const margin = p - b.dischargeCost - penalty;
  const y = Math.min(cap, h.room[t]);
  if (margin > 0 && y > EPS) {
    fLen[n] = y / b.etaOut;
    fSlope[n] = margin * b.etaOut;
    n++;
  }
  return n;
}

/** The idle plan (worth 0). */
function idle(out: HorizonPlan, hours: number): number {
  for (let t = 0; t < hours; t++) {
    out.charge[t] = 0;
    out.discharge[t] = 0;
  }
  return 0;
}

/**
 * Whether an empty battery can earn anything in the horizon: an hour that pays to charge (a
 * negative price), or energy charged in one hour and sold later for more than it cost after the
 * round trip. If not, the idle plan is the optimum (an exact shortcut: flat prices and nothing
 * curtailed leave the battery idle).
 */
function worthwhile(b: HorizonBattery, h: HorizonHours): boolean {
  let cheapest = Number.POSITIVE_INFINITY;
  const roundTrip = b.etaIn * b.etaOut;
  for (let t = 0; t < h.hours; t++) {
    const p = h.price[t];
    const margin = p - b.dischargeCost;
    if (cheapest < Number.POSITIVE_INFINITY && margin > 0 && h.room[t] > EPS && margin * roundTrip > cheapest) {
      return true;
    }
    const priced = h.priced[t] > EPS;
    if (priced && p + b.chargeCost < 0) return true;
    if (h.free[t] > EPS) cheapest = Math.min(cheapest, b.chargeCost);
    if (priced) cheapest = Math.min(cheapest, p + b.chargeCost);
  }
  return false;
}

function dayDischarge(plan: HorizonPlan, hours: number, d: number): number {
  let sum = 0;
  for (let t = d * 24; t < Math.min(hours, d * 24 + 24); t++) sum += plan.discharge[t];
  return sum;
}

/** The horizon's objective of a plan: Σ (p − c_out) y − Σ charging cost (free energy first, then priced). */
export function objective(b: HorizonBattery, h: HorizonHours, plan: HorizonPlan): number {
  let sum = 0;
  for (let t = 0; t < h.hours; t++) {
    const p = h.price[t];
    const x = plan.charge[t];
    // The cheaper tier is drawn first: free energy, unless the price is negative.
    const priced = p < 0 ? Math.min(x, h.priced[t]) : Math.max(0, x - h.free[t]);
    const cost = priced * p;
    sum += (p - b.dischargeCost) * plan.discharge[t] - cost - b.chargeCost * x;
  }
  return sum;
}
