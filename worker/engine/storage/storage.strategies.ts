// The battery's dispatch strategies (docs/storage.md; `load`: docs/load.md), side by side. Each
// turns the plant's hours into the rolling horizon the dispatch solves (storage.dispatch.ts), says
// how much a committed hour may charge, and where that charge came from. `arbitrage` and `capture`
// sell into the market (arbitrage may also charge from the plant's sale); `load` serves a buyer's
// load first, then sells its excess.
import { HOURS_PER_DAY, HOURS_PER_YEAR } from '../../../shared/calendar.ts';
import type { StorageInputs } from '../../../shared/schemas/inputs.ts';
import type { HorizonHours, LoadHours } from './storage.dispatch.ts';
import type { PlantHours, StorageRun } from './storage.ts';

/**
 * Hour `i`'s export limit (of the 25 years): the fixed one, or the lesser of it and the operator's
 * (PlantHours' `limitMw` and `operatorMw`, read once by the caller's loop).
 */
function limitAt(limit: number, operator: ArrayLike<number> | undefined, i: number): number {
  return operator ? Math.min(limit, operator[i % HOURS_PER_YEAR]) : limit;
}

/** One strategy: the horizon it fills, and the committed hour's charge it allows and attributes. */
export interface DispatchStrategy {
  /** Whether the horizon carries a load's tiers (HorizonHours.load). */
  readonly withLoad: boolean;
  /**
   * The horizon from hour `from` (h.hours set): price, free and priced charge, room; `gridMw` each hour
   * from the grid. Its hours before `first` already hold what this would write there (the rolling
   * horizon moved the previous day's second half down): what depends on the whole horizon is redone.
   */
  fill(s: StorageInputs, plant: PlantHours, from: number, h: HorizonHours, gridMw: number, first?: number): void;
  /** At most what hour `i` (the horizon's hour `t`) may charge, before the power limit. */
  chargeable(plant: PlantHours, h: HorizonHours, i: number, t: number): number;
  /** Of hour `i`'s charge `x`, MWh from the limit's surplus and from the grid, into `run`. */
  sources(plant: PlantHours, h: HorizonHours, i: number, t: number, x: number, run: StorageRun): void;
}

/** A market strategy: charges from the limit's surplus, the grid and (arbitrage) the plant's sale. */
function market(fromSale: boolean): DispatchStrategy {
  return {
    withLoad: false,
    fill(_s, plant, from, h, gridMw, first = 0) {
      const { delivered, surplus, price } = plant;
      const { price: hPrice, free, priced, room, delivered: hDelivered } = h;
      const operator = plant.operatorMw;
      const limit = plant.limitMw;
      for (let t = first; t < h.hours; t++) {
        const i = from + t;
        const d = delivered[i];
        const f = surplus[i];
        if (hDelivered) hDelivered[t] = d;
        hPrice[t] = price[i];
        free[t] = f;
        priced[t] = fromSale ? d + gridMw : gridMw;
        room[t] = f > 0 ? 0 : Math.max(0, limitAt(limit, operator, i) - d);
      }
    },
    chargeable: (plant, h, i, t) => plant.surplus[i] + h.priced[t],
    sources(plant, h, i, t, x, run) {
      // The cheaper source first: curtailed energy (free), unless the price is negative.
      const surplus = plant.surplus[i];
      const fromPlantOrGrid = plant.price[i] < 0 ? Math.min(x, h.priced[t]) : Math.max(0, x - surplus);
      run.fromSurplus[i] = x - fromPlantOrGrid;
      run.fromGrid[i] = Math.max(0, fromPlantOrGrid - plant.delivered[i]);
    },
  };
}

/**
 * Weight of a MWh delivered to the load, over the horizon's dearest price ÷ the round trip: serving
 * one more MWh is always worth more than any revenue the battery could move (lexicographic in effect).
 */
const SERVE_WEIGHT = 10;

/** The horizon's load tiers (HorizonHours.load), present for this strategy (workSpace made them). */
const tiers = (h: HorizonHours): LoadHours => h.load as LoadHours;

