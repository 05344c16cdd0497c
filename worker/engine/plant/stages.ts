// The engine's stages, in order: the list `calculate` (../index.ts) runs. Each entry is one part of
// the plant (a technology, or the market and finance that price it) over one record, `EngineRun`:
// every `prepare` first (its model, from the inputs alone), then every `run` (the hours and the
// years, each stage reading what the stages before it wrote), then every `kpis` (its KPIs merged
// into finance's, once the statements are known). A new technology lands as its folder under
// worker/engine/ and one entry here, at its place among the others (ARCHITECTURE.md, "The
// engine's stages").
import type { ResolvedInputs } from '../../../shared/schemas/inputs.ts';
import type { WindRose } from '../../../shared/schemas/result.ts';
import { solvePpaPrice } from '../finance/finance.solve.ts';
import { type FinanceResult, financeModel } from '../finance/finance.ts';
import { excessPriceHours, loadBuffers, loadKpis, prepareLoad } from '../load/load.ts';
import { type MarketModel, prepareMarket } from '../market/market.ts';
import { type Generation, generationProfiles, type ProgressReporter, resourceRose } from './generation.ts';
import type { PlantMemo, PlantMemoUse } from './plant.memo.ts';
import { storageKpis } from './plant.storage.ts';
import {
  batteryYears,
  capacityCredit,
  curtailmentPercent,
  type HourlyBuffers,
  hybridYears,
  loadYears,
  type PlantYears,
  type PricedLoad,
  revenueAtPrice,
  revenueYears,
  type YearReporter,
} from './plant.ts';
import type { ProfileCache, ProfileKeys } from './profiles.ts';

export interface CalculateOptions {
  onProgress?: ProgressReporter;
  onYear?: YearReporter;
  /** Generation profiles kept between calculations (a sweep's variants share them). */
  cache?: ProfileCache;
  /**
   * The cache's keys, when the caller made them (from the stored inputs, whose library references
   * name a file by its id: cheaper to hash than the file's text). Default: profileKeys(inputs).
   */
  profileKeys?: ProfileKeys;
  /**
   * Where to write the hourly results (the result's solar and wind series, and a battery's, are
   * then these arrays): a caller that keeps no result's arrays passes the same ones every time.
   */
  hourly?: HourlyBuffers;
  /**
   * The plant's hours before the battery, kept between calculations (plant.memo.ts): a sweep of
   * battery sizes computes them once. Useful with `cache` (a hit needs the same profile objects).
   */
  plantMemo?: PlantMemo;
}

// Shares of the progress bar: generation is most of the work; the years and finance are quick
// but reported on their own.
const GENERATION_SHARE = 0.8;
const OPERATION_SHARE = 0.97;

/**
 * The one record of a calculation. Its fields are written by the stages in the list's order
 * (`market` and `load` by their prepare, the rest by their run) and read only after.
 */
export class EngineRun {
  market!: MarketModel;
  load!: PricedLoad | null;
  generation!: Generation;
  plant!: PlantYears;
  finance!: FinanceResult;
  rose!: WindRose | null;
  /** With options.plantMemo and a battery: this calculation's use of it (set by the hybrid stage). */
  memo: PlantMemoUse | null = null;
  readonly inputs: ResolvedInputs;
  readonly options: CalculateOptions;
  readonly report: ProgressReporter;

  constructor(inputs: ResolvedInputs, options: CalculateOptions) {
    this.inputs = inputs;
    this.options = options;
    this.report = options.onProgress ?? (() => {});
  }
}

/** One stage: what it makes of the inputs, of the hours, and of the finished statements. */
export interface Stage {
  name: string;
  prepare?: (run: EngineRun) => void;
  run?: (run: EngineRun) => void;
  kpis?: (run: EngineRun) => void;
}

