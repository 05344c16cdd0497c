// The wind rose of a scenario's wind resource at hub height: how often the wind comes from each of
// 16 sectors at each speed, and its mean speed per sector, over every step of every resource
// year. Computed from the parsed files (not from the generation profiles), so a cached profile
// gives the same rose: parsing is deterministic.
import type { WindRose } from '../../../shared/schemas/result.ts';
import type { WindSteps } from '../../../shared/weather/types.ts';

export const ROSE_SECTORS = 16;
/** Lower edges of the speed bins, m/s; the last bin is open above. */
export const ROSE_SPEED_BINS_MS = [0, 3, 6, 9, 12, 15];
const SECTOR_DEG = 360 / ROSE_SECTORS;

/** The sector a direction (degrees clockwise from north, the wind's origin) falls in; sector 0 is centred on north. */
export function roseSector(directionDeg: number): number {
  const d = (((directionDeg + SECTOR_DEG / 2) % 360) + 360) % 360;
  return Math.min(ROSE_SECTORS - 1, Math.floor(d / SECTOR_DEG));
}

function speedBin(speedMs: number): number {
  let bin = 0;
  while (bin + 1 < ROSE_SPEED_BINS_MS.length && speedMs >= ROSE_SPEED_BINS_MS[bin + 1]) bin++;
  return bin;
}

/** Counts one year's steps into `counts` (sector × bin) and `speedSums` (sector); false without directions. */
function countSteps(steps: WindSteps, counts: number[][], speedSums: number[]): boolean {
  const dir = steps.directionDeg;
  if (!dir) return false;
  for (let i = 0; i < steps.speedMs.length; i++) {
    const s = roseSector(dir[i]);
    counts[s][speedBin(steps.speedMs[i])]++;
    speedSums[s] += steps.speedMs[i];
  }
  return true;
}

/** A rose counted year by year, for a caller that has each year's steps at hand (windRose's counting). */
export class RoseCounts {
  readonly #counts = Array.from({ length: ROSE_SECTORS }, () => ROSE_SPEED_BINS_MS.map(() => 0));
  readonly #speedSums = new Array<number>(ROSE_SECTORS).fill(0);
  /** False once a year without directions was added: no rose. */
  complete = true;

  add(steps: WindSteps): void {
    if (this.complete && !countSteps(steps, this.#counts, this.#speedSums)) this.complete = false;
  }

  rose(hubHeightM: number): WindRose | null {
    if (!this.complete) return null;
    const counts = this.#counts;
    const total = counts.reduce((sum, row) => sum + row.reduce((a, b) => a + b, 0), 0);
    if (total === 0) return null;
    return {
      hub_height_m: hubHeightM,
      sectors: ROSE_SECTORS,
      speed_bins_ms: [...ROSE_SPEED_BINS_MS],
      frequency: counts.map((row) => row.map((n) => n / total)),
      mean_speed_ms: counts.map((row, s) => {
        const n = row.reduce((a, b) => a + b, 0);
        return n > 0 ? this.#speedSums[s] / n : null;
      }),
    };
  }
}

/**
 * The rose of a wind resource's `years` files (`stepsOf(i)`: year i's steps at hub height), or
 * null without one (`years` null) or when a file has no direction.
 */
export function windRose(hubHeightM: number, years: number | null, stepsOf: (i: number) => WindSteps): WindRose | null {
  if (years === null) return null;
  const rose = new RoseCounts();
  for (let i = 0; i < years && rose.complete; i++) rose.add(stepsOf(i));
  return rose.rose(hubHeightM);
}
