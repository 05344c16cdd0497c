// The hourly series registry: every hour-by-hour series a scenario's result carries, defined once.
// Plain data, so the viewer's bundle can import it too. From it come the engine's result order
// (worker/engine/plant/plant.ts), the result writer's series (worker/result/serialize.ts), the
// result's hourly fields in `ScenarioResult` and `HourlyYear` (shared/schemas/result.ts, hence the
// OpenAPI document), the statements route's one-year form and the hourly CSV's columns. A series'
// name is spelled here alone: the engine writes and the viewer reads a group's series by their
// roles (seriesByName, seriesByRole; test/house.rules.test.ts allows one more production file).
// A new series: one entry here (in the order it is written: a group's series together), then fill
// it under its role in the engine stage that owns its group (ARCHITECTURE.md, "A new hourly series").

/** Which part of the plant a series belongs to; a group's series are present together. */
export type HourlySeriesGroup = 'generation' | 'storage' | 'ancillary' | 'load';

export interface HourlySeriesDefinition {
  readonly unit: 'MWh';
  /** The statements' description of the 25 × 8,760 array ([year][hour]). */
  readonly description: string;
  /** The one-year form's (GET …/statements?year=N) description. */
  readonly yearDescription: string;
  /** The hourly CSV's column. */
  readonly csv: string;
  readonly group: HourlySeriesGroup;
  /**
   * Its name within its group: the field the group's engine stage writes it from, and the viewer
   * reads it by (seriesByName, seriesByRole), so the series' own name is spelled here alone.
   */
  readonly role: string;
  /** always: in every full result; storage: with a battery only; load: with a buyer's load only; ancillary: with ancillary products only. */
  readonly present: 'always' | 'storage' | 'load' | 'ancillary';
  /** Never negative (all but the grid's net flow). */
  readonly nonNegative: boolean;
}

export const HOURLY_SERIES = {
  solar_hourly: {
    unit: 'MWh',
    description:
      'Solar MWh delivered in each hour, [year][hour]; hour 0 = Jan 1 00:00–01:00 local standard time; Feb 29 skipped. Omitted with ?hourly=false.',
    yearDescription: 'Solar MWh delivered in each hour of the year, as solar_hourly[year − 1] of the statements.',
    csv: 'solar_mwh',
    group: 'generation',
    role: 'solar',
    present: 'always',
    nonNegative: true,
  },
  wind_hourly: {
    unit: 'MWh',
    description: 'Wind MWh delivered in each hour, laid out as solar_hourly.',
    yearDescription: 'Wind MWh delivered in each hour of the year.',
    csv: 'wind_mwh',
    group: 'generation',
    role: 'wind',
    present: 'always',
    nonNegative: true,
  },
  storage_charge_hourly: {
    unit: 'MWh',
    description: 'Battery: AC MWh charged in each hour. With a battery only.',
    yearDescription: 'Battery: AC MWh charged in each hour. With a battery only.',
    csv: 'storage_charge_mwh',
    group: 'storage',
    role: 'charge',
    present: 'storage',
    nonNegative: true,
  },
  storage_discharge_hourly: {
    unit: 'MWh',
    description: 'Battery: AC MWh discharged in each hour.',
    yearDescription: 'Battery: AC MWh discharged in each hour.',
    csv: 'storage_discharge_mwh',
    group: 'storage',
    role: 'discharge',
    present: 'storage',
    nonNegative: true,
  },
  storage_soc_hourly: {
    unit: 'MWh',
    description: "Battery: MWh stored at each hour's end.",
    yearDescription: "Battery: MWh stored at each hour's end.",
    csv: 'storage_soc_mwh',
    group: 'storage',
    role: 'soc',
    present: 'storage',
    nonNegative: true,
  },
  grid_hourly: {
    unit: 'MWh',
    description:
      'Net MWh at the point of interconnection (solar + wind − charge + discharge; negative when charging from the grid).',
    yearDescription: 'Net MWh at the point of interconnection (negative when charging from the grid).',
    csv: 'grid_mwh',
    group: 'storage',
    role: 'grid',
    present: 'storage',
    nonNegative: false,
  },
  storage_reserve_up_hourly: {
    unit: 'MWh',
    description:
      'Battery: MW reserved for up products (market.ancillary) in each hour, all up products summed (MW × 1 h). With ancillary products only.',
    yearDescription: 'Battery: MW reserved for up products in each hour. With ancillary products only.',
    csv: 'storage_reserve_up_mw',
    group: 'ancillary',
    role: 'up',
    present: 'ancillary',
    nonNegative: true,
  },
  storage_reserve_down_hourly: {
    unit: 'MWh',
    description:
      'Battery: MW reserved for down products in each hour, all down products summed. With ancillary products only.',
    yearDescription: 'Battery: MW reserved for down products in each hour. With ancillary products only.',
    csv: 'storage_reserve_down_mw',
    group: 'ancillary',
    role: 'down',
    present: 'ancillary',
    nonNegative: true,
  },
  load_hourly: {
    unit: 'MWh',
    description: "The buyer's load in each hour, MWh (growth applied). With a load only.",
    yearDescription: "The buyer's load in each hour, MWh. With a load only.",
    csv: 'load_mwh',
    group: 'load',
    role: 'load',
    present: 'load',
    nonNegative: true,
  },
  delivered_hourly: {
    unit: 'MWh',
    description: 'MWh delivered to the load in each hour: min(load, plant + discharge − charge from the plant).',
    yearDescription: 'MWh delivered to the load in each hour.',
    csv: 'delivered_mwh',
    group: 'load',
    role: 'delivered',
    present: 'load',
    nonNegative: true,
  },
  load_direct_hourly: {
    unit: 'MWh',
    description:
      "Of the load in each hour, MWh served directly by the plant's output: min(load, solar + wind − the battery's charge from the plant).",
    yearDescription: "Of the load in each hour, MWh served directly by the plant's output.",
    csv: 'load_direct_mwh',
    group: 'load',
    role: 'direct',
    present: 'load',
    nonNegative: true,
  },
  load_battery_hourly: {
    unit: 'MWh',
    description:
      'Of the load in each hour, MWh served by the battery: delivered − served directly (0 without a battery).',
    yearDescription: 'Of the load in each hour, MWh served by the battery.',
    csv: 'load_battery_mwh',
    group: 'load',
    role: 'battery',
    present: 'load',
    nonNegative: true,
  },
  load_unmet_hourly: {
    unit: 'MWh',
    description: "Of the load in each hour, MWh not served (the buyer's backup): load − delivered.",
    yearDescription: 'Of the load in each hour, MWh not served: load − delivered.',
    csv: 'load_unmet_mwh',
    group: 'load',
    role: 'unmet',
    present: 'load',
    nonNegative: true,
  },
  load_excess_hourly: {
    unit: 'MWh',
    description:
      'MWh put out beyond the load in each hour and sold (after any curtailment: 0 with excess "curtail" unless the battery discharged it); a year sums to its excess_sold_mwh.',
    yearDescription: 'MWh put out beyond the load in each hour and sold.',
    csv: 'load_excess_mwh',
    group: 'load',
    role: 'excess',
    present: 'load',
    nonNegative: true,
  },
} as const satisfies Record<string, HourlySeriesDefinition>;

