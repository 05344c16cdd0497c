// The one way the engine compounds a yearly rate: prices, costs, growth and degradation of
// operating year `year`, counted from 1 (year 1 is the base, factor 1).

/**
 * What a year-1 amount is multiplied by in operating year `year` (1-based) when it changes by
 * `rate` a year, compounded (0.025 = +2.5 %/yr; a decline is a negative rate).
 */
export function escalation(rate: number, year: number): number {
  return (1 + rate) ** (year - 1);
}
