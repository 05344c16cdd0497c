// How many decimals of MWh the hourly arrays carry. One kWh (3 decimals) is plenty for a utility
// plant and keeps the fast hand-made encoder; a small system needs more: a 4 kW rooftop array's
// hours are a few kWh each, and rounding them to 1 kWh moved its annual sum by ~0.6 %.
//
// The rule bounds the worst case, not a sample: rounding to d decimals moves each hour by at most
// ½·10^−d MWh, so a year of n hours by at most n·½·10^−d. The decimals are the fewest (3 to 9) for
// which that bound is within 0.025 % of each technology's first-year energy: any later year that
// delivers at least half as much then stays within the 0.05 % the answers promise. They are
// decided on the first year and kept for every year of the scenario (its rows share one form).

export const MIN_DECIMALS = 3;
const MAX_DECIMALS = 9;
/** The bound's share of the first year's energy: half the promised 0.05 %. */
const SHARE = 2.5e-4;

function decimalsFor(values: Float64Array): number {
  let energy = 0;
  for (let i = 0; i < values.length; i++) energy += values[i];
  if (!(energy > 0)) return MIN_DECIMALS;
  // n·½·10^−d ≤ SHARE·energy  ⇔  10^d ≥ n / (2·SHARE·energy)
  const d = Math.ceil(Math.log10(values.length / (2 * SHARE * energy)));
  return Math.min(MAX_DECIMALS, Math.max(MIN_DECIMALS, d));
}

/** The decimals of MWh for a scenario whose first year delivers these hourly values (each technology's). */
export function hourlyDecimals(...technologies: Float64Array[]): number {
  return Math.max(...technologies.map(decimalsFor));
}