export type HourlySeriesName = keyof typeof HOURLY_SERIES;

/** The series present in every full result. */
export type AlwaysHourlyName = {
  [K in HourlySeriesName]: (typeof HOURLY_SERIES)[K]['present'] extends 'always' ? K : never;
}[HourlySeriesName];

/** Every series' name, in the registry's order (the order a result carries them). */
export const HOURLY_NAMES = Object.keys(HOURLY_SERIES) as HourlySeriesName[];

/** The series present in every full result, in the registry's order. */
export const ALWAYS_HOURLY: readonly AlwaysHourlyName[] = HOURLY_NAMES.filter(
  (n) => HOURLY_SERIES[n].present === 'always',
) as AlwaysHourlyName[];

/** The series present only with a part of the plant (a battery, a load). */
export type PartHourlyName = Exclude<HourlySeriesName, AlwaysHourlyName>;

/** One record of series by name: those present always, and those of the plant's parts it has. */
export type HourlyRecord<T> = Record<AlwaysHourlyName, T> & Partial<Record<PartHourlyName, T>>;

/** The names of a group's series. */
type NamesOf<G extends HourlySeriesGroup> = {
  [K in HourlySeriesName]: (typeof HOURLY_SERIES)[K]['group'] extends G ? K : never;
}[HourlySeriesName];

/** A group's series by role (its stage's fields, the viewer's names for them). */
export type HourlyRoles<G extends HourlySeriesGroup, T> = {
  [K in NamesOf<G> as (typeof HOURLY_SERIES)[K]['role']]: T;
};

/** The groups whose series are in every full result. */
type AlwaysGroup = (typeof HOURLY_SERIES)[AlwaysHourlyName]['group'];

const GROUP_NAMES = new Map<HourlySeriesGroup, HourlySeriesName[]>();
for (const n of HOURLY_NAMES) {
  const g = HOURLY_SERIES[n].group;
  GROUP_NAMES.set(g, [...(GROUP_NAMES.get(g) ?? []), n]);
}

/** A group's series by name, from the same by role: how the engine publishes a stage's series. */
export function seriesByName<G extends HourlySeriesGroup, R extends HourlyRoles<G, unknown>>(
  group: G,
  roles: R,
): Record<NamesOf<G>, R[keyof R]> {
  const out: Record<string, unknown> = {};
  for (const n of GROUP_NAMES.get(group) ?? []) out[n] = (roles as Record<string, unknown>)[HOURLY_SERIES[n].role];
  return out as Record<NamesOf<G>, R[keyof R]>;
}

/**
 * A group's series by role, from a record by name (a result, one year of it): how the viewer reads
 * them. Null when the group is absent (a group's series are present together); never for a group
 * present always.
 */
export function seriesByRole<G extends HourlySeriesGroup, T>(
  group: G,
  record: Partial<Record<HourlySeriesName, T>>,
): G extends AlwaysGroup ? HourlyRoles<G, T> : HourlyRoles<G, T> | null {
  const out: Record<string, T> = {};
  for (const n of GROUP_NAMES.get(group) ?? []) {
    const series = record[n];
    if (series === undefined) return null as never;
    out[HOURLY_SERIES[n].role] = series;
  }
  return out as never;
}
