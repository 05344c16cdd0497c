// One instant of the PVWatts v5 chain, the counterpart of SSC's single-timestep module
// (pvwattsv5_1ts): the sun at the given clock time, then the same model and step as the
// hourly year (prepareSolarSystem and solarSteps in solar.ts), with the module's thermal
// memory taken from the previous step's cell temperature and irradiance when they are known.

import { DEG } from '../angles.ts';
import {
  estimateDeltaT,
  type HourlySunGeometry,
  pressureAtElevation,
  type SunSite,
  sunPosition,
} from './solar.position.ts';
import { fuentesStateAfter, initialFuentesState, PVWATTS_WIND_HEIGHT_M } from './solar.temperature.ts';
import { prepareSolarSystem, type SolarSystem, solarDetail, solarSteps } from './solar.ts';

/** The weather of one instant, at the system's site. */
export interface SolarInstant {
  /** Local standard time (the system's time zone). */
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  /** Beam normal irradiance, W/m². */
  dni: number;
  /** Diffuse horizontal irradiance, W/m². */
  dhi: number;
  /** Dry-bulb air temperature, °C (also the refraction's temperature). */
  tempC: number;
  /** Wind speed at windHeightM, m/s. */
  windMs: number;
  /** Height of windMs above ground, m; default PVWatts' 9.144 m. */
  windHeightM?: number;
  /** Air pressure, mbar, for refraction; default the standard atmosphere at the site's elevation. */
  pressureMbar?: number;
}

export interface SolarTimestepOptions {
  /** The step's length, hours (the module's thermal memory spans it); default 1. */
  stepHours?: number;
  /**
   * The previous step's cell temperature (°C) and incident plane-of-array irradiance (W/m²).
   * Without them the module starts as the hourly year does: at 20 °C with no sun before.
   */
  previous?: { cellTempC: number; poa: number };
}

export interface SolarTimestepResult {
  /** The sun's centre above the horizon (without refraction), as the hourly geometry counts it. */
  sunUp: boolean;
  /** Apparent (refracted) zenith and azimuth, degrees. */
  zenithDeg: number;
  azimuthDeg: number;
  /** Angle of incidence on the modules, degrees (90 with the sun down). */
  aoiDeg: number;
  /** Single-axis rotation, degrees; 0 otherwise. */
  rotationDeg: number;
  /** Plane-of-array irradiance before the cover, W/m². */
  poa: number;
  /** Irradiance transmitted through the cover, W/m². */
  poaTransmitted: number;
  cellTempC: number;
  /** DC after system losses, in the unit of capacityDc. */
  dc: number;
  /** AC after the inverter, in the unit of capacityDc. */
  ac: number;
}

/** The sun at one instant, as the one-entry geometry that prepareSolarSystem (and PVWatts v8's model) takes. */
export function instantSun(system: Omit<SunSite, 'year'>, w: SolarInstant): HourlySunGeometry {
  const position = sunPosition(
    {
      year: w.year,
      month: w.month,
      day: w.day,
      hour: w.hour,
      minute: w.minute,
      second: 0,
      timezoneHours: system.timezoneHours,
    },
    {
      latitude: system.latitude,
      longitude: system.longitude,
      elevationM: system.elevationM,
      pressureMbar: w.pressureMbar ?? pressureAtElevation(system.elevationM),
      temperatureC: w.tempC,
      deltaT: estimateDeltaT(w.year),
    },
  );
  const up = position.elevationTrue > 0;
  return {
    up: Uint8Array.of(up ? 1 : 0),
    upFraction: Float64Array.of(up ? 1 : 0),
    zenith: Float64Array.of(up ? position.zenith : 180),
    azimuth: Float64Array.of(up ? position.azimuth : 0),
    cosZenith: Float64Array.of(up ? Math.cos(position.zenith * DEG) : -1),
    radiusAu: Float64Array.of(position.radiusAu),
  };
}

/** The PV system's output at one instant; `capacityDc` sets the unit of dc and ac. */
export function solarTimestep(
  system: Omit<SolarSystem, 'year'>,
  weather: SolarInstant,
  options: SolarTimestepOptions = {},
): SolarTimestepResult {
  const model = prepareSolarSystem({ ...system, year: weather.year }, instantSun(system, weather));
  const stepHours = options.stepHours ?? 1;
  if (!(stepHours > 0)) throw new RangeError(`stepHours must be positive, got ${stepHours}`);
  // The thermal model's memory is per hour of its step.
  model.thermal = { ...model.thermal, hourOverCapacity: model.thermal.hourOverCapacity * stepHours };
  const previous = options.previous;
  const state = previous ? fuentesStateAfter(previous.cellTempC, previous.poa) : initialFuentesState();
  const detail = solarDetail(1);
  const ac = new Float64Array(1);
  solarSteps(
    model,
    {
      dni: Float64Array.of(weather.dni),
      dhi: Float64Array.of(weather.dhi),
      tempC: Float64Array.of(weather.tempC),
      windMs: Float64Array.of(Math.max(0, weather.windMs)),
      windHeightM: weather.windHeightM ?? PVWATTS_WIND_HEIGHT_M,
    },
    state,
    ac,
    detail,
  );
  return {
    sunUp: model.sun.up[0] === 1,
    zenithDeg: model.sun.zenith[0],
    azimuthDeg: model.sun.azimuth[0],
    aoiDeg: model.surface.aoiDeg[0],
    rotationDeg: model.surface.rotationDeg[0],
    poa: detail.poa[0],
    poaTransmitted: detail.poaTransmitted[0],
    cellTempC: detail.cellTempC[0],
    dc: detail.dc[0],
    ac: ac[0],
  };
}
