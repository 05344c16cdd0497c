/**
 * One year of hourly weather: 8,760 values per series, hour-beginning local standard time
 * (hour 0 = Jan 1 00:00–01:00), Feb 29 skipped. Irradiance is the hour's mean, W/m².
 */
export interface WeatherYear {
  /** Global horizontal. The solar model (PVWatts) derives its own from dni and dhi. */
  ghi: Float64Array;
  /** Direct (beam) normal. */
  dni: Float64Array;
  /** Diffuse horizontal. */
  dhi: Float64Array;
  /** Dry-bulb air temperature, °C. */
  tempC: Float64Array;
  /** Wind speed at windHeightM, m/s. */
  windMs: Float64Array;
  /** Air pressure, mbar. */
  pressureMbar: Float64Array;
  /** Height of windMs above ground, m. */
  windHeightM: number;
  /** Snow depth, cm, when the file has it (values as the file gives them: invalid ones included). */
  snowDepthCm?: Float64Array;
  /** The ground's albedo, when the file has it (invalid values included; NaN where unreadable). */
  albedo?: Float64Array;
}

/**
 * The wind at hub height, one value per time step of one year (8,760 × stepsPerHour, Feb 29
 * skipped), as the wind model reads it. Speed is at hub height already (shear applied).
 */
export interface WindSteps {
  stepsPerHour: number;
  speedMs: Float64Array;
  /** Degrees clockwise from north the wind comes from; null when the source has no direction. */
  directionDeg: Float64Array | null;
  tempC: Float64Array;
  pressurePa: Float64Array;
}
