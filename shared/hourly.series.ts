// The hourly series registry: every hour-by-hour series a scenario's result carries, defined once.
// Plain data, so the viewer's bundle can import it too. From it come the engine's result order
// (worker/engine/index.ts), the result's hourly fields in `ScenarioResult` and `HourlyYear`
// (shared/schemas/result.ts, hence the OpenAPI document), and the hourly CSV's columns. A new
// series: one entry here (in the order it is written: a group's series together), then fill it in
// the engine stage that owns its group.

/** Which part of the plant a series belongs to; a group's series are present together. */
export type HourlySeriesGroup = 'generation' | 'storage' | 'load';

export interface HourlySeriesDefinition {
  readonly unit: 'MWh';
  /** The statements' description of the 25 × 8,760 array ([year][hour]). */
  readonly description: string;
  /** The one-year form's (GET …/statements?year=N) description. */
  readonly yearDescription: string;
  /** The hourly CSV's column. */
  readonly csv: string;
  readonly group: HourlySeriesGroup;
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
    present: 'always',
    nonNegative: true,
  },
  wind_hourly: {
    unit: 'MWh',
    description: 'Wind MWh delivered in each hour, laid out as solar_hourly.',
    yearDescription: 'Wind MWh delivered in each hour of the year.',
    csv: 'wind_mwh',
    group: 'generation',
    present: 'always',
    nonNegative: true,
  },
  storage_charge_hourly: {
    unit: 'MWh',
    description: 'Battery: AC MWh charged in each hour. With a battery only.',
    yearDescription: 'Battery: AC MWh charged in each hour. With a battery only.',
    csv: 'storage_charge_mwh',
    group: 'storage',
    present: 'storage',
    nonNegative: true,
  },
  storage_discharge_hourly: {
    unit: 'MWh',
    description: 'Battery: AC MWh discharged in each hour.',
    yearDescription: 'Battery: AC MWh discharged in each hour.',
    csv: 'storage_discharge_mwh',
    group: 'storage',
    present: 'storage',
    nonNegative: true,
  },
  storage_soc_hourly: {
    unit: 'MWh',
    description: "Battery: MWh stored at each hour's end.",
    yearDescription: "Battery: MWh stored at each hour's end.",
    csv: 'storage_soc_mwh',
    group: 'storage',
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
    present: 'storage',
    nonNegative: false,
  },
  storage_reserve_up_hourly: {
    unit: 'MWh',
    description:
      'Battery: MW reserved for up products (market.ancillary) in each hour, all up products summed (MW × 1 h). With ancillary products only.',
    yearDescription: 'Battery: MW reserved for up products in each hour. With ancillary products only.',
    csv: 'storage_reserve_up_mw',
    group: 'storage',
    present: 'ancillary',
    nonNegative: true,
  },
  storage_reserve_down_hourly: {
    unit: 'MWh',
    description:
      'Battery: MW reserved for down products in each hour, all down products summed. With ancillary products only.',
    yearDescription: 'Battery: MW reserved for down products in each hour. With ancillary products only.',
    csv: 'storage_reserve_down_mw',
    group: 'storage',
    present: 'ancillary',
    nonNegative: true,
  },
  load_hourly: {
    unit: 'MWh',
    description: "The buyer's load in each hour, MWh (growth applied). With a load only.",
    yearDescription: "The buyer's load in each hour, MWh. With a load only.",
    csv: 'load_mwh',
    group: 'load',
    present: 'load',
    nonNegative: true,
  },
  delivered_hourly: {
    unit: 'MWh',
    description: 'MWh delivered to the load in each hour: min(load, plant + discharge − charge from the plant).',
    yearDescription: 'MWh delivered to the load in each hour.',
    csv: 'delivered_mwh',
    group: 'load',
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

/** The series present only with a part of the plant (a battery, a load), in the registry's order. */
export type PartHourlyName = Exclude<HourlySeriesName, AlwaysHourlyName>;
export const PART_HOURLY: readonly PartHourlyName[] = HOURLY_NAMES.filter(
  (n) => HOURLY_SERIES[n].present !== 'always',
) as PartHourlyName[];

/** One record of series by name: those present always, and those of the plant's parts it has. */
export type HourlyRecord<T> = Record<AlwaysHourlyName, T> & Partial<Record<PartHourlyName, T>>;
