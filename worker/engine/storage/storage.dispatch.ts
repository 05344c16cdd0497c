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
// A daily cycle limit (Σ y over a day ≤ cycles × nameplate) couples the hours; when it binds, the LP
// is solved by column generation (Dantzig–Wolfe, storage.master.ts): the program, with each day's
// discharge priced at the master's duals, supplies the vertices, and the master mixes them.

import { HOURS_PER_YEAR, YEARS } from '../../../shared/calendar.ts';
import { KERNEL_WASM_BASE64 } from './storage.dispatch.wasm.ts';
import { CycleMaster, MAX_COLUMNS } from './storage.master.ts';

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
  /**
   * MWh the plant exports without the battery, when the caller commits its days in the kernel
   * (storage.ts): read there, not by the solver.
   */
  delivered?: Float64Array;
  /** With a load, committed in the kernel: MWh above the limit, curtailed without the battery (as `delivered`). */
  surplus?: Float64Array;
  /** With a load (strategy `load`): what the load adds to each hour (docs/load.md). */
  load?: LoadHours;
}

/**
 * A load's hours (strategy `load`). `price` is then what an excess MWh sells for (0 when curtailed),
 * `priced` the plant's excess over the load (charged at `price`), `free` the energy the limit would
 * curtail (and curtailed excess). A MWh delivered to the load is worth `value + weight`: the contract
 * price plus a weight far above every price, the horizon's (the most load first, then the most
 * revenue). Charging may draw, dearest last, on the grid (`grid` MWh at `gridPrice`; only in hours the
 * plant meets the load) and on the plant's output that serves the load (`serve`, at `value + weight`);
 * discharge serves the `unmet` load first, then sells into the rest of the room.
 */
export interface LoadHours {
  serve: Float64Array;
  unmet: Float64Array;
  /** Each hour's contract price; a MWh delivered to the load is worth `value[t] + weight`. */
  value: Float64Array;
  /** The serving weight of the whole horizon, added to every hour's `value`. */
  weight: number;
  grid: Float64Array;
  gridPrice: Float64Array;
  /** The fill's: the dearest price of the hours from the 25th on (the next horizon's first day). */
  laterDearest: number;
}

/** A planned dispatch: AC MWh in and out each hour. */
export interface HorizonPlan {
  charge: Float64Array;
  discharge: Float64Array;
}

/**
 * Hour t's reward as a function of the SOC decrease v: its pieces' lengths and slopes, left to right
 * (slopes decreasing), of which the first `charging` charge and the rest discharge.
 */
interface RewardPieces {
  len: Float64Array;
  slope: Float64Array;
  charging: number;
  /** The charging pieces' total length (summed left to right). */
  chargingLength: number;
}

const MAX_HOURS = 48;
/** The hours of a battery run (25 × 8,760), whose series the kernel's memory holds. */
const RUN_HOURS = YEARS * HOURS_PER_YEAR;
/** Each hour adds at most six pieces (four charging tiers with a load, and two discharges). */
const MAX_PIECES = 6 * MAX_HOURS + 4;
const EPS = 1e-9;

/**
 * The rolling horizon's path (no daily limit, the plan alone) as a WebAssembly kernel
 * (storage.dispatch.wat: the same operations in the same order as `backward`, `backwardLoad`, `merge`
 * and `forward`, so the same bits), with its inputs and outputs as views of its memory.
 */
interface Kernel {
  solve(
    hours: number,
    planned: number,
    load: number,
    soc0: number,
    power: number,
    socMin: number,
    socMax: number,
    etaIn: number,
    etaOut: number,
    chargeCost: number,
    dischargeCost: number,
    weight: number,
    continued: number,
  ): number;
  /** price, free, priced, room, unmet, value, grid, gridPrice: the kernel's inputs. */
  inputs: Float64Array[];
  charge: Float64Array;
  discharge: Float64Array;
  day: KernelDay;
}

/** A battery run's five 25-year series (storage.ts `StorageRun`'s, 219,000 hours each). */
export interface RunSeries {
  charge: Float64Array;
  discharge: Float64Array;
  soc: Float64Array;
  fromSurplus: Float64Array;
  fromGrid: Float64Array;
}

