// The names of the User Timing entries the pages leave (performance.measure), for anyone who
// reads them through the browser's standard API (bench #13 does, with getEntriesByName). Plain
// strings, no DOM: Node code may import this file.

/** One year's heatmap: its data's arrival → painted. Its detail: { year, technology }. */
export const HEATMAP_PAINTED = 'hourglass:heatmap-painted';
/** The sweep page's results table sorted and put in the DOM. Its detail: { rows, key }. */
export const SWEEP_TABLE_SORTED = 'hourglass:sweep-table-sorted';
