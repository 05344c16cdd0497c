// The battery's horizon problem with ancillary reserves (docs/markets.md, "Ancillary services"):
// beside charge and discharge, each hour the battery reserves MW for each product, co-optimised with
// energy arbitrage as one linear program per horizon, solved by HiGHS (npm `highs`, its structured
// API: the matrix passed as arrays, no text parsed). For hour t, with η = √RTE and k the standing
// loss's hourly keep:
//   free charge f ≤ min(P, what the limit would curtail), priced charge q ≤ the plant's sale (+ the
//   grid when allowed), discharge y ≤ min(P, room under the limit), reserves r_j ≥ 0;
//   power:   f + q + Σ_down r ≤ P;  y + Σ_up r ≤ min(P, room);  Σ_down r ≤ min(P, export limit)
//   energy:  s_t = k·s_{t−1} + η(f + q) − y/η − Σ_up σ_j r_j/η + Σ_down σ_j r_j η   (σ: deployed share)
//   bands:   at the hour's start and end, s ≥ min + Σ_up r_j d_j/η and s ≤ max − Σ_down r_j d_j η
//   a daily cycle limit: Σ_day y ≤ cycles × nameplate.
// Maximise Σ (p − c_out) y − (p + c_in) q − c_in f + Σ_j r_j (a_j ± σ_j e), a_j the capacity price,
// e the hour's merchant price (deployed up energy sold at it, deployed down energy bought at it).
import highsModule from 'highs';
import type { HorizonBattery, HorizonHours, HorizonPlan } from './storage.dispatch.ts';

// A CommonJS module: its default import is the loader function itself.
const highsLoader = highsModule as unknown as typeof import('highs')['default'];
const highs = await highsLoader();

/** One product as the horizon problem sees it. */
export interface ReserveProduct {
  up: boolean;
  durationHours: number;
  deployedShare: number;
}

/** A horizon's market for reserves: the merchant price and each product's capacity price, hour by hour. */
export interface ReserveHours {
  energyPrice: Float64Array;
  capacityPrice: Float64Array[];
  /** Most MW the interconnection takes in for a down deployment. */
  importMw: number;
  /** Standing loss: the share of the stored energy an hour keeps. */
  keep: number;
}

/** A plan with reserves: MW reserved for each product each hour. */
export interface ReservePlan extends HorizonPlan {
  reserve: Float64Array[];
}

/** Columns per hour before the reserves: free charge, priced charge, discharge, SOC. */
const F = 0;
const Q = 1;
const Y = 2;
const S = 3;
const ROWS_PER_HOUR = 8;

/** The horizon's SOC range: the bounds, widened to the SOC at the start when it lies outside them. */
export function socRange(b: HorizonBattery, soc0: number): { lo: number; hi: number } {
  return { lo: Math.min(b.socMinMwh, soc0), hi: Math.max(b.socMaxMwh, soc0) };
}

/** The last horizon's model (an engine thread runs one calculation at a time). */
let cached: { key: string; model: ReturnType<typeof highs.createModel> } | null = null;

