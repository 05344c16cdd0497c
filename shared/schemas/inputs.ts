// The scenario inputs: one TypeBox schema that validates requests, documents
// the API (OpenAPI) and types the engine. Static defaults live here; defaults
// that depend on other fields (time zone, climate, start year, seed) are
// filled by shared/inputs.resolve.ts before a scenario is stored.
import { type Static, type TSchema, Type } from '@sinclair/typebox';
import { HOURS_PER_YEAR, YEARS } from '../calendar.ts';
import { CreditTransfer, DebtCases, FinanceStructure, TaxEquity } from './inputs.finance.ts';

const Num = (min: number, max: number, dflt: number | undefined, description: string) =>
  Type.Number({ minimum: min, maximum: max, description, ...(dflt === undefined ? {} : { default: dflt }) });

const HourlySeries = (description: string, min = -1e9, max = 1e9) =>
  Type.Array(Type.Number({ minimum: min, maximum: max }), {
    minItems: HOURS_PER_YEAR,
    maxItems: HOURS_PER_YEAR,
    description,
  });

/** A library id (docs/resources.md): a resource of the caller's workspace. */
const ResourceId = Type.String({
  format: 'uuid',
  description: "A resource of the workspace's library (POST /api/resources).",
});

/** An hourly series of the library in place of the array (docs/resources.md): `{"resource": id}`. */
export const SeriesReference = Type.Object(
  { resource: ResourceId },
  {
    additionalProperties: false,
    description:
      'An hourly_series of the library, used as the array it holds (its length checked as the array would be).',
  },
);

/** The array, or a library series in its place. */
const OrSeries = <T extends TSchema>(inline: T, description: string) =>
  Type.Union([inline, SeriesReference], { description });

/** Hourly MW of one year (8,760 values) or of several, used in turn (8,760 × n, n ≤ 25; the multiple is checked after the schema); or a library series. */
const HourlyYears = (description: string, max: number) => {
  const text = `${description} 8,760 values (one year, repeated) or 8,760 × n (n years, used in turn); hour 0 = Jan 1 00:00–01:00 local standard time. Or {"resource": id}: a series of the library.`;
  return OrSeries(
    Type.Array(Type.Number({ minimum: 0, maximum: max }), {
      minItems: HOURS_PER_YEAR,
      maxItems: HOURS_PER_YEAR * YEARS,
      description: text,
    }),
    text,
  );
};

/** Generation from another tool (SAM's custom generation profile): hourly MW made for a capacity. */
const profileOptions = (tech: string, capacityName: string) => ({
  additionalProperties: false,
  description: `${tech} output from another tool (a PVsyst or energy-yield hourly year, SAM's custom generation profile): replaces the ${tech.toLowerCase()} model; scaled by capacity ÷ ${capacityName}, then degradation and the export limit apply as for modelled output. See docs/load.md.`,
});
const profileHours = (tech: string) =>
  HourlyYears(`${tech} output, MW AC at the point of interconnection, before the export limit.`, 1e6);
const forCapacity = (unit: string) =>
  Type.Number({
    exclusiveMinimum: 0,
    maximum: 100_000,
    description: `The capacity the profile was made for, ${unit}; output scales with capacity ÷ this.`,
  });
const SolarProfile = Type.Object(
  { hourly_mw: profileHours('Solar'), for_capacity_mw_dc: forCapacity('MW DC') },
  profileOptions('Solar', 'for_capacity_mw_dc'),
);
const WindProfile = Type.Object(
  { hourly_mw: profileHours('Wind'), for_capacity_mw: forCapacity('MW') },
  profileOptions('Wind', 'for_capacity_mw'),
);

/** A value per calendar month (12) or one value for every month. */
const Monthly = (min: number, max: number, description: string) =>
  Type.Union(
    [
      Type.Number({ minimum: min, maximum: max }),
      Type.Array(Type.Number({ minimum: min, maximum: max }), { minItems: 12, maxItems: 12 }),
    ],
    { description: `${description} One number, or 12 monthly values (January first).` },
  );

const Obj = <T extends Record<string, TSchema>>(props: T, description: string) =>
  Type.Object(props, { additionalProperties: false, default: {}, description });

/** Loss categories, each a percentage (0–100) with its default; the object closed to other names. */
const LossPercentages = <K extends string>(defaults: Record<K, number>, description: string) =>
  Type.Object(
    Object.fromEntries(Object.entries(defaults).map(([name, d]) => [name, Num(0, 100, d as number, '%')])) as Record<
      K,
      ReturnType<typeof Num>
    >,
    { additionalProperties: false, description },
  );

export const Site = Type.Object(
  {
    latitude: Num(-90, 90, undefined, 'Degrees north (negative is south).'),
    longitude: Num(-180, 180, undefined, 'Degrees east (negative is west).'),
    elevation_m: Num(-450, 9000, 0, 'Elevation above sea level, metres.'),
    timezone_offset_hours: Type.Optional(
      Num(-12, 14, undefined, 'Standard-time offset from UTC, hours. Default: round(longitude / 15).'),
    ),
    albedo: Num(0, 1, 0.2, 'Ground reflectance.'),
  },
  { additionalProperties: false, description: 'Where the project is.' },
);

export const Climate = Obj(
  {
    clearness_index: Type.Optional(Monthly(0.05, 0.9, 'Monthly mean clearness index Kt. Default: from latitude.')),
    temp_mean_c: Type.Optional(Monthly(-60, 50, 'Monthly mean air temperature, °C. Default: from latitude.')),
    temp_diurnal_range_c: Type.Optional(Monthly(0, 40, 'Monthly mean daily max − min temperature, °C. Default 10.')),
    wind_mean_ms: Num(0.5, 25, 7, 'Mean wind speed at the reference height, m/s.'),
    wind_reference_height_m: Num(2, 300, 80, 'Height of wind_mean_ms, metres.'),
    weibull_k: Num(1, 5, 2, 'Weibull shape parameter of hourly wind speed.'),
    shear_exponent: Num(0, 0.6, 0.14, 'Power-law wind shear exponent.'),
    solar_interannual_cv: Num(0, 0.3, 0.04, 'Year-to-year coefficient of variation of irradiance.'),
    wind_interannual_cv: Num(0, 0.3, 0.06, 'Year-to-year coefficient of variation of mean wind speed.'),
  },
  'Parameters of the synthetic weather generator.',
);

