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
import { alternated, checkoutsAndCounts, median } from './stats.ts';

const {
  roots,
  counts: [rounds],
} = checkoutsAndCounts('node bench/reserve.row.ab.ts <base> <other> [rounds]', [10]);
type Calculate = (inputs: unknown) => { kpis: { equity_npv: number } };
const engines: Calculate[] = [];
for (const root of roots) {
  const engine = await import(pathToFileURL(resolve(root, 'worker/engine/index.ts')).href);
  await engine.loadReserveSolver();
  engines.push(engine.calculate);
}
const rows = {
  battery: resolvedInputs({ storage: { power_mw: 100, energy_mwh: 400 } }),
  reserves: resolvedInputs({ market: { ancillary: RESERVE_PRODUCTS }, storage: { power_mw: 100, energy_mwh: 400 } }),
};
type Name = keyof typeof rows;
/** Each checkout's equity NPV of the reserve scenario, from its last run. */
const npvs = engines.map(() => 0);
const times = alternated(
  engines.length,
  Object.keys(rows) as Name[],
  (side, name) => {
    const result = engines[side](rows[name]);
    if (name === 'reserves') npvs[side] = result.kpis.equity_npv;
  },
  { rounds, warmups: 2 },
);
const m = (a: number[]) => Number(median(a).toFixed(2));
for (let e = 0; e < engines.length; e++) {
  const { cpu, wall } = times[e];
  console.log(
    JSON.stringify({
      checkout: roots[e],
      cpuMs: {
        battery: m(cpu.battery),
        reserves: m(cpu.reserves),
        ratioOfMedians: m([median(cpu.reserves) / median(cpu.battery)]),
      },
      cpuRatioByRound: m(cpu.reserves.map((v, i) => v / cpu.battery[i])),
      wallMs: {
        battery: m(wall.battery),
        reserves: m(wall.reserves),
        ratioOfMedians: m([median(wall.reserves) / median(wall.battery)]),
      },
      wallRatioByRound: m(wall.reserves.map((v, i) => v / wall.battery[i])),
      reserveEquityNpv: npvs[e],
    }),
  );
}
console.log(`reserve NPV, relative difference: ${Math.abs(npvs[0] - npvs[1]) / Math.abs(npvs[0])}`);
