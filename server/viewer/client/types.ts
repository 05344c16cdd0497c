// The API's shapes the pages read (see /openapi.json for the full contract).
import type { HourlyRecord } from '../../../shared/hourly.series.ts';
export type Kpis = Record<string, number | null>;

export interface ScenarioItem {
  id: string;
  name: string;
  status: string;
  progress: number;
  stage: string | null;
  attempt: number;
  kpis: Kpis | null;
  error: { code: string; message: string } | null;
  created_at: string;
  finished_at: string | null;
  sweep_id: string | null;
  variant_index: number | null;
  inputs?: Record<string, unknown> & { start_year?: number };
}

export interface SweepItem {
  id: string;
  name: string;
  status: string;
  progress: number;
  parameters: string[];
  counts: { total: number; queued: number; running: number; succeeded: number; failed: number; cancelled: number };
  created_at: string;
  finished_at: string | null;
}

export interface Page<T> {
  items: T[];
  next_cursor: string | null;
}

export interface VariantRow {
  index: number;
  values: Record<string, unknown>;
  scenario_id: string;
  status: string;
  kpis: Kpis | null;
  totals: { solar_mwh: number; wind_mwh: number; curtailed_mwh: number } | null;
}

export interface Statements {
  start_year: number;
  currency: string;
  annual: Array<
    {
      year: number;
      solar_mwh: number;
      wind_mwh: number;
      curtailed_mwh: number;
      export_mwh: number;
      solar_capacity_factor: number | null;
      wind_capacity_factor: number | null;
    } & Partial<Record<StorageAnnualName | LoadAnnualName, number>> & { availability_month_percent?: number[] }
  >;
  wind_rose?: WindRose;
  income_statement: Array<Record<string, unknown> & { year: number }>;
  cash_flow: Array<
    Record<string, unknown> & { year: number; equity_cash_flow: number; cumulative_equity_cash_flow: number }
  >;
  /** A partnership flip or a sale-leaseback: the statements per party (docs/finance.md). */
  parties?: {
    structure: string;
    flip_year: number | null;
    tax_investor: Party;
    sponsor: Party;
  };
  kpis: Kpis;
}

/** One party's after-tax cash by year (0 = close), with its NPV and IRR. */
export interface Party {
  years: Array<{ year: number; pre_tax_cash: number; tax_benefit: number; after_tax_cash: number; cumulative: number }>;
  npv: number;
  irr: number | null;
}

/** A battery's annual figures (with a battery only). */
export type StorageAnnualName =
  | 'storage_charge_from_plant_mwh'
  | 'storage_charge_from_grid_mwh'
  | 'storage_discharge_mwh'
  | 'storage_cycles'
  | 'storage_capacity_percent'
  | 'storage_replacements'
  | 'curtailed_without_storage_mwh';

/** A load's annual figures (with a load only, docs/load.md). */
export type LoadAnnualName =
  | 'load_mwh'
  | 'delivered_to_load_mwh'
  | 'unmet_mwh'
  | 'excess_mwh'
  | 'excess_sold_mwh'
  | 'availability_year_percent'
  | 'availability_peak_percent'
  | 'shortfall_mwh';

/** The wind rose of a scenario's wind_resource at hub height. */
interface WindRose {
  hub_height_m: number;
  sectors: number;
  speed_bins_ms: number[];
  /** Share of the steps, [sector][speed bin]. */
  frequency: number[][];
  mean_speed_ms: Array<number | null>;
}

/** One year of the statements' hourly series (shared/hourly.series.ts): a battery's and a load's only with them. */
export type HourlyYear = { year: number; calendar_year: number } & HourlyRecord<number[]>;

/** A file or series in the workspace's library (`GET /api/resources`). */
export interface ResourceItem {
  id: string;
  name: string;
  kind: 'weather' | 'wind_resource' | 'hourly_series';
  format: string;
  bytes: number;
  created_at: string;
  used_by: { scenarios: number; sweeps: number; optimizations: number };
  metadata: {
    latitude?: number | null;
    longitude?: number | null;
    elevation_m?: number | null;
    years: number;
    time_step_minutes: number;
    heights_m?: number[];
    length?: number;
    statistics: {
      annual_ghi_kwh_m2?: number;
      annual_dni_kwh_m2?: number;
      monthly_ghi_kwh_m2?: number[];
      monthly_dni_kwh_m2?: number[];
      mean_temperature_c?: number | null;
      mean_wind_speed_ms?: number;
      mean_wind_speed_ms_by_height?: Record<string, number>;
      wind_rose?: { height_m: number; speed_bins_ms: number[]; frequency: number[][] } | null;
      mean?: number;
      min?: number;
      max?: number;
      annual_sum?: number;
      peak_week?: { first_hour: number; values: number[] };
    };
  };
}