export const SyntheticWeather = Type.Object(
  { source: Type.Literal('synthetic'), climate: Climate },
  { additionalProperties: false, description: 'A distinct synthetic year for every project year, from the seed.' },
);

export const SuppliedWeather = Type.Object(
  {
    source: Type.Literal('supplied'),
    ghi: HourlySeries('Global horizontal irradiance, W/m², hour-beginning local standard time.', 0, 1500),
    dni: HourlySeries('Direct normal irradiance, W/m².', 0, 1500),
    dhi: HourlySeries('Diffuse horizontal irradiance, W/m².', 0, 1000),
    temp_air_c: HourlySeries('Dry-bulb air temperature, °C.', -90, 70),
    wind_speed_ms: HourlySeries('Wind speed at wind_height_m, m/s.', 0, 100),
    pressure_mbar: Type.Optional(HourlySeries('Air pressure, mbar. Default: from elevation.', 300, 1100)),
    wind_height_m: Num(1, 300, 10, 'Height at which wind speed was measured, metres.'),
    shear_exponent: Num(0, 0.6, 0.14, 'Power-law shear exponent used to reach hub height.'),
  },
  {
    additionalProperties: false,
    description: 'One typical year of hourly data (8,760 values each), used for every project year.',
  },
);

export const SamCsvWeather = Type.Object(
  {
    source: Type.Literal('sam_csv'),
    text: Type.String({
      minLength: 1,
      maxLength: 8_000_000,
      description: 'The text of a SAM CSV weather file (TMY2/TMY3/NSRDB style header, 8,760 rows).',
    }),
    wind_height_m: Type.Optional(Num(1, 300, undefined, 'Wind measurement height. Default: from the file, else 10 m.')),
    shear_exponent: Num(0, 0.6, 0.14, 'Power-law shear exponent used to reach hub height.'),
  },
  { additionalProperties: false, description: 'A SAM CSV weather file, used for every project year.' },
);

export const EpwWeather = Type.Object(
  {
    source: Type.Literal('epw'),
    text: Type.String({
      minLength: 1,
      maxLength: 8_000_000,
      description: 'The text of an EnergyPlus weather (EPW) file: 8 header lines, then 8,760 (or 8,784) hourly rows.',
    }),
    shear_exponent: Num(0, 0.6, 0.14, 'Power-law shear exponent from the 10 m wind speed to hub height.'),
  },
  { additionalProperties: false, description: 'An EnergyPlus weather file, used for every project year.' },
);

/** A weather file of the library (SAM CSV, PSM3 or EPW, as its format says) in place of its text. */
export const ResourceWeather = Type.Object(
  {
    source: Type.Literal('resource'),
    id: ResourceId,
    wind_height_m: Type.Optional(
      Num(1, 300, undefined, 'SAM CSV only: wind measurement height. Default: from the file, else 10 m.'),
    ),
    shear_exponent: Num(0, 0.6, 0.14, 'Power-law shear exponent used to reach hub height.'),
  },
  {
    additionalProperties: false,
    description:
      'A weather file of the library (POST /api/resources), used as the same file given inline would be. An inline file of a create is put into the library and stored as this.',
  },
);

/** One real year in `weather.years`. */
export const WeatherFileYear = Type.Union([SamCsvWeather, EpwWeather, ResourceWeather], {
  description:
    'One year of weather: a SAM CSV (NSRDB PSM3 included) or an EPW file, or one of the library. Chosen by `source`.',
});

export const YearsWeather = Type.Object(
  {
    source: Type.Literal('years'),
    years: Type.Array(WeatherFileYear, {
      minItems: 1,
      maxItems: 25,
      description: 'Real years of weather, in order: operating year n uses years[n mod k].',
    }),
  },
  {
    additionalProperties: false,
    description: 'Several real years of weather; P50/P90 come from their spread (see docs/resource.md).',
  },
);

export const Weather = Type.Union(
  [SyntheticWeather, SuppliedWeather, SamCsvWeather, EpwWeather, ResourceWeather, YearsWeather],
  {
    default: { source: 'synthetic' },
    description:
      'Weather (solar and temperature; wind too unless wind_resource is given): synthetic (default), supplied arrays, a SAM CSV or EPW file, a file of the library, or several real years. Chosen by `source`.',
  },
);

const SrwText = Type.String({
  minLength: 1,
  maxLength: 8_000_000,
  description:
    "The text of a SAM SRW wind resource file (as NREL's WIND Toolkit gives it): temperature, pressure, speed and direction at one or more heights, hourly or sub-hourly.",
});
const SrwShear = Num(0, 1, 0.14, 'Power-law shear exponent, used only when the hub lies outside the measured heights.');

export const SrwResource = Type.Object(
  { source: Type.Literal('srw'), text: SrwText, shear_exponent: SrwShear },
  { additionalProperties: false, description: 'One SRW wind resource file, used for every project year.' },
);

/** An SRW file of the library in place of its text. */
export const ResourceSrw = Type.Object(
  { source: Type.Literal('resource'), id: ResourceId, shear_exponent: SrwShear },
  {
    additionalProperties: false,
    description: 'An SRW file of the library (POST /api/resources), used for every project year.',
  },
);

const SrwYear = Type.Union(
  [
    Type.Object({ text: SrwText }, { additionalProperties: false }),
    Type.Object({ source: Type.Literal('resource'), id: ResourceId }, { additionalProperties: false }),
  ],
  { description: 'One year: the SRW text, or {"source": "resource", "id"}: an SRW file of the library.' },
);

