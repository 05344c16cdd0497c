export interface WeatherYear {
  ghi: Float64Array;
  dni: Float64Array;
  dhi: Float64Array;
  tempC: Float64Array;
  windMs: Float64Array;
  pressureMbar: Float64Array;
  windHeightM: number;
} // 8760 values each, hour-beginning local standard time, Feb 29 skipped
