// The battery's capacity fade as SAM's lib_battery_lifetime computes it (table models): cycles are
// counted by rainflow on the depth of discharge at each turn of the SOC; each closed cycle of range D
// lowers the cycle capacity by C(D, n) − C(D, n + 1), where n counts every cycle so far and C is
// SAM's bilinear interpolation of the cycle table (along cycles within the two table depths that
// bracket D, then along depth; above the table's deepest depth it is clamped, below its shallowest
// it is interpolated to 100 % at depth 0). Calendar capacity is read off its table by the bank's age
// in days (linear, extrapolated from the last two rows). Capacity = 100 − cycle loss − calendar loss.

export interface CycleRow {
  dod_percent: number;
  cycles: number;
  capacity_percent: number;
}

export interface CalendarRow {
  day: number;
  capacity_percent: number;
}

/** SAM's rainflow tolerance (lib_battery_capacity.cpp), in depth-of-discharge percent. */
const RAINFLOW_TOLERANCE = 0.002;

/** Linear through (x1, y1), (x2, y2), as SAM's util::interpolate (equal xs or ys give y1). */
function interpolate(x1: number, y1: number, x2: number, y2: number, x: number): number {
  if (x1 === x2 || y1 === y2) return y1;
  return y1 + ((y2 - y1) / (x2 - x1)) * (x - x1);
}

/** y at x on a polyline of increasing xs; beyond either end, the nearest two points' line (SAM's linterp_col). */
function polyline(xs: number[], ys: number[], x: number): number {
  let i = 1;
  while (i < xs.length && xs[i] <= x) i++;
  if (i === xs.length) i--;
  return interpolate(xs[i - 1], ys[i - 1], xs[i], ys[i], x);
}

/** SAM's cycle model: rainflow counting and the bilinear cycle table. */
export class CycleLifetime {
  private readonly depths: number[];
  private readonly byDepth = new Map<number, { cycles: number[]; capacity: number[] }>();
  private peaks: number[] = [];
  /** Capacity left after cycling, %. */
  capacityPercent: number;
  cycles = 0;
  lastRange = 0;
  averageRange = 0;

  constructor(table: readonly CycleRow[]) {
    for (const row of table) {
      const entry = this.byDepth.get(row.dod_percent) ?? { cycles: [], capacity: [] };
      entry.cycles.push(row.cycles);
      entry.capacity.push(row.capacity_percent);
      this.byDepth.set(row.dod_percent, entry);
    }
    this.depths = [...this.byDepth.keys()].sort((a, b) => a - b);
    this.capacityPercent = this.bilinear(0, 0);
  }

  /** C(depth, n): capacity % after n cycles of this depth, as SAM's lifetime_cycle_t::bilinear. */
  bilinear(depth: number, n: number): number {
    if (this.depths.length === 1) {
      const only = this.byDepth.get(this.depths[0]) as { cycles: number[]; capacity: number[] };
      return polyline(only.cycles, only.capacity, n);
    }
    let lo = 0;
    let hi = 100;
    for (const d of this.depths) {
      if (d < depth && d > lo) lo = d;
      else if (d >= depth && d < hi) hi = d;
    }
    const deepest = this.depths[this.depths.length - 1];
    const high = this.byDepth.get(hi) ?? this.byDepth.get(deepest);
    const low = this.byDepth.get(lo);
    const cHigh = high ? Math.min(100, polyline(high.cycles, high.capacity, n)) : 100;
    // No row at the lower depth: SAM assumes 100 % at depth 0 whatever the cycles.
    const cLow = low ? Math.max(0, polyline(low.cycles, low.capacity, n)) : 100;
    return interpolate(lo, cLow, hi, cHigh, depth);
  }

  /** One turning point of the SOC, as depth of discharge (%): closes any cycles it completes. */
  turn(dod: number): void {
    const p = this.peaks;
    p.push(dod);
    while (p.length >= 3) {
      const j = p.length - 1;
      const y = Math.abs(p[j - 1] - p[j - 2]);
      const x = Math.abs(p[j] - p[j - 1]);
      if (x + RAINFLOW_TOLERANCE < y) break;
      this.closeCycle(y);
      const last = p[j];
      p.length -= 3;
      p.push(last);
    }
  }

  private closeCycle(range: number): void {
    this.lastRange = range;
    this.averageRange = (this.averageRange * this.cycles + range) / (this.cycles + 1);
    this.cycles++;
    const dq = this.bilinear(range, this.cycles) - this.bilinear(range, this.cycles + 1);
    if (dq > 0) this.capacityPercent = Math.max(0, this.capacityPercent - dq);
  }

  /** A replacement of `percent` of the bank (100 = a new bank: the cycle count starts again). */
  replace(percent: number): void {
    this.capacityPercent = Math.min(this.bilinear(0, 0), this.capacityPercent + percent);
    if (percent === 100) {
      this.cycles = 0;
      this.lastRange = 0;
      this.averageRange = 0;
    }
    this.peaks = [];
  }
}

/** Calendar capacity %, from SAM's calendar table, at an age in days. */
export function calendarCapacity(table: readonly CalendarRow[], day: number): number {
  return polyline(
    table.map((r) => r.day),
    table.map((r) => r.capacity_percent),
    day,
  );
}

/** Both fades of one bank; capacity = 100 − cycle loss − calendar loss, never rising until replaced. */
export class BatteryLifetime {
  private readonly cycle: CycleLifetime | null;
  private readonly calendarDays: number[] | null;
  private readonly calendarCap: number[] | null;
  private installedHour = 0;
  capacityPercent = 100;

  constructor(cycle: readonly CycleRow[] | undefined, calendar: readonly CalendarRow[] | undefined) {
    this.cycle = cycle ? new CycleLifetime(cycle) : null;
    this.calendarDays = calendar ? calendar.map((r) => r.day) : null;
    this.calendarCap = calendar ? calendar.map((r) => r.capacity_percent) : null;
    this.capacityPercent = this.cycle ? this.cycle.capacityPercent : 100;
  }

  get fades(): boolean {
    return this.cycle !== null || this.calendarDays !== null;
  }

  /** A turn of the SOC at a depth of discharge (% of the current capacity). */
  turn(dod: number): void {
    this.cycle?.turn(dod);
  }

  /** Updates the capacity at the end of hour `hour` (counted from the start of operation). */
  update(hour: number): number {
    const cycleLoss = this.cycle ? Math.max(0, 100 - this.cycle.capacityPercent) : 0;
    const calendar =
      this.calendarDays && this.calendarCap
        ? polyline(this.calendarDays, this.calendarCap, (hour + 1 - this.installedHour) / 24)
        : 100;
    const q = Math.max(0, 100 - cycleLoss - Math.max(0, 100 - calendar));
    this.capacityPercent = Math.min(this.capacityPercent, q);
    return this.capacityPercent;
  }

  /** A new bank from hour `hour` on. */
  replace(hour: number): void {
    this.cycle?.replace(100);
    this.installedHour = hour;
    this.capacityPercent = this.cycle ? Math.max(0, 100 - Math.max(0, 100 - this.cycle.capacityPercent)) : 100;
  }
}