export const SrwYearsResource = Type.Object(
  {
    source: Type.Literal('years'),
    years: Type.Array(SrwYear, {
      minItems: 1,
      maxItems: 25,
      description: 'Real years of SRW files, in order: operating year n uses years[n mod k].',
    }),
    shear_exponent: SrwShear,
  },
  { additionalProperties: false, description: 'Several real years of SRW wind resource files.' },
);

export const WindResource = Type.Union([SrwResource, ResourceSrw, SrwYearsResource], {
  description:
    "The wind at the site from SAM SRW files. When given, the wind model reads speed, direction, temperature and pressure at hub height from here, not the weather's own wind columns.",
});

export const PvLossBreakdown = LossPercentages(
  {
    soiling: 2,
    shading: 3,
    snow: 0,
    mismatch: 2,
    wiring: 2,
    connections: 0.5,
    light_induced_degradation: 1.5,
    nameplate_rating: 1,
    age: 0,
    availability: 3,
  },
  'PVWatts loss categories; the total is 1 − Π(1 − loss).',
);

/** A ground albedo strictly between 0 and 1, as PVWatts v8 accepts one. */
const AlbedoValue = Type.Number({ exclusiveMinimum: 0, exclusiveMaximum: 1 });

export const SOLAR_MODELS = ['pvwatts_v8', 'pvwatts_v5'] as const;

export const Solar = Obj(
  {
    model: Type.Union(
      SOLAR_MODELS.map((m) => Type.Literal(m)),
      {
        default: 'pvwatts_v8',
        description:
          "The solar model: pvwatts_v8 (SAM's and NREL's PVWatts calculator's since 2022: single-diode module, cover and spectral losses, NOCT cell temperature, rows' self-shading, bifacial modules, snow) or pvwatts_v5. Scenarios stored before v8 existed say pvwatts_v5.",
      },
    ),
    capacity_mw_dc: Num(0, 100_000, 100, 'DC nameplate, MW. 0 = no solar.'),
    dc_ac_ratio: Type.Number({
      exclusiveMinimum: 0,
      maximum: 10,
      default: 1.2,
      description: 'DC nameplate / AC inverter rating.',
    }),
    module_type: Type.Union([Type.Literal('standard'), Type.Literal('premium'), Type.Literal('thin_film')], {
      default: 'standard',
      description: 'PVWatts module type.',
    }),
    array_type: Type.Union(
      [
        Type.Literal('fixed_open_rack'),
        Type.Literal('fixed_roof_mount'),
        Type.Literal('single_axis'),
        Type.Literal('single_axis_backtracking'),
        Type.Literal('two_axis'),
      ],
      { default: 'single_axis_backtracking', description: 'PVWatts array type.' },
    ),
    tilt_deg: Type.Optional(
      Num(0, 90, undefined, 'Tilt, degrees from horizontal. Default: |latitude| for fixed, 0 for trackers.'),
    ),
    azimuth_deg: Type.Optional(
      Num(0, 360, undefined, 'Azimuth, degrees clockwise from north. Default: toward the equator.'),
    ),
    gcr: Type.Number({
      exclusiveMinimum: 0,
      exclusiveMaximum: 1,
      default: 0.4,
      description: 'Ground coverage ratio (trackers).',
    }),
    losses_percent: Num(-5, 99, 14.08, 'Total system losses, %. Ignored when losses_breakdown is given.'),
    losses_breakdown: Type.Optional(PvLossBreakdown),
    inverter_efficiency_percent: Num(90, 99.5, 96, 'Nominal inverter efficiency, %.'),
    degradation_percent_per_year: Num(0, 10, 0.5, 'Yearly output decline, compounded, %.'),
    bifaciality: Num(
      0,
      1,
      0,
      'pvwatts_v8: rear-side efficiency relative to the front (0 = monofacial; bifacial modules ~0.65–0.7).',
    ),
    albedo: Type.Optional(
      Type.Union([AlbedoValue, Type.Array(AlbedoValue, { minItems: 12, maxItems: 12 }), Type.Literal('weather_file')], {
        description:
          "pvwatts_v8: the ground's albedo, strictly between 0 and 1: one value, 12 monthly values (January first), or \"weather_file\" for the weather file's albedo column where it is valid (else 0.2, or 0.6 on snow with snow_model; EPW files' albedo is not read, as in SSC). Default: site.albedo.",
      }),
    ),
    ground_clearance_m: Num(
      0,
      20,
      1,
      "pvwatts_v8, bifacial: height of the modules' lower edge (trackers: of the axis) above the ground, m.",
    ),
    snow_model: Type.Boolean({
      default: false,
      description:
        "pvwatts_v8: snow cover losses from the weather file's snow depth (Marion et al. 2013); needs a file with a snow depth column.",
    }),
    profile: Type.Optional(SolarProfile),
  },
  'The solar plant (PVWatts v8 or v5).',
);

export const WindLossBreakdown = LossPercentages(
  { wake: 5, availability: 3, electrical: 2, turbine_performance: 1, environmental: 1.5, curtailment: 0 },
  'SAM wind loss categories; the total is 1 − Π(1 − loss). `wake` is a flat loss, SAM\'s "constant" wake loss, not a wake model.',
);

export const Turbine = Obj(
  {
    rated_kw: Num(1, 30_000, 3000, 'Rated power of the built-in generic turbine, kW (ignored with power_curve).'),
    power_curve: Type.Optional(
      Type.Array(
        Type.Tuple([Type.Number({ minimum: 0, maximum: 100 }), Type.Number({ minimum: 0, maximum: 30_000 })]),
        {
          minItems: 2,
          maxItems: 2000,
          description: '[wind speed m/s, power kW] pairs at sea-level density, sorted by speed.',
        },
      ),
    ),
    hub_height_m: Num(10, 300, 100, 'Hub height, metres.'),
    rotor_diameter_m: Num(5, 300, 120, 'Rotor diameter, metres.'),
  },
  'One turbine model.',
);

