// Which revenue lines a scenario's statements carry (plain data, no DOM: the revenue stack draws
// them, a test reads them). A line is a number of the year's revenue, or one of a group of lines
// by name (`ancillary`: a line per product), named `group.name`.

/** A year's revenue lines as the statements give them: numbers, and groups of numbers by name. */
export type RevenueOfYear = Record<string, number | Record<string, number> | undefined>;

/** The revenue lines of each year that are not 0 in some year, in the statements' order. */
export function revenueLines(years: ReadonlyArray<{ revenue: RevenueOfYear }>): string[] {
  const names: string[] = [];
  const add = (name: string, v: unknown) => {
    if (typeof v === 'number' && v !== 0 && !names.includes(name)) names.push(name);
  };
  for (const y of years) {
    for (const [name, v] of Object.entries(y.revenue)) {
      if (name === 'total') continue;
      if (typeof v === 'object' && v !== null) for (const [part, x] of Object.entries(v)) add(`${name}.${part}`, x);
      else add(name, v);
    }
  }
  return names;
}

/** A line's value in a year's revenue (0 when the year has no such line). */
export function revenueLine(revenue: RevenueOfYear, name: string): number {
  const dot = name.indexOf('.');
  const v =
    dot < 0
      ? revenue[name]
      : (revenue[name.slice(0, dot)] as Record<string, number> | undefined)?.[name.slice(dot + 1)];
  return typeof v === 'number' ? v : 0;
}
