// Same-run A/B of bench #1's reserve row (bench/figures.engine.ts): the arbitrage battery and the same
// battery with the two reserve products, with two checkouts' engines loaded into this process and
// run in alternating rounds; engine-thread CPU (process.threadCpuUsage, less moved by other
// processes than wall time on a busy host) and wall, medians over the rounds, and each round's
// reserve ÷ arbitrage ratio. The equity NPVs of the reserve scenario are printed to compare.
// Usage: node bench/reserve.row.ab.ts <base checkout> <other checkout> [rounds=10]
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { resolvedInputs } from '../test/fixtures/inputs.ts';
import { RESERVE_PRODUCTS } from './figures.engine.ts';
import { median } from './stats.ts';

const args = process.argv.slice(2);
const roots = args.filter((a) => !/^\d+$/.test(a));
const [rounds = 10] = args.filter((a) => /^\d+$/.test(a)).map(Number);
if (roots.length !== 2) throw new Error('usage: node bench/reserve.row.ab.ts <base> <other> [rounds]');
type Calculate = (inputs: unknown) => { kpis: { equity_npv: number } };
const engines: Calculate[] = [];
for (const root of roots) {
  const engine = await import(pathToFileURL(resolve(root, 'worker/engine/index.ts')).href);
  await engine.loadReserveSolver();
  engines.push(engine.calculate);
}
const battery = resolvedInputs({ storage: { power_mw: 100, energy_mwh: 400 } });
const reserving = resolvedInputs({
  market: { ancillary: RESERVE_PRODUCTS },
  storage: { power_mw: 100, energy_mwh: 400 },
});
const sides = engines.map(() => ({
  cpu: { b: [] as number[], r: [] as number[] },
  wall: { b: [] as number[], r: [] as number[] },
  npv: 0,
}));
const timed = (calculate: Calculate, inputs: unknown) => {
  const c0 = process.threadCpuUsage();
  const w0 = performance.now();
  const result = calculate(inputs);
  const wall = performance.now() - w0;
  const c = process.threadCpuUsage(c0);
  return { cpu: (c.user + c.system) / 1000, wall, result };
};
for (let round = -2; round < rounds; round++) {
  for (let e = 0; e < engines.length; e++) {
    const side = round % 2 === 0 ? e : engines.length - 1 - e;
    const b = timed(engines[side], battery);
    const r = timed(engines[side], reserving);
    sides[side].npv = r.result.kpis.equity_npv;
    if (round < 0) continue;
    sides[side].cpu.b.push(b.cpu);
    sides[side].cpu.r.push(r.cpu);
    sides[side].wall.b.push(b.wall);
    sides[side].wall.r.push(r.wall);
  }
}
const m = (a: number[]) => Number(median(a).toFixed(2));
for (let e = 0; e < engines.length; e++) {
  const { cpu, wall, npv } = sides[e];
  console.log(
    JSON.stringify({
      checkout: roots[e],
      cpuMs: { battery: m(cpu.b), reserves: m(cpu.r), ratioOfMedians: m([median(cpu.r) / median(cpu.b)]) },
      cpuRatioByRound: m(cpu.r.map((v, i) => v / cpu.b[i])),
      wallMs: { battery: m(wall.b), reserves: m(wall.r), ratioOfMedians: m([median(wall.r) / median(wall.b)]) },
      wallRatioByRound: m(wall.r.map((v, i) => v / wall.b[i])),
      reserveEquityNpv: npv,
    }),
  );
}
console.log(`reserve NPV, relative difference: ${Math.abs(sides[0].npv - sides[1].npv) / Math.abs(sides[0].npv)}`);