export const Wind = Obj(
  {
    capacity_mw: Num(0, 100_000, 100, 'Wind farm nameplate, MW. 0 = no wind.'),
    turbine: Turbine,
    losses_percent: Num(0, 99, 12, 'Total losses, %. Ignored when losses_breakdown is given.'),
    losses_breakdown: Type.Optional(WindLossBreakdown),
    degradation_percent_per_year: Num(0, 10, 0.3, 'Yearly output decline, compounded, %.'),
    layout: Type.Optional(
      Type.Object(
        {
          x_m: Type.Array(Type.Number({ minimum: -100_000, maximum: 100_000 }), {
            minItems: 1,
            maxItems: 300,
            description: "Each turbine's position east of an origin, metres.",
          }),
          y_m: Type.Array(Type.Number({ minimum: -100_000, maximum: 100_000 }), {
            minItems: 1,
            maxItems: 300,
            description: "Each turbine's position north of the origin, metres (same order as x_m).",
          }),
        },
        {
          additionalProperties: false,
          description:
            "The farm as laid out (at most 300 turbines, as SSC). The number of turbines is the layout's length, so the capacity is that times the turbine's rating.",
        },
      ),
    ),
    wake_model: Type.Union([Type.Literal('constant'), Type.Literal('simple'), Type.Literal('park')], {
      default: 'constant',
      description:
        "constant: the flat `wake` loss percentage; simple: SAM's Pennsylvania (Quinlan) wake model; park: Jensen (WAsP) with k = 0.07. simple and park need a layout and a wind_resource (for the hour's direction); with them the `wake` loss category is not applied.",
    }),
    turbulence_intensity: Num(0.01, 0.5, 0.1, 'Ambient turbulence intensity (fraction) of the simple wake model.'),
    profile: Type.Optional(WindProfile),
  },
  'The wind farm (SAM wind power model).',
);

export const Grid = Obj(
  {
    export_limit_mw: Type.Optional(
      Type.Number({
        exclusiveMinimum: 0,
        maximum: 200_000,
        description: 'Point-of-interconnection limit, MW AC. Absent = none.',
      }),
    ),
    export_limit_hourly_mw: Type.Optional(
      OrSeries(
        HourlySeries(
          "The grid operator's export limit of each hour, MW AC (8,760 values from 0 to 200,000).",
          0,
          200_000,
        ),
        "The grid operator's export limit of each hour, MW AC (8,760 values from 0 to 200,000, the same every year; hour 0 = Jan 1 00:00–01:00 local standard time): the hour's limit is the lesser of this and export_limit_mw. What it cuts below export_limit_mw is curtailment by the operator, paid at market.curtailment_payment_per_mwh less what a battery stored of it (docs/markets.md). A battery discharges only into each hour's room under the lesser limit. Or {\"resource\": id}: a series of 8,760 of the library, its values within the same bounds.",
      ),
    ),
  },
  'The grid connection.',
);

/** SAM's cycle-life table row: after `cycles` cycles of depth `dod_percent`, the capacity left. */
const CycleRow = Type.Object(
  {
    dod_percent: Num(0, 100, undefined, 'Depth of discharge of the cycles, %.'),
    cycles: Num(0, 1e7, undefined, 'Cycles elapsed at that depth.'),
    capacity_percent: Num(0, 100, undefined, 'Capacity left, % of nameplate.'),
  },
  { additionalProperties: false },
);

const CalendarRow = Type.Object(
  {
    day: Num(0, 100_000, undefined, 'Days since installation (or the last replacement).'),
    capacity_percent: Num(0, 100, undefined, 'Capacity left, % of nameplate.'),
  },
  { additionalProperties: false },
);

export const STORAGE_STRATEGIES = ['arbitrage', 'capture', 'load'] as const;

export const Storage = Type.Object(
  {
    power_mw: Num(0, 200_000, 0, 'Battery power, MW AC at the point of interconnection, both ways; 0 = no battery.'),
    energy_mwh: Num(0, 2_000_000, 0, 'Nameplate energy at the beginning of life, MWh.'),
    round_trip_efficiency_percent: Type.Number({
      exclusiveMinimum: 0,
      maximum: 100,
      default: 88,
      description: 'AC-to-AC round-trip efficiency, %; split as its square root on the way in and on the way out.',
    }),
    soc_min_percent: Num(0, 100, 10, 'Lowest state of charge, % of the current (degraded) capacity.'),
    soc_max_percent: Num(0, 100, 90, 'Highest state of charge, % of the current (degraded) capacity.'),
    initial_soc_percent: Num(0, 100, 10, 'State of charge at the start of year 1, % of capacity.'),
    standing_loss_percent_per_day: Num(0, 100, 0, 'Self-discharge, % of the stored energy per day.'),
    charge_from_grid: Type.Boolean({
      default: false,
      description: 'Whether the battery may charge from the grid (at the hour’s price); otherwise from the plant only.',
    }),
    dispatch: Obj(
      {
        strategy: Type.Union(
          STORAGE_STRATEGIES.map((s) => Type.Literal(s)),
          {
            default: 'arbitrage',
            description:
              'arbitrage: maximise each 48-hour horizon’s revenue less variable O&M (perfect foresight, 24 hours committed); capture: charge only from energy the limit would curtail, discharge into the dearest hours with room; load (with a `load` only): serve the most load in each horizon, then the most revenue from excess (docs/load.md).',
          },
        ),
        max_cycles_per_day: Type.Union([Type.Number({ exclusiveMinimum: 0, maximum: 100 }), Type.Null()], {
          default: null,
          description: 'Most discharged MWh per day ÷ nameplate MWh; null = no limit.',
        }),
      },
      'How the battery is dispatched.',
    ),
    degradation: Obj(
      {
        cycle: Type.Optional(
          Type.Array(CycleRow, {
            minItems: 1,
            maxItems: 200,
            description:
              "SAM's cycle-life table: capacity by depth of discharge and cycles (bilinear; depth clamped above the table, interpolated to 100 % at depth 0). Absent = no cycle fade.",
          }),
        ),
        calendar: Type.Optional(
          Type.Array(CalendarRow, {
            minItems: 2,
            maxItems: 200,
            description:
              "SAM's calendar table: capacity by days since installation (linear). Absent = no calendar fade.",
          }),
        ),
      },
      'Capacity fade (SAM lib_battery_lifetime): capacity = 100 − cycle loss − calendar loss, %.',
    ),
    replacement: Obj(
      {
        at_capacity_percent: Type.Union([Type.Number({ exclusiveMinimum: 0, maximum: 100 }), Type.Null()], {
          default: null,
          description: 'Replace the bank when its capacity falls to this % (a new bank, paid that year); null = never.',
        }),
      },
      'Battery replacement.',
    ),
    costs: Obj(
      {
        capex_per_kw: Num(0, 100_000, 300, 'Battery capital cost per kW (power).'),
        capex_per_kwh: Num(0, 100_000, 250, 'Battery capital cost per kWh (energy).'),
        fixed_om_per_kw_year: Num(0, 10_000, 8, 'Battery fixed O&M per kW per year (year-1 money).'),
        variable_om_per_mwh: Num(0, 10_000, 0, 'Battery variable O&M per MWh discharged (year-1 money).'),
        replacement_per_kwh: Num(
          0,
          100_000,
          150,
          'Cost of a new bank per kWh of nameplate (year-1 money, escalated by inflation).',
        ),
      },
      'Battery costs.',
    ),
  },
  {
    additionalProperties: false,
    description: 'A battery at the point of interconnection (AC-coupled). Absent, or power_mw 0: no battery.',
  },
);

