// How long the engine takes for one scenario (25 years × 8,760 hours and the
// statements), single-threaded: the default synthetic scenario (PVWatts v8), the same on
// PVWatts v5 in alternation with it, and a SAM CSV (Phoenix TMY2) scenario. Beside them, a baseline measured in the same run:
// one pass that writes and sums the two 25 × 8,760 hourly arrays, the least
// any engine must do. Then where the default scenario's time goes, by stage.
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import type { ResolvedInputs } from '../shared/schemas/inputs.ts';
import type { RevenueLines } from '../shared/schemas/result.ts';
import type { WeatherYear } from '../shared/weather/types.ts';
import { resolvedInputs } from '../test/fixtures/inputs.ts';
import { financeModel } from '../worker/engine/finance/finance.ts';
import { calculate } from '../worker/engine/index.ts';
import { emptyMarketYear, marketYear, prepareMarket } from '../worker/engine/market/market.ts';
import { degradationFactor, hybridYear } from '../worker/engine/plant/hybrid.ts';
import { prepareSolar, solarYear } from '../worker/engine/solar/solar.ts';
import { prepareSolarV8, solarV8Year } from '../worker/engine/solar/solar.v8.ts';
import { syntheticYear } from '../worker/engine/weather/weather.synthetic.ts';
import { prepareWind, windYear } from '../worker/engine/wind/wind.ts';

const WARMUP = 5;
const RUNS = 30;
const YEARS = 25;
const HOURS = 8760;

interface Stats {
  median: number;
  p10: number;
  p90: number;
  min: number;
}

function stats(samples: number[]): Stats {
  const s = [...samples].sort((a, b) => a - b);
  const at = (q: number) => s[Math.min(s.length - 1, Math.round(q * (s.length - 1)))];
  return { median: at(0.5), p10: at(0.1), p90: at(0.9), min: s[0] };
}

function time(fn: () => void): Stats {
  for (let i = 0; i < WARMUP; i++) fn();
  const samples: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const t0 = performance.now();
    fn();
    samples.push(performance.now() - t0);
  }
  return stats(samples);
}

/** Two functions timed in alternation. */
function timePair(a: () => void, b: () => void): [Stats, Stats] {
  for (let i = 0; i < WARMUP; i++) {
    a();
    b();
  }
  const sa: number[] = [];
  const sb: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    let t0 = performance.now();
    a();
    sa.push(performance.now() - t0);
    t0 = performance.now();
    b();
    sb.push(performance.now() - t0);
  }
  return [stats(sa), stats(sb)];
}

// Written to a module variable so the optimizer cannot drop the loop.
export let sink = 0;
function baseline(): void {
  const a = new Float64Array(YEARS * HOURS);
  const b = new Float64Array(YEARS * HOURS);
  let s = 0;
  for (let i = 0; i < a.length; i++) {
    a[i] = i & 7;
    b[i] = i & 3;
    s += a[i] + b[i];
  }
  sink += s;
}