/**
 * A committed day in the kernel (storage.ts `commitDay` without reserves, for a market strategy or
 * the load's; storage.dispatch.wat `commit`), written into the run's 25-year series in the kernel's
 * memory (`series`), and the rolling horizon's move of its inputs' second day down to their first
 * (`shift`). Every array is a view of the kernel's memory, which never grows.
 */
export interface KernelDay {
  /** The inputs' hours 24–47 moved to 0–23 (`copyWithin(0, 24, 48)` on each input, `delivered`, `serve` and `surplus`). */
  shift(): void;
  /**
   * The plan's first 24 hours committed as hours `from` … `from` + 23 of `series`, from `soc` (MWh)
   * and the last direction (1 charging, −1 discharging, 0 none yet); writes `turns` (each turn's depth
   * of discharge, %) and `end`/`endDirection`. `load` 1: the load's strategy (what an hour may charge
   * and its sources, storage.strategies.ts `LOAD`), else 0 (a market's). Returns the count of turns.
   */
  commit(
    from: number,
    keep: number,
    capacity: number,
    power: number,
    socMin: number,
    socMax: number,
    etaIn: number,
    etaOut: number,
    soc: number,
    direction: number,
    load: number,
  ): number;
  /** The horizon's MWh the plant exports without the battery, each hour (an input, as `price` is). */
  delivered: Float64Array;
  /** With a load: the horizon's MWh of the plant's output that serves it, and the limit's surplus (inputs). */
  serve: Float64Array;
  surplus: Float64Array;
  series: RunSeries;
  turns: Float64Array;
  /** The SOC at the day's end. */
  end: Float64Array;
  /** The direction at the day's end. */
  endDirection: Int32Array;
}

/** (The project's TypeScript libraries do not declare WebAssembly's classes.) */
interface WasmApi {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { exports: Record<string, unknown> };
}
/** The committed binaries' modules, each compiled once a thread (by their base64). */
const wasmModules = new Map<string, object>();

/** A new instance of a committed WebAssembly binary (base64; scripts/wasm.build.ts): its exports. */
export function wasmExports(base64: string): Record<string, unknown> {
  const wasm = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;
  let module = wasmModules.get(base64);
  if (!module) {
    module = new wasm.Module(Buffer.from(base64, 'base64'));
    wasmModules.set(base64, module);
  }
  return new wasm.Instance(module, {}).exports;
}

function newKernel(): Kernel {
  const exports = wasmExports(KERNEL_WASM_BASE64);
  const buffer = (exports.memory as { buffer: ArrayBuffer }).buffer;
  const view = (i: number) => new Float64Array(buffer, i * MAX_HOURS * 8, MAX_HOURS);
  // The committed day's byte offsets (storage.dispatch.wat's header): the horizon's delivered MWh,
  // the day's turns, the SOC and direction at its end, a load's served output and the surplus, and
  // the run's five 25-year series one after another.
  const at = {
    delivered: 248832,
    turns: 249472,
    end: 249664,
    endDirection: 249672,
    serve: 249728,
    surplus: 250112,
    series: 262144,
  };
  const series = (i: number) => new Float64Array(buffer, at.series + i * RUN_HOURS * 8, RUN_HOURS);
  return {
    solve: exports.solve as Kernel['solve'],
    inputs: [0, 1, 2, 3, 4, 5, 6, 7].map(view),
    charge: view(8),
    discharge: view(9),
    day: {
      shift: exports.shift as KernelDay['shift'],
      commit: exports.commit as KernelDay['commit'],
      delivered: new Float64Array(buffer, at.delivered, MAX_HOURS),
      serve: new Float64Array(buffer, at.serve, MAX_HOURS),
      surplus: new Float64Array(buffer, at.surplus, MAX_HOURS),
      series: { charge: series(0), discharge: series(1), soc: series(2), fromSurplus: series(3), fromGrid: series(4) },
      turns: new Float64Array(buffer, at.turns, 24),
      end: new Float64Array(buffer, at.end, 1),
      endDirection: new Int32Array(buffer, at.endDirection, 1),
    },
  };
}