/** A capacity payment (docs/markets.md): price × credit × accredited MW, escalated. */
export const Capacity = Type.Object(
  {
    price_per_mw_year: Num(
      0,
      10_000_000,
      undefined,
      'Year-1 capacity price per accredited MW-year (per kW-year × 1,000).',
    ),
    escalation_percent: Num(-20, 50, 0, 'Yearly escalation of the capacity price, %.'),
    credit: Type.Object(
      {
        percent: Type.Optional(Num(0, 100, undefined, 'A capacity credit given, % of the accredited MW.')),
        top_hours: Type.Optional(
          Type.Integer({
            minimum: 1,
            maximum: HOURS_PER_YEAR,
            description: "HOPP's rule: the number of hours of highest system load the credit is measured over.",
          }),
        ),
        system_load_mw: Type.Optional(
          OrSeries(
            HourlySeries("HOPP's rule: the system's load of each hour, MW (8,760 values from 0 to 1e9).", 0, 1e9),
            'HOPP\'s rule: the system\'s load of each hour, MW (8,760 values from 0 to 1e9; only their order matters; hour 0 = Jan 1 00:00–01:00 local standard time). Or {"resource": id}: a series of 8,760 of the library, its values within the same bounds.',
          ),
        ),
      },
      {
        additionalProperties: false,
        description:
          "The capacity credit: `percent` given, or HOPP's top-hours rule (`top_hours` with `system_load_mw`): the mean over those hours of year 1 of the plant's available MW ÷ its accredited MW, each hour at most 1; a battery is available up to what it discharges plus what it holds, capped at its power. One or the other.",
      },
    ),
  },
  {
    additionalProperties: false,
    description:
      'A capacity payment: price × (1 + escalation)^(year − 1) × credit × accredited MW, where accredited MW = min(solar AC + wind + battery power, grid.export_limit_mw). Absent: none.',
  },
);

/** An ancillary-service product the battery may reserve MW for (docs/markets.md, "Ancillary services"). */
export const AncillaryProduct = Type.Object(
  {
    name: Type.String({
      pattern: '^[a-z][a-z0-9_]{0,39}$',
      description: "The product's name (lowercase letters, digits, _): its revenue line and its KPI.",
    }),
    direction: Type.Union([Type.Literal('up'), Type.Literal('down')], {
      description: 'up: the battery stands ready to discharge (or charge less); down: to charge.',
    }),
    price_per_mw_hour: Type.Union(
      [
        Type.Number({ minimum: -10_000, maximum: 100_000 }),
        Type.Array(Type.Number({ minimum: -10_000, maximum: 100_000 }), {
          minItems: HOURS_PER_YEAR,
          maxItems: HOURS_PER_YEAR,
        }),
        SeriesReference,
      ],
      {
        description:
          'Capacity price per MW reserved per hour, year-1 money: one number for every hour, or 8,760 values (hour 0 = Jan 1 00:00–01:00 local standard time), or {"resource": id}: a series of 8,760 of the library.',
      },
    ),
    duration_hours: Type.Number({
      exclusiveMinimum: 0,
      maximum: 24,
      description:
        'Hours the reserved MW must be sustainable from the state of charge: up needs reserved MW × hours ÷ η above the minimum, down reserved MW × hours × η below the maximum.',
    }),
    deployed_share: Num(
      0,
      1,
      0,
      'Expected share of the reserved MW deployed each hour: that energy leaves (up) or enters (down) the battery and is settled at the hour’s merchant price.',
    ),
    escalation_percent: Num(-20, 50, 0, 'Yearly escalation of the capacity price, %.'),
  },
  { additionalProperties: false, description: 'One ancillary-service product.' },
);

