// The LISTEN/NOTIFY channel names. A sweep's is also spelled by its trigger (sql/0005_sweeps.sql).

/** The channel of one scenario's events: NOTIFYd with the new seq by every statement that appends one. */
export const scenarioChannel = (id: string): string => `scenario_${id.replaceAll('-', '').toLowerCase()}`;

/** The channel of one sweep's events (written by sql/0005_sweeps.sql's trigger). */
export const sweepChannel = (id: string): string => `sweep_${id.replaceAll('-', '').toLowerCase()}`;

/** The channel of one optimization's events (written by sql/0007_optimizations.sql's trigger). */
export const optimizationChannel = (id: string): string => `optimization_${id.replaceAll('-', '').toLowerCase()}`;