/** The stages, in the order they run. */
export const STAGES: readonly Stage[] = [
  {
    name: 'market',
    prepare: (r) => {
      r.market = prepareMarket(r.inputs);
    },
  },
  {
    // Weather and per-MW generation profiles of every weather year (solar/, wind/, weather/).
    name: 'generation',
    run: (r) => {
      r.generation = generationProfiles(r.inputs, r.report, GENERATION_SHARE, r.options.cache, r.options.profileKeys);
    },
  },
  {
    // Degradation, the shared export limit and the operator's hourly limit (what it cut counted
    // for the curtailment payment); without a battery, the curtailment KPI.
    name: 'hybrid',
    run: (r) => {
      r.memo = r.options.plantMemo?.use(r.inputs, r.generation) ?? null;
      r.plant = hybridYears(r.inputs, r.generation, r.options.hourly, r.memo);
    },
    kpis: (r) => {
      if (!r.plant.storage) r.finance.kpis.curtailment_percent = curtailmentPercent(r.plant);
    },
  },
  {
    // The battery (storage/), dispatched on the market's prices or for the load.
    name: 'storage',
    run: (r) => batteryYears(r.inputs, r.generation, r.market, r.load, r.plant, r.options.hourly, r.memo),
    kpis: (r) => {
      const { storage, storageContext } = r.plant;
      if (!storage || !storageContext) return;
      const { battery, curtailedWithout, producedWithout } = storageContext;
      const ppaYear1 = r.finance.kpis.solved_ppa_price_per_mwh ?? r.market.ppaPrice;
      const kpis = storageKpis(battery, r.market, storage, curtailedWithout, producedWithout, ppaYear1);
      // With a load, its revenue is the load's, not the PPA-priced change of the export that
      // storage_revenue measures.
      const { storage_revenue, ...rest } = kpis;
      Object.assign(r.finance.kpis, r.load ? rest : { ...rest, storage_revenue });
    },
  },
  {
    // A buyer's load (load/): each hour served directly, from the battery, or not.
    name: 'load',
    prepare: (r) => {
      const hourly = r.options.hourly;
      if (hourly && r.inputs.load) hourly.load ??= loadBuffers();
      const model = prepareLoad(r.inputs, hourly?.load);
      // The prices its excess earns, once (after the market's prepare), for the battery and the load.
      r.load = model && { model, excessPrice: excessPriceHours(model, r.market, hourly?.load?.excessPrice) };
    },
    run: (r) => loadYears(r.load, r.plant, r.options.hourly),
    kpis: (r) => {
      if (!r.plant.load) return;
      Object.assign(r.finance.kpis, loadKpis(r.inputs, r.plant.load));
    },
  },
  {
    // The capacity credit (market/market.capacity.ts) of year 1's final hours, after the battery
    // and the load, and its KPI; the capacity payment of each year is the revenue stage's.
    name: 'capacity',
    run: (r) => capacityCredit(r.inputs, r.plant),
    kpis: (r) => {
      if (r.plant.capacity) r.finance.kpis.capacity_credit_percent = r.plant.capacity.percent;
    },
  },
  {
    // Each year's revenue (market/) with the capacity and curtailment payments (market.payments.ts),
    // energy and annual row; each finished year to `onYear`.
    name: 'revenue',
    run: (r) =>
      revenueYears(
        r.inputs,
        r.market,
        r.plant,
        { report: r.report, from: GENERATION_SHARE, to: OPERATION_SHARE },
        r.options.onYear,
      ),
  },
  {
    // The statements (finance/), at the given PPA price or the one solved for.
    name: 'finance',
    run: (r) => {
      const { inputs, plant } = r;
      const storage = plant.storage
        ? { dischargeMwh: plant.storage.discharge, replacements: plant.storage.run.replacements }
        : undefined;
      const l = plant.load;
      const load = l && { deliveredMwh: l.delivered, gridEnergyCost: l.gridEnergyCost, penalty: l.penalty };
      r.finance =
        inputs.market.ppa_price_per_mwh === 'solve'
          ? solvePpaPrice(inputs, revenueAtPrice(r.market, plant.marketYears), { ...plant.energy, storage })
          : financeModel(inputs, { revenue: plant.revenue, ...plant.energy, storage, ...(load ? { load } : {}) });
    },
  },
  {
    // The measured wind resource's rose (wind/), when there is one.
    name: 'wind rose',
    run: (r) => {
      // Counted by the generation when it read the resource's steps, else (a cached or supplied wind
      // profile, no wind farm) from the resource here.
      r.rose = r.generation.rose !== undefined ? r.generation.rose : resourceRose(r.inputs);
    },
  },
];
