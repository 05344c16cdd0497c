// The wake year alone, A/B: `windStepsYear` of SSC's 80-turbine AZ farm (simple wakes) on the SRW
// file, with two checkouts' wind models loaded into this process and run in alternating rounds
// (the order flipped every round); engine-thread CPU per year (a block of `block` years in a row,
// divided: this host counts thread CPU in 4 ms ticks), medians over the rounds. Also: how many of
// the year's hours differ between the two, and by how much at most (relatively).
// A checkout may be a copy of worker/engine/wind/ alone (with a part taken out, to time it).
// Usage: node bench/wake.year.ts <base checkout> <other checkout> [rounds=20] [block=5]
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { srwHubSteps } from '../shared/weather/srw.hub.ts';
import { parseSrw } from '../shared/weather/srw.ts';
import { azFarmScenario } from './figures.resource.ts';
import { alternated, checkoutsAndCounts, median } from './stats.ts';

const {
  roots,
  counts: [rounds, block],
} = checkoutsAndCounts('node bench/wake.year.ts <base> <other> [rounds] [block]', [20, 5]);
const srw = readFileSync(new URL('../test/fixtures/reference/az_eastern_rolling_hills.srw', import.meta.url), 'utf8');
const steps = srwHubSteps(parseSrw(srw), 80, 0.14);
const inputs = azFarmScenario('simple');
type Wind = typeof import('../worker/engine/wind/wind.ts');
const models: Wind[] = [];
for (const root of roots) models.push(await import(pathToFileURL(resolve(root, 'worker/engine/wind/wind.ts')).href));
const outs = models.map(() => new Float64Array(8760));
const year = (e: number) => {
  const model = models[e].prepareWind(inputs);
  if (!model) throw new Error('no wind model');
  models[e].windStepsYear(model, steps, outs[e], false);
};
for (let e = 0; e < models.length; e++) year(e);
let differ = 0;
let worst = 0;
for (let h = 0; h < 8760; h++) {
  const [a, b] = [outs[0][h], outs[1][h]];
  if (a === b) continue;
  differ++;
  worst = Math.max(worst, Math.abs(a - b) / Math.abs(a));
}
console.log(JSON.stringify({ hoursDiffer: differ, maxRel: worst }));
const cpu = alternated(models.length, ['year'], year, { rounds, block }).map((t) => t.cpu.year);
console.log(
  JSON.stringify({
    yearCpuMs: Object.fromEntries(roots.map((r, e) => [r, Number(median(cpu[e]).toFixed(2))])),
    otherOverBase: (median(cpu[1]) / median(cpu[0])).toFixed(3),
  }),
);