/** Work space reused between horizons: a horizon allocates nothing. */
export class HorizonSolver {
  private kernel: Kernel | null = null;
  /** Whether the last `solve` ran in the kernel. */
  private kernelLast = false;
  /** Whether the rolling horizon's path runs in the kernel (false: all in JavaScript, as before). */
  private readonly useKernel: boolean;
  constructor(useKernel = true) {
    this.useKernel = useKernel;
  }
  private readonly len = new Float64Array(MAX_HOURS * MAX_PIECES);
  private readonly slope = new Float64Array(MAX_HOURS * MAX_PIECES);
  /** 1 when the piece belongs to V_{t+1}, 0 when it belongs to hour t's reward. */
  private readonly own = new Uint8Array(MAX_HOURS * MAX_PIECES);
  private readonly count = new Int32Array(MAX_HOURS);
  /** Where the SOC domain [min, max] starts inside hour t's merged function. */
  private readonly skip = new Float64Array(MAX_HOURS);
  private readonly penalty = new Float64Array(MAX_HOURS);
  /** The SOC domain's width, max − min, of the horizon being solved. */
  private span = 0;
  private readonly reward: RewardPieces = {
    len: new Float64Array(6),
    slope: new Float64Array(6),
    charging: 0,
    chargingLength: 0,
  };
  private readonly mu = new Float64Array(3);
  /** The master problem of the daily limits and its columns: plans, objectives, day discharges. */
  private readonly master = new CycleMaster();
  private readonly colCharge = new Float64Array(MAX_COLUMNS * MAX_HOURS);
  private readonly colDischarge = new Float64Array(MAX_COLUMNS * MAX_HOURS);
  private readonly colValue = new Float64Array(MAX_COLUMNS);
  private readonly colDays = new Float64Array(MAX_COLUMNS * 2);

  /**
   * The optimal plan from `soc0` (MWh stored now), written into `out`; returns the horizon's objective
   * (NaN with `value` false: a caller that wants the plan alone skips a pass over the hours). With
   * `value` false, a caller that reads only the plan's first `planned` hours (the rolling horizon's
   * committed day) gets those alone when no daily limit is set: the forward pass stops there, and
   * the later hours of `out` are left as they were. `continued`: this horizon's first 24 hours are
   * the previous call's last 24, moved down (the rolling horizon's next day), so that the kernel may
   * reuse what it computed of them that depends on those hours alone.
   */
  solve(
    b: HorizonBattery,
    h: HorizonHours,
    soc0: number,
    out: HorizonPlan,
    value = true,
    planned = h.hours,
    continued = false,
  ): number {
    if (h.hours > MAX_HOURS) throw new Error(`a horizon is at most ${MAX_HOURS} hours`);
    // The kernel keeps a horizon's hours for the next call only when its last call was the previous one.
    const chained = continued && this.kernelLast;
    this.kernelLast = false;
    if (this.useKernel && !value && !Number.isFinite(b.dailyDischargeMwh)) {
      this.solveInKernel(b, h, soc0, out, planned, chained);
      this.kernelLast = true;
      return Number.NaN;
    }
    this.penalty.fill(0);
    if (!h.load && soc0 <= b.socMinMwh + EPS && !worthwhile(b, h)) return idle(out, h.hours);
    if (!value && !Number.isFinite(b.dailyDischargeMwh)) {
      this.backward(b, h);
      this.forward(b, soc0, out, Math.min(h.hours, planned));
      return Number.NaN;
    }
    this.run(b, h, soc0, out);
    if (!Number.isFinite(b.dailyDischargeMwh)) return value ? objective(b, h, out) : Number.NaN;
    const days = Math.ceil(h.hours / 24);
    let binding = false;
    for (let d = 0; d < days; d++) binding ||= dayDischarge(out, h.hours, d) > b.dailyDischargeMwh * (1 + 1e-9);
    if (!binding) return value ? objective(b, h, out) : Number.NaN;
    return this.limitDays(b, h, soc0, out, days);
  }