/** The engine's steps for the default scenario, each timed on its own. */
function stageTimes(inputs: ResolvedInputs): Record<string, number> {
  const ms: Record<string, number> = { weather: 0, solar: 0, wind: 0, 'hybrid+market': 0, finance: 0 };
  let t = performance.now();
  const lap = (stage: string) => {
    const now = performance.now();
    ms[stage] += now - t;
    t = now;
  };
  const v5 = inputs.solar.model === 'pvwatts_v5';
  const solar = v5 ? prepareSolar(inputs) : null;
  const solarV8 = v5 ? null : prepareSolarV8(inputs, inputs.solar.capacity_mw_dc * 1000);
  const wind = prepareWind(inputs);
  const market = prepareMarket(inputs);
  lap('solar');
  const solarBase = new Float64Array(HOURS);
  const windBase = new Float64Array(HOURS);
  const solarOut = new Float64Array(HOURS);
  const windOut = new Float64Array(HOURS);
  const out = emptyMarketYear();
  const revenue: RevenueLines[] = [];
  const delivered: number[] = [];
  const solarDelivered: number[] = [];
  const windDelivered: number[] = [];
  let weather: WeatherYear | undefined;
  lap('hybrid+market');
  for (let i = 0; i < YEARS; i++) {
    weather = syntheticYear(inputs, i, weather);
    lap('weather');
    if (solar) solarYear(solar, weather, solarBase);
    if (solarV8) solarV8Year(solarV8, weather, solarBase);
    lap('solar');
    if (wind) windYear(wind, weather, windBase);
    lap('wind');
    const year = i + 1;
    const limit = inputs.grid.export_limit_mw ?? Number.POSITIVE_INFINITY;
    const sf = degradationFactor(inputs.solar.degradation_percent_per_year, year);
    const wf = degradationFactor(inputs.wind.degradation_percent_per_year, year);
    hybridYear(solarBase, windBase, sf, wf, limit, solarOut, windOut);
    const m = marketYear(market, year, solarOut, windOut, out);
    revenue.push({ ...m.revenue });
    delivered.push(m.solarMwh + m.windMwh);
    solarDelivered.push(m.solarMwh);
    windDelivered.push(m.windMwh);
    lap('hybrid+market');
  }
  financeModel(inputs, { revenue, deliveredMwh: delivered, solarMwh: solarDelivered, windMwh: windDelivered });
  lap('finance');
  return ms;
}

const fmt = (x: number) => x.toFixed(2).padStart(8);
const row = (name: string, s: Stats) => `${name.padEnd(28)}${fmt(s.median)}${fmt(s.p10)}${fmt(s.p90)}${fmt(s.min)}`;

const defaults = resolvedInputs();
const phoenix = resolvedInputs({
  site: { latitude: 33.43, longitude: -112.02, elevation_m: 339, timezone_offset_hours: -7 },
  weather: {
    source: 'sam_csv',
    text: readFileSync(new URL('../test/fixtures/reference/phoenix_az_tmy2.csv', import.meta.url), 'utf8'),
  },
});

console.log(`engine bench: ${RUNS} runs after ${WARMUP} warm-up runs, ms (Node ${process.version})\n`);
console.log(`${'case'.padEnd(28)}${'median'.padStart(8)}${'p10'.padStart(8)}${'p90'.padStart(8)}${'min'.padStart(8)}`);
console.log(row('baseline: 2 × 25 × 8760 pass', time(baseline)));
const onV5 = resolvedInputs({ solar: { model: 'pvwatts_v5' } });
// v8 (the default) and v5 alternate run by run, so that a busy machine weighs on both alike.
const [main, v5] = timePair(
  () => calculate(defaults),
  () => calculate(onV5),
);
console.log(row('default (synthetic, 25 y)', main));
console.log(row('default on PVWatts v5', v5));
console.log(`PVWatts v8 / v5: ${(main.median / v5.median).toFixed(3)} (target ≤ 1.05)`);
console.log(
  row(
    'Phoenix SAM CSV (1 y × 25)',
    time(() => calculate(phoenix)),
  ),
);

for (let i = 0; i < WARMUP; i++) stageTimes(defaults);
const total: Record<string, number> = {};
for (let i = 0; i < RUNS; i++) {
  for (const [stage, ms] of Object.entries(stageTimes(defaults))) total[stage] = (total[stage] ?? 0) + ms;
}
const all = Object.values(total).reduce((a, b) => a + b, 0);
console.log('\ndefault scenario by stage (each timed on its own)');
for (const [stage, ms] of Object.entries(total)) {
  console.log(`${stage.padEnd(28)}${fmt(ms / RUNS)} ms ${((100 * ms) / all).toFixed(1).padStart(5)} %`);
}
console.log(`\ntarget: default median ≤ 70 ms: ${main.median <= 70 ? 'met' : 'NOT met'}`);