/** Builds and solves the horizon's LP; the plan is written into `out`, its objective returned. */
export function solveReserves(
  b: HorizonBattery,
  h: HorizonHours,
  m: ReserveHours,
  products: readonly ReserveProduct[],
  soc0: number,
  out: ReservePlan,
): number {
  const T = h.hours;
  const K = products.length;
  const n = 4 + K;
  const cols = T * n;
  const days = Number.isFinite(b.dailyDischargeMwh) ? Math.ceil(T / 24) : 0;
  const rows = T * ROWS_PER_HOUR + days;
  const inf = highs.infinity;
  const cost = new Float64Array(cols);
  const colLower = new Float64Array(cols);
  const colUpper = new Float64Array(cols);
  const rowLower = new Float64Array(rows).fill(-inf);
  const rowUpper = new Float64Array(rows).fill(inf);
  const starts = new Int32Array(rows + 1);
  const index: number[] = [];
  const value: number[] = [];
  const { lo, hi } = socRange(b, soc0);
  const eta = b.etaIn;
  const etaOut = b.etaOut;
  let row = 0;
  const entry = (c: number, v: number) => {
    index.push(c);
    value.push(v);
  };
  const close = (lower: number, upper: number) => {
    rowLower[row] = lower;
    rowUpper[row] = upper;
    row++;
    starts[row] = index.length;
  };
  for (let t = 0; t < T; t++) {
    const c = t * n;
    const p = h.price[t];
    const room = Math.min(b.powerMw, h.room[t]);
    cost[c + F] = -b.chargeCost;
    cost[c + Q] = -(p + b.chargeCost);
    cost[c + Y] = p - b.dischargeCost;
    colUpper[c + F] = Math.min(b.powerMw, h.free[t]);
    colUpper[c + Q] = h.priced[t];
    colUpper[c + Y] = room;
    colLower[c + S] = lo;
    colUpper[c + S] = hi;
    for (let j = 0; j < K; j++) {
      const pr = products[j];
      const e = m.energyPrice[t];
      cost[c + 4 + j] = m.capacityPrice[j][t] + (pr.up ? 1 : -1) * pr.deployedShare * e;
      colUpper[c + 4 + j] = pr.up ? room : Math.min(b.powerMw, m.importMw);
    }
    // Charging power, with the down reserves.
    entry(c + F, 1);
    entry(c + Q, 1);
    for (let j = 0; j < K; j++) if (!products[j].up) entry(c + 4 + j, 1);
    close(-inf, b.powerMw);
    // Discharging headroom, with the up reserves.
    entry(c + Y, 1);
    for (let j = 0; j < K; j++) if (products[j].up) entry(c + 4 + j, 1);
    close(-inf, room);
    // The down reserves through the interconnection.
    for (let j = 0; j < K; j++) if (!products[j].up) entry(c + 4 + j, 1);
    close(-inf, Math.min(b.powerMw, m.importMw));
    // Energy balance.
    if (t > 0) entry(c - n + S, -m.keep);
    entry(c + F, -eta);
    entry(c + Q, -eta);
    entry(c + Y, 1 / etaOut);
    entry(c + S, 1);
    for (let j = 0; j < K; j++) {
      const pr = products[j];
      entry(c + 4 + j, pr.up ? pr.deployedShare / etaOut : -pr.deployedShare * eta);
    }
    const start = t === 0 ? m.keep * soc0 : 0;
    close(start, start);
    // The bands at the hour's end, then at its start (the SOC at the start is soc0 for hour 0).
    for (const atStart of [false, true]) {
      const sCol = atStart ? (t > 0 ? c - n + S : -1) : c + S;
      const offset = atStart && t === 0 ? soc0 : 0;
      if (sCol >= 0) entry(sCol, 1);
      for (let j = 0; j < K; j++) if (products[j].up) entry(c + 4 + j, -products[j].durationHours / etaOut);
      close(lo - offset, inf);
      if (sCol >= 0) entry(sCol, 1);
      for (let j = 0; j < K; j++) if (!products[j].up) entry(c + 4 + j, products[j].durationHours * eta);
      close(-inf, hi - offset);
    }
  }
  for (let d = 0; d < days; d++) {
    for (let t = d * 24; t < Math.min(T, d * 24 + 24); t++) entry(t * n + Y, 1);
    close(-inf, b.dailyDischargeMwh);
  }
  if (row !== rows) throw new Error(`reserve LP: ${row} rows built, ${rows} expected`);
  // The matrix depends only on the battery, the products and the horizon's length: a model of the
  // same matrix is kept and given the horizon's costs and bounds, and HiGHS starts from its last basis.
  const key = `${T} ${days} ${index.join(',')} ${value.join(',')}`;
  if (!cached || cached.key !== key) {
    cached?.model.dispose();
    const model = highs.createModel({
      numCols: cols,
      numRows: rows,
      sense: highs.constants.objectiveSense.maximize,
      colCost: cost,
      colLower,
      colUpper,
      rowLower,
      rowUpper,
      matrix: {
        format: 'csr',
        numRows: rows,
        numCols: cols,
        starts,
        indices: Int32Array.from(index),
        values: Float64Array.from(value),
      },
    });
    // Each horizon is small and starts from the last basis: presolve costs more than it saves.
    model.options.set({ presolve: 'off', solver: 'simplex' });
    cached = { key, model };
  } else {
    const model = cached.model;
    model.changeColsCost({ kind: 'range', from: 0, to: cols - 1 }, cost);
    model.changeColsBounds({ kind: 'range', from: 0, to: cols - 1 }, colLower, colUpper);
    model.changeRowsBounds({ kind: 'range', from: 0, to: rows - 1 }, rowLower, rowUpper);
  }
  const model = cached.model;
  model.run();
  {
    if (model.getModelStatus() !== highs.constants.modelStatus.optimal) {
      throw new Error(`the reserve LP has no optimum (HiGHS model status ${model.getModelStatus()})`);
    }
    const x = model.getSolution().colValue;
    for (let t = 0; t < T; t++) {
      const c = t * n;
      const charge = Math.max(0, x[c + F]) + Math.max(0, x[c + Q]);
      const discharge = Math.max(0, x[c + Y]);
      // Charging and discharging in one hour would only lose energy: keep the net.
      const u = eta * charge - discharge / etaOut;
      out.charge[t] = charge > 0 && discharge > 0 ? Math.max(0, u / eta) : charge;
      out.discharge[t] = charge > 0 && discharge > 0 ? Math.max(0, -u * etaOut) : discharge;
      for (let j = 0; j < K; j++) out.reserve[j][t] = Math.max(0, x[c + 4 + j]);
    }
  }
  return reserveObjective(b, h, m, products, out);
}

/** A plan's objective, as the LP counts it (free energy charged first, unless the price is negative). */
export function reserveObjective(
  b: HorizonBattery,
  h: HorizonHours,
  m: ReserveHours,
  products: readonly ReserveProduct[],
  plan: ReservePlan,
): number {
  let sum = 0;
  for (let t = 0; t < h.hours; t++) {
    const p = h.price[t];
    const x = plan.charge[t];
    const priced = p < 0 ? Math.min(x, h.priced[t]) : Math.max(0, x - Math.min(b.powerMw, h.free[t]));
    sum += (p - b.dischargeCost) * plan.discharge[t] - priced * p - b.chargeCost * x;
    for (let j = 0; j < products.length; j++) {
      const pr = products[j];
      sum += plan.reserve[j][t] * (m.capacityPrice[j][t] + (pr.up ? 1 : -1) * pr.deployedShare * m.energyPrice[t]);
    }
  }
  return sum;
}
