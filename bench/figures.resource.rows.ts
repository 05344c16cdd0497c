// #20's rows in the bench table.
import { measureResource } from './figures.resource.ts';
import type { Row } from './table.ts';

export function resourceRows(warmup: number, runs: number): Row[] {
  const r = measureResource(warmup, runs);
  const samCsv = { label: `SAM CSV TMY2 (${r.samCsvMb.toFixed(2)} MB)`, value: r.samCsvMs };
  const wakeExtra = r.simpleWakeMs - r.constantWakeMs;
  const file = (figure: string, ms: number): Row => ({
    n: '20',
    figure,
    value: ms,
    unit: 'ms',
    baseline: samCsv,
    ratio: ms / r.samCsvMs,
    target: '≤ 30 ms',
    met: ms <= 30,
  });
  return [
    file(
      `SRW file (${r.srwMb.toFixed(2)} MB, 4 heights) read, hub-height hours prepared, median (${runs} runs)`,
      r.srwMs,
    ),
    file(`EPW file (${r.epwMb.toFixed(2)} MB) read, weather year prepared, median (${runs} runs)`, r.epwMs),
    {
      n: '20',
      figure: `Engine, ${r.turbines} turbines laid out, simple wake model, 25 years: extra over the flat wake %`,
      value: wakeExtra,
      unit: 'ms',
      baseline: { label: 'the same, constant wake', value: r.constantWakeMs },
      ratio: r.simpleWakeMs / r.constantWakeMs,
      target: '≤ +40 ms',
      met: wakeExtra <= 40,
    },
  ];
}