  /**
   * Arrays for a horizon and its plan that are the kernel's own memory: a horizon filled into them
   * and a plan read from them are not copied (`solve` copies any other arrays in and out).
   */
  kernelArrays(): {
    hours: Omit<HorizonHours, 'hours' | 'load'>;
    load: Pick<LoadHours, 'unmet' | 'value' | 'grid' | 'gridPrice'>;
    plan: HorizonPlan;
    day: KernelDay;
  } {
    this.kernel ??= newKernel();
    const [price, free, priced, room, unmet, value, grid, gridPrice] = this.kernel.inputs;
    return {
      hours: { price, free, priced, room },
      load: { unmet, value, grid, gridPrice },
      plan: { charge: this.kernel.charge, discharge: this.kernel.discharge },
      day: this.kernel.day,
    };
  }

  /** The rolling horizon's path (storage.dispatch.wat): `backward` and `forward` to `planned` hours, or idle. */
  private solveInKernel(
    b: HorizonBattery,
    h: HorizonHours,
    soc0: number,
    out: HorizonPlan,
    planned: number,
    continued: boolean,
  ): void {
    this.kernel ??= newKernel();
    const k = this.kernel;
    const n = h.hours;
    const l = h.load;
    // Arrays that are not the kernel's own are copied in (the engine's are its own: nothing to do).
    if (h.price !== k.inputs[0] || h.free !== k.inputs[1] || h.priced !== k.inputs[2] || h.room !== k.inputs[3]) {
      k.inputs[0].set(h.price.subarray(0, n));
      k.inputs[1].set(h.free.subarray(0, n));
      k.inputs[2].set(h.priced.subarray(0, n));
      k.inputs[3].set(h.room.subarray(0, n));
    }
    if (
      l &&
      (l.unmet !== k.inputs[4] || l.value !== k.inputs[5] || l.grid !== k.inputs[6] || l.gridPrice !== k.inputs[7])
    ) {
      k.inputs[4].set(l.unmet.subarray(0, n));
      k.inputs[5].set(l.value.subarray(0, n));
      k.inputs[6].set(l.grid.subarray(0, n));
      k.inputs[7].set(l.gridPrice.subarray(0, n));
    }
    const written = k.solve(
      n,
      planned,
      l ? 1 : 0,
      soc0,
      b.powerMw,
      b.socMinMwh,
      b.socMaxMwh,
      b.etaIn,
      b.etaOut,
      b.chargeCost,
      b.dischargeCost,
      l ? l.weight : 0,
      continued ? 1 : 0,
    );
    if (out.charge !== k.charge) out.charge.set(k.charge.subarray(0, written));
    if (out.discharge !== k.discharge) out.discharge.set(k.discharge.subarray(0, written));
  }

  /**
   * The daily limits, exactly: column generation on the master problem of storage.master.ts, each
   * column a plan of the program with the days' discharge priced at the master's duals, until no
   * plan improves the master (to a relative 1e-9); the plan is the master's mix of its columns, netted
   * per hour (never charging and discharging in one hour: see `netHours`).
   */
  private limitDays(b: HorizonBattery, h: HorizonHours, soc0: number, out: HorizonPlan, days: number): number {
    const master = this.master;
    // The idle plan is valid only when the SOC at the start is within its bounds.
    const idleValid = soc0 <= b.socMaxMwh + EPS && soc0 >= b.socMinMwh - EPS;
    master.reset(days, b.dailyDischargeMwh, idleValid ? 0 : -1e12);
    this.addColumn(b, h, out, days);
    let value = master.solve();
    while (master.columns < MAX_COLUMNS) {
      for (let d = 0; d < days; d++) this.mu[d] = master.dual[d];
      this.setMultipliers(h.hours, this.mu);
      this.run(b, h, soc0, out);
      const j = this.addColumn(b, h, out, days);
      let priced = this.colValue[j] - master.dual[days];
      for (let d = 0; d < days; d++) priced -= master.dual[d] * this.colDays[j * 2 + d];
      if (priced <= 1e-9 * Math.max(1, Math.abs(value))) break;
      value = master.solve();
    }
    if (!idleValid && master.weight(MAX_COLUMNS + days) > 1e-9) return this.uniformLimit(b, h, soc0, out, days);
    this.mixColumns(b, h.hours, out);
    return objective(b, h, out);
  }