export const Market = Obj(
  {
    currency: Type.String({ pattern: '^[A-Z]{3}$', default: 'USD', description: 'ISO 4217 code, for labels only.' }),
    ppa_price_per_mwh: Type.Union([Type.Number({ minimum: 0, maximum: 10_000 }), Type.Literal('solve')], {
      default: 50,
      description:
        'Year-1 PPA price, or "solve": the price that gives finance.target_equity_irr_percent (reported as kpis.solved_ppa_price_per_mwh and used in every statement).',
    }),
    ppa_escalation_percent: Num(-20, 50, 1, 'Yearly PPA price escalation, %.'),
    ppa_share: Num(0, 1, 0.7, 'Fraction of delivered energy sold under the PPA.'),
    merchant_price_per_mwh: Num(-1000, 10_000, 45, 'Year-1 mean merchant price.'),
    merchant_escalation_percent: Num(
      -20,
      50,
      2,
      'Yearly merchant price escalation, %; not applied to a forecast of several years in merchant_hourly_prices.',
    ),
    merchant_hour_of_day_multipliers: Type.Optional(
      Type.Array(Type.Number({ minimum: -100, maximum: 100 }), {
        minItems: 24,
        maxItems: 24,
        description:
          'Hour-of-day shape of the merchant price (0–23), multiplied by merchant_price_per_mwh. Default: flat.',
      }),
    ),
    merchant_hourly_prices: Type.Optional(
      OrSeries(
        Type.Array(Type.Number({ minimum: -10_000, maximum: 100_000 }), {
          minItems: HOURS_PER_YEAR,
          maxItems: HOURS_PER_YEAR * YEARS,
        }),
        'Merchant price for each hour; replaces price and shape. 8,760 values: year 1, escalated yearly by merchant_escalation_percent. 8,760 × n values (2 ≤ n ≤ 25, a forecast): used year by year as given, not escalated; years after the n-th repeat the last. Hour 0 = Jan 1 00:00–01:00 local standard time. Or {"resource": id}: a series of the library.',
      ),
    ),
    ppa_month_hour_multipliers: Type.Optional(
      Type.Array(Type.Array(Type.Number({ minimum: 0, maximum: 100 }), { minItems: 24, maxItems: 24 }), {
        minItems: 12,
        maxItems: 12,
        description:
          'Time-of-delivery factors of the PPA price: 12 months (January first) × 24 hours (0–23); a MWh delivered then earns the PPA price × its factor. Default: 1 everywhere.',
      }),
    ),
    capacity: Type.Optional(Capacity),
    curtailment_payment_per_mwh: Type.Optional(
      Num(
        0,
        10_000,
        undefined,
        "Year-1 payment per MWh curtailed by the operator's grid.export_limit_hourly_mw (not for what export_limit_mw alone cuts). Needs that series.",
      ),
    ),
    curtailment_payment_escalation_percent: Type.Optional(
      Num(-20, 50, undefined, 'Yearly escalation of curtailment_payment_per_mwh, %. Default 0.'),
    ),
    ancillary: Type.Optional(
      Type.Array(AncillaryProduct, {
        maxItems: 6,
        description:
          'Ancillary-service products the battery reserves MW for, co-optimised with energy arbitrage (docs/markets.md). Needs a battery (storage.power_mw > 0) dispatching by arbitrage or capture.',
      }),
    ),
  },
  'Where the energy is sold.',
);

/** SAM's depreciation classes: MACRS and straight line, all with the half-year convention. */
export const DEPRECIATION_CLASSES = ['macrs_5', 'macrs_15', 'sl_5', 'sl_15', 'sl_20', 'sl_39'] as const;

/** One technology's ITC and PTC. */
const TechCredits = (tech: string) =>
  Obj(
    {
      itc_percent: Num(
        0,
        100,
        0,
        `${tech} ITC, % of ${tech.toLowerCase()} capex, taken in year 1; the depreciable basis drops by half the credit.`,
      ),
      ptc_per_mwh: Num(0, 1000, 0, `${tech} PTC per MWh delivered (after curtailment), year-1 money, escalated.`),
    },
    `${tech} tax credits.`,
  );

