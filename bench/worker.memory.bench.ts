// The worker's engine pool alone, in this process, draining variants that reuse nothing (a latitude
// sweep) or everything (capacities): its peak resident memory (VmHWM) and the engine's time per
// variant, so that heap limits, flags and the profile cache can be compared without Postgres.
// Run it with the worker's flags, or others, to compare:
//   node $(node -p "require('./package.json').scripts.worker.split(' ').filter(w => w.startsWith('--')).join(' ')") bench/worker.memory.bench.ts
//   node bench/worker.memory.bench.ts --variants=200 --cache-mb=32 --concurrency=1 --reuse
import { readFileSync } from 'node:fs';
import { Value } from '@sinclair/typebox/value';
import { resolveInputs } from '../shared/inputs.resolve.ts';
import { ScenarioInputs } from '../shared/schemas/inputs.ts';
import { EnginePool, THREAD_HEAPS } from '../worker/engine.pool.ts';
import { median } from './stats.ts';

const arg = (name: string, fallback: number) =>
  Number(process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? fallback);
const variants = arg('variants', 200);
const cacheMb = arg('cache-mb', 32);
const concurrency = arg('concurrency', 1);
const reuse = process.argv.includes('--reuse');

const hwmMb = () => Number(/^VmHWM:\s+(\d+)/m.exec(readFileSync('/proc/self/status', 'utf8'))?.[1]) / 1024;
const rssMb = () => Number(/^VmRSS:\s+(\d+)/m.exec(readFileSync('/proc/self/status', 'utf8'))?.[1]) / 1024;

function inputsOf(i: number) {
  const site = { latitude: reuse ? 35.2 : 25 + (20 * i) / variants, longitude: -101.8 };
  const raw = reuse
    ? {
        name: `v${i}`,
        site,
        seed: 7,
        solar: { capacity_mw_dc: 50 + (i % 5) * 50 },
        grid: { export_limit_mw: 100 + (i % 10) * 20 },
      }
    : { name: `v${i}`, site, seed: 7 };
  const id = `00000000-0000-7000-8000-${String(i).padStart(12, '0')}`;
  return {
    id,
    inputs: resolveInputs(Value.Default(ScenarioInputs, raw) as ScenarioInputs, { scenarioId: id, now: new Date(0) }),
  };
}

const young = (name: string) =>
  process.argv.some((a) => a.startsWith(`--${name}=`)) ? { maxYoungGenerationSizeMb: arg(name, 0) } : undefined;
const heaps = {
  engine: young('engine-young-mb') ?? THREAD_HEAPS.engine,
  result: young('result-young-mb') ?? THREAD_HEAPS.result,
};
const pool = new EnginePool({ size: concurrency, cacheMb, heaps });
pool.prestart();
await new Promise((r) => setTimeout(r, 1500));
const idle = rssMb();
const engineMs: number[] = [];
const t0 = performance.now();
const cpu0 = process.cpuUsage();
let next = 0;
async function lane(): Promise<void> {
  while (next < variants) {
    const { id, inputs } = inputsOf(next++);
    const lease = await pool.acquire(undefined, 'variant');
    const out = await lease.run(id, inputs, { onProgress: () => {}, signal: undefined, keepHourly: false });
    if (!out.ok) throw new Error(`${out.code}: ${out.message}`);
    engineMs.push(out.engineMs);
  }
}
await Promise.all(Array.from({ length: concurrency + 1 }, lane));
const seconds = (performance.now() - t0) / 1000;
const cpu = process.cpuUsage(cpu0);
console.log(
  JSON.stringify({
    flags: process.execArgv.join(' '),
    variants,
    reuse,
    cacheMb,
    heaps,
    concurrency,
    idleRssMb: Math.round(idle),
    peakRssMb: Math.round(hwmMb()),
    engineMsMedian: Number(median(engineMs).toFixed(1)),
    perSecond: Number((variants / seconds).toFixed(1)),
    // Every thread's CPU (engine, result, main, GC helpers) per variant: robust to a busy machine.
    cpuMsPerVariant: Number(((cpu.user + cpu.system) / 1000 / variants).toFixed(1)),
  }),
);
await pool.close();