  /** Stores the plan as the master's next column. */
  private addColumn(b: HorizonBattery, h: HorizonHours, plan: HorizonPlan, days: number): number {
    const j = this.master.columns;
    this.colCharge.set(plan.charge.subarray(0, h.hours), j * MAX_HOURS);
    this.colDischarge.set(plan.discharge.subarray(0, h.hours), j * MAX_HOURS);
    this.colValue[j] = objective(b, h, plan);
    for (let d = 0; d < days; d++) this.colDays[j * 2 + d] = dayDischarge(plan, h.hours, d);
    return this.master.add(this.colValue[j], this.colDays.subarray(j * 2, j * 2 + days));
  }

  /** out ← Σ λ_j column j (the idle plan adds nothing), then netted hour by hour. */
  private mixColumns(b: HorizonBattery, hours: number, out: HorizonPlan): void {
    out.charge.fill(0, 0, hours);
    out.discharge.fill(0, 0, hours);
    for (let j = 0; j < this.master.columns; j++) {
      const w = this.master.weight(j);
      if (!(w > 0)) continue;
      for (let t = 0; t < hours; t++) {
        out.charge[t] += w * this.colCharge[j * MAX_HOURS + t];
        out.discharge[t] += w * this.colDischarge[j * MAX_HOURS + t];
      }
    }
    netHours(b, hours, out);
  }

  /** The fallback: one multiplier for every day, the least that keeps every day within its limit. */
  private uniformLimit(b: HorizonBattery, h: HorizonHours, soc0: number, out: HorizonPlan, days: number): number {
    let lo = 0;
    let hi = 1;
    for (let t = 0; t < h.hours; t++) hi = Math.max(hi, 2 * Math.abs(h.price[t]) + 1);
    if (h.load) for (let t = 0; t < h.hours; t++) hi = Math.max(hi, 2 * (h.load.value[t] + h.load.weight) + 1);
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
    this.forward(b, soc0, out, h.hours);
  }

  private backward(b: HorizonBattery, h: HorizonHours): void {
    if (h.load) {
      this.backwardLoad(b, h, h.load);
      return;
    }
    const { count, skip, reward } = this;
    this.span = b.socMaxMwh - b.socMinMwh;
    for (let t = h.hours - 1; t >= 0; t--) {
      const nf = rewardPieces(b, h, t, this.penalty[t], reward);
      count[t] = this.merge(t, nf, t === h.hours - 1);
      // The SOC domain starts after the reward's charging pieces, i.e. lo_G = min − η_in·X.
      skip[t] = reward.chargingLength;
    }
  }