export const Finance = Obj(
  {
    capex: Obj(
      {
        solar_per_kw_dc: Num(0, 100_000, 1000, 'Solar capital cost per kW DC.'),
        wind_per_kw: Num(0, 100_000, 1400, 'Wind capital cost per kW.'),
        other: Num(0, 1e12, 0, 'Other capital cost (grid connection, development), absolute.'),
      },
      'Installed cost.',
    ),
    opex: Obj(
      {
        solar_fixed_per_kw_year: Num(0, 10_000, 17, 'Solar fixed O&M per kW DC per year (year-1 money).'),
        wind_fixed_per_kw_year: Num(0, 10_000, 40, 'Wind fixed O&M per kW per year (year-1 money).'),
        variable_per_mwh: Num(0, 10_000, 2, 'Variable O&M per MWh delivered (year-1 money).'),
        insurance_percent_of_capex: Num(
          0,
          20,
          0.5,
          'Yearly insurance, % of installed cost, escalated by inflation only (as SAM).',
        ),
        property_tax_percent: Num(0, 20, 0, 'Yearly property tax, % of the assessed value (SAM default 0).'),
        property_tax_assessed_percent: Num(0, 200, 100, 'Assessed value in year 1, % of installed cost.'),
        property_tax_decline_percent: Num(
          0,
          100,
          0,
          'Assessed value decline, percentage points of year 1 per year, linear (as SAM); not escalated.',
        ),
        land_lease_per_year: Num(0, 1e10, 0, 'Land lease per year (year-1 money), escalated as O&M.'),
      },
      'Operating costs.',
    ),
    inflation_percent: Num(-5, 50, 2.5, 'General inflation, %/yr.'),
    om_escalation_percent: Num(-20, 50, 0, 'O&M escalation above inflation, %/yr (as SAM).'),
    tax_rate_percent: Num(
      0,
      100,
      26,
      'Federal income tax rate, %; with state_tax_rate_percent 0 (the default), the combined rate.',
    ),
    state_tax_rate_percent: Num(
      0,
      100,
      0,
      'State income tax rate, %, deductible from federal taxable income (as SAM): combined = state + federal × (1 − state).',
    ),
    depreciation: Obj(
      {
        method: Type.Union([Type.Literal('macrs_5'), Type.Literal('straight_line')], { default: 'macrs_5' }),
        years: Type.Integer({ minimum: 1, maximum: 50, default: 20, description: 'Life for straight_line.' }),
        allocation: Type.Optional(
          Type.Array(
            Type.Object(
              {
                class: Type.Union(DEPRECIATION_CLASSES.map((c) => Type.Literal(c))),
                percent: Num(0, 100, undefined, '% of the depreciable basis in this class.'),
              },
              { additionalProperties: false },
            ),
            {
              minItems: 1,
              maxItems: DEPRECIATION_CLASSES.length,
              description:
                "SAM's allocation of the basis to depreciation classes (MACRS and straight line, half-year convention); the percentages sum to at most 100 and the rest is not depreciated. Replaces method and years.",
            },
          ),
        ),
        bonus_percent: Num(
          0,
          100,
          0,
          'First-year bonus depreciation, % of each class basis (after the ITC reduction), taken in year 1.',
        ),
      },
      'Tax depreciation of the installed cost.',
    ),
    debt: Obj(
      {
        sizing: Type.Union([Type.Literal('fraction'), Type.Literal('dscr')], {
          default: 'fraction',
          description:
            'fraction: debt = fraction × capex; dscr: sized so CFADS covers debt service at target_dscr (SAM).',
        }),
        fraction: Num(0, 1, 0.6, 'Debt share of installed cost (sizing = fraction).'),
        target_dscr: Type.Number({
          exclusiveMinimum: 0,
          maximum: 10,
          default: 1.3,
          description: 'Target DSCR (sizing = dscr).',
        }),
        interest_rate_percent: Num(0, 50, 5, 'Annual interest rate, %.'),
        tenor_years: Type.Integer({ minimum: 0, maximum: 25, default: 18, description: 'Loan term, years.' }),
        fee_percent: Num(
          0,
          20,
          0,
          'Up-front debt fee, % of the debt, paid by the owner at financial close (SAM 2.75).',
        ),
        reserve_months: Num(
          0,
          24,
          0,
          "Debt-service reserve, months of the next year's debt service: funded at financial close, released at maturity (SAM 6).",
        ),
        cases: Type.Optional(DebtCases),
      },
      'Project debt.',
    ),
    reserves: Obj(
      {
        interest_percent: Num(0, 50, 1.75, 'Interest earned on reserve balances, %/yr (taxable), as SAM.'),
        working_capital_months: Num(
          0,
          24,
          0,
          "Working capital reserve, months of the next year's operating expenses: funded at close, released in the last year (SAM 6).",
        ),
        equipment: Obj(
          {
            solar_per_kw_dc: Num(0, 10_000, 0, 'Solar equipment replacement (e.g. inverters) per kW DC, year-1 money.'),
            wind_per_kw: Num(0, 10_000, 0, 'Wind equipment replacement per kW, year-1 money.'),
            every_years: Type.Integer({
              minimum: 1,
              maximum: 25,
              default: 15,
              description:
                'Replacement interval: the cost (escalated by inflation) is spent from the reserve every this many years, funded evenly over the years before, and depreciated MACRS 5-year.',
            }),
          },
          'Major equipment replacement reserve (SAM: 0.10 $/W every 15 years on PV).',
        ),
      },
      'Reserve accounts (SAM Single Owner).',
    ),
    salvage_percent: Num(0, 100, 0, 'Salvage value, % of installed cost, received (and taxed) in the last year.'),
    discount_rate_real_percent: Num(-5, 50, 6, 'Real discount rate, %/yr.'),
    tax_credits: Obj(
      {
        solar: TechCredits('Solar'),
        wind: TechCredits('Wind'),
        storage: Obj(
          {
            itc_percent: Num(
              0,
              100,
              0,
              'Storage ITC, % of the battery capex, taken in year 1; the depreciable basis drops by half the credit.',
            ),
          },
          'Storage tax credit.',
        ),
        ptc_years: Type.Integer({ minimum: 0, maximum: 25, default: 10, description: 'Years the PTC is paid.' }),
        ptc_escalation_percent: Type.Optional(
          Num(-20, 50, undefined, 'Yearly escalation of the PTC rate, %. Default: inflation_percent.'),
        ),
        transfer: Type.Optional(CreditTransfer),
      },
      'US federal tax credits (SAM Single Owner): used against tax in the year they arise.',
    ),
    structure: Type.Optional(FinanceStructure),
    tax_equity: Type.Optional(TaxEquity),
    target_equity_irr_percent: Type.Optional(
      Num(
        -50,
        100,
        undefined,
        'After-tax equity IRR the PPA price is solved for (market.ppa_price_per_mwh = "solve"), %. Required then.',
      ),
    ),
  },
  'Project finance (SAM Single Owner style).',
);

/** Annual energy uncertainty of one technology, as 1-σ percentages of its mean annual energy. */
const TechUncertainty = (tech: string, interannual: number, model: number) =>
  Obj(
    {
      interannual_percent: Num(
        0,
        100,
        interannual,
        `${tech} inter-annual variability (1 σ of one year's energy), %: used when the weather is one measured year; synthetic weather gives its own.`,
      ),
      model_percent: Num(
        0,
        100,
        model,
        `${tech} model and measurement uncertainty (1 σ), %: does not average out over years.`,
      ),
    },
    `${tech} energy uncertainty.`,
  );

export const Uncertainty = Obj(
  { solar: TechUncertainty('Solar', 5, 5), wind: TechUncertainty('Wind', 6, 8) },
  'Energy uncertainty for P50/P90 (SAM-style): inter-annual variability and model uncertainty, independent and normal.',
);

