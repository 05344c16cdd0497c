// #1: the engine alone, default scenario, in this process before anything else runs. Beside it,
// for context, what the worker's engine thread does after the engine: serializing the result
// (JSON with the hourly arrays, gzip, int32 kWh), which every figure that runs the worker pays too.
import { HOURS_PER_YEAR, YEARS } from '../shared/calendar.ts';
import type { ResolvedInputs } from '../shared/schemas/inputs.ts';
import { resolvedInputs } from '../test/fixtures/inputs.ts';
import { calculate as engine, type HourlyBuffers, loadReserveSolver } from '../worker/engine/index.ts';
import { serializeResult } from '../worker/result/index.ts';
import { median } from './stats.ts';
import type { Row } from './table.ts';

/**
 * How #1's rows get their hourly arrays: `reused`, one set written by every calculation, as the
 * worker's engine thread does (HourlyBuffers, worker/engine.thread.ts; since 2026-11-29); `fresh`,
 * new arrays each call (before; `npm run bench -- --fresh-hourly`).
 */
export type HourlyArrays = 'reused' | 'fresh';

/** What #1's rows say of their arrays. */
export const hourlyArraysText = (a: HourlyArrays): string =>
  a === 'reused' ? "hourly arrays reused, as the worker's engine thread does" : 'fresh hourly arrays each run';

export interface EngineFigures {
  /** How every row of #1 got its hourly arrays (all alike). */
  hourly: HourlyArrays;
  engineMs: number;
  /** The default scenario on PVWatts v5 (the default is v8), run beside #1 in the same loop. */
  v5Ms: number;
  /** The default scenario with its PPA price solved for a 10 % equity IRR (market + finance re-run). */
  solvedMs: number;
  serializeMs: number;
  /** The default scenario with a 100 MW / 400 MWh battery on arbitrage (25 years of dispatch and ageing). */
  batteryMs: number;
  /** That battery with two reserve products (regulation up and down) co-optimised with arbitrage. */
  reservesMs: number;
  reserveRuns: number;
  /** The same battery behind a 120 MW limit on an evening-peak price: one that works every day. */
  workingBatteryMs: number;
  /** The default scenario serving a flat 60 MW load with that battery on `load` dispatch (docs/load.md). */
  loadMs: number;
  /** The default scenario as a leveraged partnership flip with DSCR debt (docs/finance.md). */
  flipMs: number;
  /** The working battery's stored statements with the hourly arrays (the stored form), bytes. */
  batteryGzipBytes: number;
  runs: number;
  /** A real scenario's KPIs, as stored in `summary`, for seeding #10's list. */
  summaryJson: string;
}

/** Two reserve products on the arbitrage battery: regulation up and down, 1 h, a tenth deployed. */
export const RESERVE_PRODUCTS = [
  {
    name: 'reg_up',
    direction: 'up' as const,
    price_per_mw_hour: 9,
    duration_hours: 1,
    deployed_share: 0.1,
    escalation_percent: 0,
  },
  {
    name: 'reg_down',
    direction: 'down' as const,
    price_per_mw_hour: 6,
    duration_hours: 1,
    deployed_share: 0.1,
    escalation_percent: 0,
  },
];
/**
 * The reserve scenario's runs measured, and those before them in the warm-up (a fraction of a
 * second each since the certified path, issue 37).
 */
const RESERVE_RUNS = 6;
const RESERVE_WARMUP = 2;
await loadReserveSolver();

type Overrides = Parameters<typeof resolvedInputs>[0];

/** The cycling battery's row: behind a 120 MW limit, evening prices × 1.8 (overrides of the default scenario). */
export const CYCLING_BATTERY: Overrides = {
  grid: { export_limit_mw: 120 },
  market: { merchant_hour_of_day_multipliers: Array.from({ length: 24 }, (_, h) => (h >= 17 && h < 21 ? 1.8 : 1)) },
  storage: { power_mw: 100, energy_mwh: 400 },
};

/** The load row: a flat 60 MW load under an availability contract, the battery on `load` dispatch. */
export const LOAD_BATTERY: Overrides = {
  load: {
    flat_mw: 60,
    contract: {
      availability: [
        { period: 'year', min_percent: 90 },
        { period: 'month', min_percent: 80 },
      ],
    },
  },
  storage: { power_mw: 100, energy_mwh: 400, dispatch: { strategy: 'load' } },
};