  /**
   * The backward pass with a load. Hour t's reward pieces, as rewardPieces': the charging tiers of
   * loadTiers, dearest (leftmost) first, each cheaper tier used before a dearer one within the power
   * (the served output never: a MWh of it is worth more than the battery returns for it in any hour,
   * value ÷ η_in > value' × η_out, the weight dominating); then discharge to the unmet load, then into
   * the rest of the room. Concave because grid charging is offered only in hours the plant meets the
   * load, at no less than the hour's excess price (docs/load.md). Written out with the horizon's
   * arrays at hand (the same costs and order as loadTiers): this runs for every hour of every day.
   */
  private backwardLoad(b: HorizonBattery, h: HorizonHours, l: LoadHours): void {
    const { count, skip, penalty } = this;
    const { len: fLen, slope: fSlope } = this.reward;
    this.span = b.socMaxMwh - b.socMinMwh;
    const { price, free, priced, room } = h;
    const { unmet, value, weight, grid, gridPrice } = l;
    const c = b.chargeCost;
    const eta = b.etaIn;
    const etaOut = b.etaOut;
    const power = b.powerMw;
    const dischargeCost = b.dischargeCost;
    for (let t = h.hours - 1; t >= 0; t--) {
      const p = price[t];
      // Tiers 0 and 1: free energy and the plant's excess (the excess first when its price is negative).
      const excessFirst = p < 0;
      const cost0 = excessFirst ? p + c : c;
      const cost1 = excessFirst ? c : p + c;
      let left = power;
      const take0 = Math.min(left, excessFirst ? priced[t] : free[t]);
      left -= take0;
      const take1 = Math.min(left, excessFirst ? free[t] : priced[t]);
      left -= take1;
      const take2 = Math.min(left, grid[t]);
      let n = 0;
      // The SOC domain starts after the reward's charging pieces, i.e. lo_G = min − η_in·X.
      let charging = 0;
      if (take2 > EPS) {
        fLen[n] = take2 * eta;
        fSlope[n] = (gridPrice[t] + c) / eta;
        charging += fLen[n];
        n++;
      }
      if (take1 > EPS) {
        fLen[n] = take1 * eta;
        fSlope[n] = cost1 / eta;
        charging += fLen[n];
        n++;
      }
      if (take0 > EPS) {
        fLen[n] = take0 * eta;
        fSlope[n] = cost0 / eta;
        charging += fLen[n];
        n++;
      }
      const y = Math.min(power, room[t]);
      const toLoad = Math.min(y, unmet[t]);
      const loadMargin = value[t] + weight - dischargeCost - penalty[t];
      if (loadMargin > 0 && toLoad > EPS) {
        fLen[n] = toLoad / etaOut;
        fSlope[n] = loadMargin * etaOut;
        n++;
      }
      const toExcess = y - Math.max(0, toLoad);
      const excessMargin = p - dischargeCost - penalty[t];
      if (excessMargin > 0 && toExcess > EPS) {
        fLen[n] = toExcess / etaOut;
        fSlope[n] = excessMargin * etaOut;
        n++;
      }
      count[t] = this.merge(t, n, t === h.hours - 1);
      skip[t] = charging;
    }
  }

  /**
   * Hour t's merged pieces: V_{t+1} restricted to [min, max] (the terminal value 0, else hour t+1's
   * merged pieces from its skip on, `span` MWh of them, read in place) and the reward's `nf` pieces,
   * by decreasing slope; neighbours of one owner and one slope become one piece. Returns the count.
   * (Integers in, an integer out: a number that is not one would be boxed on every call.)
   */
  private merge(t: number, nf: number, last: boolean): number {
    const { len, slope, own, span } = this;
    const { len: fLen, slope: fSlope } = this.reward;
    const base = t * MAX_PIECES;
    let n = 0;
    let j = 0;
    // V_{t+1}'s pieces [i, end) from the cut on, `remaining` MWh of them (the terminal value: one piece of slope 0).
    const from = (t + 1) * MAX_PIECES;
    const end = last ? from : from + this.count[t + 1];
    let i = from;
    let cut = last ? 0 : this.skip[t + 1];
    let remaining = last ? 0 : span;
    let vl = span;
    let vs = 0;
    let haveV = last;
    for (;;) {
      if (!haveV) {
        // The next piece of V_{t+1} inside the domain, if any.
        while (i < end && remaining > EPS) {
          let l = len[i];
          i++;
          if (cut > 0) {
            const drop = Math.min(cut, l);
            cut -= drop;
            l -= drop;
            if (l <= EPS) continue;
          }
          if (l > remaining) l = remaining;
          remaining -= l;
          vl = l;
          vs = slope[i - 1];
          haveV = true;
          break;
        }
      }
      // Hour t's pieces steeper than V's current one go first (V's first on a tie); all of them once V is used up.
      while (j < nf && (!haveV || fSlope[j] > vs)) {
        const sl = fSlope[j];
        const k = base + n - 1;
        if (n > 0 && own[k] === 0 && slope[k] === sl) len[k] += fLen[j];
        else {
          len[base + n] = fLen[j];
          slope[base + n] = sl;
          own[base + n] = 0;
          n++;
        }
        j++;
      }
      if (!haveV) break;
      const k = base + n - 1;
      if (n > 0 && own[k] === 1 && slope[k] === vs) len[k] += vl;
      else {
        len[base + n] = vl;
        slope[base + n] = vs;
        own[base + n] = 1;
        n++;
      }
      haveV = false;
    }
    return n;
  }