/** A value for each hour of the year (8,760) or one for every hour; `series`: or a library series of 8,760. */
const ScalarOrHourly = (min: number, max: number, dflt: number, description: string, series = false) =>
  Type.Union(
    [
      Type.Number({ minimum: min, maximum: max }),
      Type.Array(Type.Number({ minimum: min, maximum: max }), { minItems: HOURS_PER_YEAR, maxItems: HOURS_PER_YEAR }),
      ...(series ? [SeriesReference] : []),
    ],
    {
      default: dflt,
      description: `${description} One number, or 8,760 hourly values${series ? ', or {"resource": id}: a series of 8,760 of the library' : ''}.`,
    },
  );

export const LOAD_PERIODS = ['year', 'month', 'peak'] as const;

export const Load = Type.Object(
  {
    hourly_mw: Type.Optional(HourlyYears("The buyer's load, MW.", 1e6)),
    flat_mw: Type.Optional(
      Type.Number({ minimum: 0, maximum: 1e6, description: 'A flat load, MW (instead of hourly_mw).' }),
    ),
    growth_percent_per_year: Num(-50, 50, 0, 'Yearly growth of the load, compounded, % (year 1 as given).'),
    contract: Obj(
      {
        price_per_mwh: Num(0, 10_000, 60, 'Year-1 price paid for each MWh delivered to the load.'),
        escalation_percent: Num(-20, 50, 0, 'Yearly escalation of the contract price, %.'),
        availability: Type.Array(
          Type.Object(
            {
              period: Type.Union(
                LOAD_PERIODS.map((p) => Type.Literal(p)),
                { description: 'year, each calendar month, or the peak block (the peak_hours of the year).' },
              ),
              min_percent: Num(0, 100, undefined, 'Least delivered ÷ load in each such period, % (energy basis).'),
            },
            { additionalProperties: false },
          ),
          {
            default: [],
            maxItems: 3,
            description:
              'Availability thresholds, energy basis (each hour capped at its load): below one, the shortfall is penalised.',
          },
        ),
        peak_hours: Type.Array(Type.Integer({ minimum: 0, maximum: 23 }), {
          default: [18, 19, 20, 21],
          minItems: 1,
          maxItems: 24,
          uniqueItems: true,
          description: 'Hours of day (0–23, local standard time) that form the peak block, each once.',
        }),
        shortfall_penalty_multiple: Num(
          0,
          100,
          1,
          'Penalty per MWh below a threshold, × the year’s contract price: an operating expense of that year.',
        ),
      },
      'The contract with the buyer.',
    ),
    excess: Type.Union([Type.Literal('sell'), Type.Literal('curtail')], {
      default: 'sell',
      description: 'What the plant does with output above the load: sell at the merchant price, or curtail it.',
    }),
    backup: Obj(
      {
        price_per_mwh: ScalarOrHourly(
          -10_000,
          100_000,
          80,
          'What the buyer pays the grid per MWh of unmet load (year-1 money).',
          true,
        ),
        escalation_percent: Num(-20, 50, 0, 'Yearly escalation of the backup price, %.'),
        clean_share: ScalarOrHourly(0, 1, 0, "The grid's carbon-free share of each hour, a fraction."),
      },
      "The buyer's backup from the grid.",
    ),
  },
  {
    additionalProperties: false,
    description:
      "A buyer's load that the plant serves first (docs/load.md). hourly_mw or flat_mw, one of them. Absent: the plant sells to the grid under `market`.",
  },
);

export const ScenarioInputs = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200, description: 'A label for people.' }),
    site: Site,
    start_year: Type.Optional(
      Type.Integer({ minimum: 1950, maximum: 2200, description: 'First operating year. Default: next calendar year.' }),
    ),
    seed: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: 4294967295,
        description: 'Seed of the synthetic weather. Default: from the scenario id.',
      }),
    ),
    weather: Weather,
    wind_resource: Type.Optional(WindResource),
    solar: Solar,
    wind: Wind,
    grid: Grid,
    market: Market,
    storage: Type.Optional(Storage),
    load: Type.Optional(Load),
    finance: Finance,
    uncertainty: Uncertainty,
  },
  { additionalProperties: false, $id: 'ScenarioInputs', description: 'A hybrid solar + wind scenario.' },
);

export type ScenarioInputs = Static<typeof ScenarioInputs>;
export type ClimateInputs = Static<typeof Climate>;
export type StorageInputs = Static<typeof Storage>;
/** One ancillary product as the engine reads it: its price inline (a library series put in place). */
export type AncillaryInputs = Inline<Static<typeof AncillaryProduct>>;
export type LoadInputs = Static<typeof Load>;
/** The capacity payment as the engine reads it: its system load inline (a library series put in place). */
export type CapacityInputs = Inline<Static<typeof Capacity>>;

/** A value with every library reference taken out of its unions: what the engine reads. */
export type Inline<T> = T extends { resource: string }
  ? never
  : T extends { source: 'resource' }
    ? never
    : T extends readonly (infer E)[]
      ? Inline<E>[]
      : T extends object
        ? { [K in keyof T]: Inline<T[K]> }
        : T;

/**
 * Inputs after every default, including the ones that depend on other fields, has been applied:
 * what a scenario stores, library references and all (shared/resources.refs.ts).
 */
export type StoredInputs = Omit<ScenarioInputs, 'site' | 'start_year' | 'seed' | 'weather' | 'solar'> & {
  site: ScenarioInputs['site'] & { timezone_offset_hours: number };
  start_year: number;
  seed: number;
  weather:
    | {
        source: 'synthetic';
        climate: ClimateInputs & { clearness_index: number[]; temp_mean_c: number[]; temp_diurnal_range_c: number[] };
      }
    | Static<typeof SuppliedWeather>
    | Static<typeof SamCsvWeather>
    | Static<typeof EpwWeather>
    | Static<typeof ResourceWeather>
    | Static<typeof YearsWeather>;
  solar: ScenarioInputs['solar'] & { tilt_deg: number; azimuth_deg: number };
};

/** Stored inputs with their references replaced by what they hold (worker/resources.store.ts): the engine's inputs. */
export type ResolvedInputs = Inline<StoredInputs>;