/** The load's strategy: the tiers of LoadHours from the plant's hours and the load's. */
const LOAD: DispatchStrategy = {
  withLoad: true,
  fill(s, plant, from, h, gridMw, first = 0) {
    const load = plant.load as NonNullable<PlantHours['load']>;
    const { price, free, priced, room, delivered: hDelivered, surplus: hSurplus } = h;
    const l = tiers(h);
    const { serve: served, unmet: short, grid, gridPrice, value } = l;
    const { delivered, surplus } = plant;
    const { mw, sell, contract, backupPrice, backupFactor } = load;
    // The dearest price of the hours already there is the previous fill's of its second day (the same
    // hours, the same prices: a maximum does not depend on the order it is taken in).
    let dearest = first > 0 ? l.laterDearest : 0;
    let later = 0;
    // The year of the first new hour, counted on from there (a horizon crosses at most one year's end).
    let year = Math.floor((from + first) / HOURS_PER_YEAR);
    let yearStart = year * HOURS_PER_YEAR;
    // The year's contract price and its size (a price's |p|): every hour of the year alike.
    let yearValue = contract[year];
    let yearSize = Math.abs(yearValue);
    const operator = plant.operatorMw;
    const limit = plant.limitMw;
    for (let t = first; t < h.hours; t++) {
      const i = from + t;
      if (i - yearStart === HOURS_PER_YEAR) {
        year++;
        yearStart = i;
        yearValue = contract[year];
        yearSize = Math.abs(yearValue);
      }
      const a = delivered[i];
      const f = surplus[i];
      // The kernel's commit reads them (storage.ts), not the solver.
      if (hDelivered && hSurplus) {
        hDelivered[t] = a;
        hSurplus[t] = f;
      }
      const L = mw[i];
      const serve = Math.min(a, L);
      const excess = a - serve;
      const unmet = L - serve;
      const p = plant.price[i];
      price[t] = p;
      free[t] = sell ? f : f + excess;
      priced[t] = sell ? excess : 0;
      room[t] = f > 0 ? 0 : Math.max(0, limitAt(limit, operator, i) - a);
      served[t] = serve;
      short[t] = unmet;
      // The grid only where the plant meets the load, and never cheaper than the excess sells for.
      grid[t] = unmet > 0 ? 0 : gridMw;
      const backup = backupPrice[i - yearStart] * backupFactor[year];
      // Never below 0, so its own size (|gp| = gp).
      const gp = Math.max(backup, p, 0);
      gridPrice[t] = gp;
      value[t] = yearValue;
      const d = Math.max(Math.abs(p), gp, yearSize);
      if (t < HOURS_PER_DAY) dearest = Math.max(dearest, d);
      else later = Math.max(later, d);
    }
    l.laterDearest = later;
    dearest = Math.max(dearest, later);
    l.weight = (SERVE_WEIGHT * (1 + dearest) * 100) / s.round_trip_efficiency_percent;
  },
  chargeable: (_plant, h, _i, t) => h.free[t] + h.priced[t] + tiers(h).grid[t] + tiers(h).serve[t],
  sources(plant, h, i, t, x, run) {
    // The limit's surplus, the plant's excess, the grid, then the plant's served output.
    const l = tiers(h);
    const surplus = plant.surplus[i];
    const excess = plant.delivered[i] - l.serve[t];
    const beforeGrid = surplus + excess;
    run.fromSurplus[i] = plant.price[i] < 0 ? Math.min(surplus, Math.max(0, x - excess)) : Math.min(x, surplus);
    run.fromGrid[i] = Math.min(l.grid[t], Math.max(0, x - beforeGrid));
  },
};

/** The strategies by their name in the inputs (`storage.dispatch.strategy`). */
export const STRATEGIES: Readonly<Record<StorageInputs['dispatch']['strategy'], DispatchStrategy>> = {
  arbitrage: market(true),
  capture: market(false),
  load: LOAD,
};

/** The battery's strategy; `load` without a load's hours dispatches as `capture` does. */
export function strategyOf(s: StorageInputs, plant: PlantHours): DispatchStrategy {
  const strategy = STRATEGIES[s.dispatch.strategy];
  return strategy.withLoad && !plant.load ? STRATEGIES.capture : strategy;
}