  /** The plan's first `hours` hours from the value functions. */
  private forward(b: HorizonBattery, soc0: number, out: HorizonPlan, hours: number): void {
    const { len, own, count, skip } = this;
    let s = soc0;
    for (let t = 0; t < hours; t++) {
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

/** Hour t's reward pieces, written into `f`; returns their count. */
function rewardPieces(b: HorizonBattery, h: HorizonHours, t: number, penalty: number, f: RewardPieces): number {
  const { len: fLen, slope: fSlope } = f;
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
  let charging = 0;
  if (a1 > EPS) {
    fLen[n] = a1 * b.etaIn;
    fSlope[n] = (pricedFirst ? pricedCost : freeCost) / b.etaIn;
    charging += fLen[n];
    n++;
  }
  if (a2 > EPS) {
    fLen[n] = a2 * b.etaIn;
    fSlope[n] = (pricedFirst ? freeCost : pricedCost) / b.etaIn;
    charging += fLen[n];
    n++;
  }
  f.charging = n;
  f.chargingLength = charging;
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

/** Hour t's charging tiers with a load, cheapest first: their cost per AC MWh and MWh (power not yet applied). */
function loadTiers(
  b: HorizonBattery,
  h: HorizonHours,
  l: LoadHours,
  t: number,
  cost: Float64Array,
  amount: Float64Array,
): void {
  const c = b.chargeCost;
  // Free energy, then the plant's excess at its price (before free energy when that price is negative),
  // then the grid (never below the excess price), then the output that serves the load.
  const p = h.price[t];
  const excessFirst = p < 0;
  cost[excessFirst ? 1 : 0] = c;
  amount[excessFirst ? 1 : 0] = h.free[t];
  cost[excessFirst ? 0 : 1] = p + c;
  amount[excessFirst ? 0 : 1] = h.priced[t];
  cost[2] = l.gridPrice[t] + c;
  amount[2] = l.grid[t];
  cost[3] = l.value[t] + l.weight + c;
  amount[3] = l.serve[t];
}

const tierCost = new Float64Array(4);
const tierAmount = new Float64Array(4);

/** With a load: the horizon's objective of a plan (charge from the cheapest tiers first, discharge to the load first). */
function loadObjective(b: HorizonBattery, h: HorizonHours, l: LoadHours, plan: HorizonPlan): number {
  let sum = 0;
  for (let t = 0; t < h.hours; t++) {
    loadTiers(b, h, l, t, tierCost, tierAmount);
    let x = plan.charge[t];
    for (let k = 0; k < 4 && x > 0; k++) {
      const take = Math.min(x, tierAmount[k]);
      sum -= take * tierCost[k];
      x -= take;
    }
    const y = plan.discharge[t];
    const toLoad = Math.min(y, l.unmet[t]);
    sum += toLoad * (l.value[t] + l.weight) + (y - toLoad) * h.price[t] - b.dischargeCost * y;
  }
  return sum;
}

/**
 * A mix of plans may charge and discharge in one hour; the SOC change alone is kept (less charged and
 * less discharged, same SOC path). This never lowers the objective: discharge needs room under the
 * limit, so nothing is curtailed in that hour and the charge is priced at p ≥ the discharge's margin
 * (a positive margin means p > 0), and a MWh less discharged saves more than a MWh charged.
 */
function netHours(b: HorizonBattery, hours: number, out: HorizonPlan): void {
  for (let t = 0; t < hours; t++) {
    const x = out.charge[t];
    const y = out.discharge[t];
    if (!(x > 0 && y > 0)) continue;
    const u = b.etaIn * x - y / b.etaOut;
    out.charge[t] = u > 0 ? u / b.etaIn : 0;
    out.discharge[t] = u < 0 ? -u * b.etaOut : 0;
  }
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
  if (h.load) return loadObjective(b, h, h.load, plan);
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
