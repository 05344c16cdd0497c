// #12's battery sweep (bench/figures.sweeps.ts `batteryStudy`) in one process, as an engine thread
// runs its variants (a profile cache, reused hourly arrays, and a PlantMemo where the checkout has
// one), against the default scenario alone (#1), which is run after every block of 10 variants.
// Given two checkouts, both engines are loaded into this process and run in alternating blocks, so
// a busy host slows both alike; CPU time (process.cpuUsage) beside wall time.
// Usage: node bench/sweep.battery.bench.ts <checkout> [<other checkout>] [variants=100] [rounds=3]
//   e.g. node bench/sweep.battery.bench.ts /work/wt/base . 100 3   (base first: ratios are the second ÷ the first)
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { resolvedInputs } from '../test/fixtures/inputs.ts';
import { batteryStudy } from './figures.sweeps.ts';
import { median } from './stats.ts';

const args = process.argv.slice(2);
const roots = args.filter((a) => !/^\d+$/.test(a));
const [n = 100, rounds = 3] = args.filter((a) => /^\d+$/.test(a)).map(Number);
if (roots.length === 0) throw new Error('usage: node bench/sweep.battery.bench.ts <checkout> [<other>] [n] [rounds]');
const BLOCK = 10;
const HOURS = 25 * 8760;

async function side(root: string) {
  const at = (path: string) => pathToFileURL(resolve(root, path)).href;
  const engine = await import(at('worker/engine/index.ts'));
  const { LruProfileCache } = await import(at('worker/profile.cache.ts'));
  const calculate: (inputs: unknown, options?: unknown) => unknown = engine.calculate;
  const options = {
    cache: new LruProfileCache(64 * 2 ** 20),
    hourly: { solar: new Float64Array(HOURS), wind: new Float64Array(HOURS) },
    ...(engine.PlantMemo ? { plantMemo: new engine.PlantMemo() } : {}),
  };
  return { root, calculate, options, memo: Boolean(engine.PlantMemo) };
}

const sides = [];
for (const root of roots) sides.push(await side(root));
const study = batteryStudy(n);
const variants: unknown[] = [];
for (const power of study.vary[0].values) {
  for (const energy of study.vary[1].values) {
    variants.push(resolvedInputs({ ...study.base, storage: { power_mw: power, energy_mwh: energy } }));
  }
}
const single = resolvedInputs();
const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
const totals = sides.map(() => ({ wall: 0, cpu: 0, n: 0, singleWall: [] as number[], singleCpu: [] as number[] }));
for (const s of sides) {
  for (let i = 0; i < 3; i++) {
    s.calculate(single);
    s.calculate(variants[i], s.options);
  }
}
for (let r = 0; r < rounds; r++) {
  for (let k = 0; k < variants.length; k += BLOCK) {
    const block = variants.slice(k, k + BLOCK);
    for (let j = 0; j < sides.length; j++) {
      // Which side goes first alternates from block to block.
      const i = (r + k / BLOCK) % 2 === 0 ? j : sides.length - 1 - j;
      const s = sides[i];
      const t = totals[i];
      let w0 = performance.now();
      let c0 = cpuMs();
      for (const v of block) s.calculate(v, s.options);
      t.wall += performance.now() - w0;
      t.cpu += cpuMs() - c0;
      t.n += block.length;
      w0 = performance.now();
      c0 = cpuMs();
      s.calculate(single);
      t.singleWall.push(performance.now() - w0);
      t.singleCpu.push(cpuMs() - c0);
    }
  }
}
const round = (x: number) => Math.round(x * 1000) / 1000;
const figures = sides.map((s, i) => {
  const t = totals[i];
  const variantWall = t.wall / t.n;
  const variantCpu = t.cpu / t.n;
  return {
    checkout: s.root,
    plantMemo: s.memo,
    variants: t.n,
    variantWallMs: round(variantWall),
    variantCpuMs: round(variantCpu),
    singleWallMs: round(median(t.singleWall)),
    singleCpuMs: round(median(t.singleCpu)),
    variantOverSingleWall: round(variantWall / median(t.singleWall)),
    variantOverSingleCpu: round(variantCpu / median(t.singleCpu)),
  };
});
for (const f of figures) console.log(JSON.stringify(f));
if (figures.length === 2) {
  const [a, b] = figures;
  console.log(
    `second ÷ first, per variant: wall ${round(b.variantWallMs / a.variantWallMs)}, CPU ${round(b.variantCpuMs / a.variantCpuMs)}`,
  );
}
