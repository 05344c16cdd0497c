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
}