export function measureEngine(warmup: number, runs: number, hourly: HourlyArrays = 'reused'): EngineFigures {
  // Every row alike: with `reused`, the engine thread's way (no profile cache or plant memo: each
  // run computes its weather and plant), so a result's arrays hold only until the next calculation.
  const buffers: HourlyBuffers | undefined =
    hourly === 'reused'
      ? { solar: new Float64Array(YEARS * HOURS_PER_YEAR), wind: new Float64Array(YEARS * HOURS_PER_YEAR) }
      : undefined;
  const calculate = (inputs: ResolvedInputs) => engine(inputs, { hourly: buffers });
  const inputs = resolvedInputs();
  const onV5 = resolvedInputs({ solar: { model: 'pvwatts_v5' } });
  const solving = resolvedInputs({
    market: { ppa_price_per_mwh: 'solve' },
    finance: { target_equity_irr_percent: 10 },
  });
  const battery = resolvedInputs({ storage: { power_mw: 100, energy_mwh: 400 } });
  const working = resolvedInputs(CYCLING_BATTERY);
  const serving = resolvedInputs(LOAD_BATTERY);
  const reserving = resolvedInputs({
    market: { ancillary: RESERVE_PRODUCTS },
    storage: { power_mw: 100, energy_mwh: 400 },
  });
  const flipping = resolvedInputs({ finance: { structure: 'leveraged_flip', debt: { sizing: 'dscr' } } });
  const flipRuns: number[] = [];
  const loadRuns: number[] = [];
  const workingRuns: number[] = [];
  const defaultRuns: number[] = [];
  const v5: number[] = [];
  const solved: number[] = [];
  const serialize: number[] = [];
  const withBattery: number[] = [];
  const withReserves: number[] = [];
  let batteryGzipBytes = 0;
  let summaryJson = '';
  for (let i = 0; i < warmup + runs; i++) {
    const t0 = performance.now();
    const result = calculate(inputs);
    summaryJson = JSON.stringify(result.kpis);
    const t1 = performance.now();
    serializeResult('01936f3e-0000-7000-8000-000000000042', result);
    const t2 = performance.now();
    calculate(solving);
    const t3 = performance.now();
    calculate(battery);
    const t4 = performance.now();
    const t5 = performance.now();
    const cycling = calculate(working);
    if (i >= warmup) workingRuns.push(performance.now() - t5);
    // The size of a battery that cycles daily (the default scenario's flat prices leave it mostly
    // idle), read before the next calculation writes over its arrays.
    batteryGzipBytes = serializeResult('01936f3e-0000-7000-8000-000000000043', cycling).statements_gzip?.length ?? 0;
    const t6 = performance.now();
    calculate(serving);
    if (i >= warmup) loadRuns.push(performance.now() - t6);
    const t7 = performance.now();
    calculate(onV5);
    if (i >= warmup) v5.push(performance.now() - t7);
    const t8 = performance.now();
    calculate(flipping);
    if (i >= warmup) flipRuns.push(performance.now() - t8);
    // Warmed up like the other rows, in the warm-up's last runs (until 2026-11-29 it ran only in the
    // first 3 runs after the warm-up, cold: its first run then paid for its compilation).
    if (i >= warmup - RESERVE_WARMUP && withReserves.length < RESERVE_RUNS) {
      const t9 = performance.now();
      calculate(reserving);
      if (i >= warmup) withReserves.push(performance.now() - t9);
    }
    if (i >= warmup) {
      defaultRuns.push(t1 - t0);
      serialize.push(t2 - t1);
      solved.push(t3 - t2);
      withBattery.push(t4 - t3);
    }
  }
  return {
    hourly,
    engineMs: median(defaultRuns),
    v5Ms: median(v5),
    solvedMs: median(solved),
    serializeMs: median(serialize),
    batteryMs: median(withBattery),
    reservesMs: median(withReserves),
    reserveRuns: withReserves.length,
    workingBatteryMs: median(workingRuns),
    loadMs: median(loadRuns),
    flipMs: median(flipRuns),
    batteryGzipBytes,
    runs,
    summaryJson,
  };
}

/** #1 on PVWatts v8 (the default) beside the same scenario on v5, measured in the same loop. */
export function modelRow(e: EngineFigures): Row {
  return {
    n: '1',
    figure: 'Engine, default scenario on PVWatts v8 (#1) against the same on v5',
    value: e.engineMs,
    unit: 'ms',
    baseline: { label: 'the same on v5', value: e.v5Ms },
    ratio: e.engineMs / e.v5Ms,
    target: '≤ 1.05 × v5',
    met: e.engineMs <= 1.05 * e.v5Ms,
  };
}

/** #1's battery rows: the engine with the battery beside the default engine, and its stored size. */
export function batteryRows(e: EngineFigures): Row[] {
  const mb = e.batteryGzipBytes / 1024 / 1024;
  const beside = (figure: string, value: number, target: string, met: boolean | null): Row => ({
    n: '1',
    figure,
    value,
    unit: 'ms',
    baseline: { label: 'engine (#1)', value: e.engineMs },
    ratio: value / e.engineMs,
    target,
    met,
  });
  return [
    beside(
      'Engine, the same with a 100 MW / 400 MWh battery on arbitrage (25 years dispatched and aged)',
      e.batteryMs,
      '≤ #1 + 25 ms',
      e.batteryMs <= e.engineMs + 25,
    ),
    {
      n: '1',
      figure: `Engine, that battery with two reserve products co-optimised with arbitrage (an LP a day: a kept basis certified, else HiGHS; ${e.reserveRuns} runs)`,
      value: e.reservesMs,
      unit: 'ms',
      baseline: { label: 'the battery on arbitrage', value: e.batteryMs },
      ratio: e.reservesMs / e.batteryMs,
      target: '≤ 2 × the battery on arbitrage',
      met: e.reservesMs <= 2 * e.batteryMs,
    },
    beside(
      'Engine, that battery behind a 120 MW limit on an evening-peak price (it cycles daily)',
      e.workingBatteryMs,
      'context',
      null,
    ),
    beside(
      'Engine, the default plant serving a flat 60 MW load (two thresholds), that battery on `load` dispatch',
      e.loadMs,
      '≤ #1 + 25 ms',
      e.loadMs <= e.engineMs + 25,
    ),
    {
      n: '1',
      figure: 'Stored statements with the battery that cycles daily (the stored form: hourly integers, deflated)',
      value: mb,
      unit: 'MB',
      target: '≤ 1.6 MB',
      met: mb <= 1.6,
    },
  ];
}

/** #1 as a leveraged partnership flip (the parties' split and the investor's IRR year by year) beside #1. */
export function flipRow(e: EngineFigures): Row {
  return {
    n: '1',
    figure: 'Engine, the default scenario as a leveraged partnership flip (DSCR debt)',
    value: e.flipMs,
    unit: 'ms',
    baseline: { label: 'engine (#1)', value: e.engineMs },
    ratio: e.flipMs / e.engineMs,
    target: '≤ #1 + 10 ms',
    met: e.flipMs <= e.engineMs + 10,
  };
}
