// Which revenue lines a scenario's statements carry (plain data, no DOM: the revenue stack draws
// them, a test reads them).

/** The revenue lines of each year that are not 0 in some year, in the statements' order. */
export function revenueLines(years: ReadonlyArray<{ revenue: Record<string, number> }>): string[] {
  const names: string[] = [];
  for (const y of years) {
    for (const [name, v] of Object.entries(y.revenue)) {
      if (name !== 'total' && typeof v === 'number' && v !== 0 && !names.includes(name)) names.push(name);
    }
  }
  return names;
}
