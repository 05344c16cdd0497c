// Cell temperature: the Fuentes (1987, SAND85-0330) thermal model that PVWatts v5 uses.
// An energy balance of absorbed sun against convection (free and forced), radiation to
// the sky and to the ground, with the module's heat capacity carried from hour to hour.
// The convection is calibrated so that the module reaches its installed NOCT at
// 800 W/m², 20 °C and 1 m/s.

const BOLTZMANN = 5.669e-8;
const EMISSIVITY = 0.84;
const ABSORPTANCE = 0.83;
/** Hydraulic diameter of PVWatts' 0.31579 m × 1.2 m reference module, m. */
const HYDRAULIC_DIAMETER = 0.5;
/** Heat capacity of a module, J/(m²·K). */
const CAPACITY = 11000;
/** PVWatts fixes the tilt of the thermal model at 30° (sin = 0.5), whatever the array's. */
const SIN_THERMAL_TILT = 0.5;
/** Height of the module's centre above ground, m. */
const MODULE_HEIGHT_M = 5;
/** Where PVWatts assumes its weather files' wind was measured, m. */
export const PVWATTS_WIND_HEIGHT_M = 9.144;
/** PVWatts' installed NOCT: open rack and trackers, and the hotter roof mount. */
export const INOCT_OPEN_RACK_C = 45;
export const INOCT_ROOF_MOUNT_C = 49;

const T_NOCT_AMBIENT = 293.15;
/** The sky temperature at NOCT conditions, K. */
const T_NOCT_SKY = 282.21;
const SECONDS_PER_HOUR = 3600;
const ITERATIONS = 10;
const TOLERANCE_K = 1e-4;

export interface FuentesModel {
  inoctK: number;
  /** Ratio of the total convection to the top surface's. */
  convectionRatio: number;
  /** How far the ground's temperature follows the module's above ambient. */
  groundRatio: number;
  capacity: number;
}

/** The module's state between hours. */
export interface FuentesState {
  tModuleK: number;
  /** Absorbed irradiance of the previous hour, W/m². */
  sunPrev: number;
}

function airConvection(tAve: number, windMs: number, deltaT: number, turbulent: boolean): number {
  const density = (0.003484 * 101325) / tAve;
  const viscosity = (0.24237e-6 * tAve ** 0.76) / density;
  const conductivity = 2.1695e-4 * tAve ** 0.84;
  const reynolds = (windMs * HYDRAULIC_DIAMETER) / viscosity;
  // Forced convection: a laminar boundary layer, turbulent past Re = 1.2e5.
  const forced =
    turbulent && reynolds > 1.2e5
      ? ((0.0282 / reynolds ** 0.2) * density * windMs * 1007) / 0.71 ** 0.4
      : ((0.86 / Math.sqrt(reynolds)) * density * windMs * 1007) / 0.71 ** 0.67;
  const grashof =
    ((9.8 / tAve) * deltaT * HYDRAULIC_DIAMETER ** 3 * SIN_THERMAL_TILT) / (viscosity * viscosity);
  const free = ((0.21 * (grashof * 0.71) ** 0.32) * conductivity) / HYDRAULIC_DIAMETER;
  return Math.cbrt(free * free * free + forced * forced * forced);
}

export function fuentesModel(inoctC: number): FuentesModel {
  const t = inoctC + 273.15;
  const rise = t - T_NOCT_AMBIENT;
  const hTop = airConvection((t + T_NOCT_AMBIENT) / 2, 1, rise, false);
  const hGround = EMISSIVITY * BOLTZMANN * (t * t + T_NOCT_AMBIENT ** 2) * (t + T_NOCT_AMBIENT);
  const backRatio =
    (ABSORPTANCE * 800 - EMISSIVITY * BOLTZMANN * (t ** 4 - T_NOCT_SKY ** 4) - hTop * rise) / ((hGround + hTop) * rise);
  const tGround = Math.min(t, Math.max(T_NOCT_AMBIENT, (t ** 4 - backRatio * (t ** 4 - T_NOCT_AMBIENT ** 4)) ** 0.25));
  const convectionRatio =
    (ABSORPTANCE * 800 - EMISSIVITY * BOLTZMANN * (2 * t ** 4 - T_NOCT_SKY ** 4 - tGround ** 4)) / (hTop * rise);
  // A high INOCT means the module is coupled to its mounting, whose mass it then shares.
  const capacity = t > 321.15 ? CAPACITY * (1 + (t - 321.15) / 12) : CAPACITY;
  return { inoctK: t, convectionRatio, groundRatio: (tGround - T_NOCT_AMBIENT) / rise, capacity };
}

/** Factor from the measured wind speed to the module's height (1/5 power law). */
export function moduleWindFactor(windHeightM: number): number {
  return (MODULE_HEIGHT_M / windHeightM) ** 0.2;
}

export function initialFuentesState(): FuentesState {
  return { tModuleK: T_NOCT_AMBIENT, sunPrev: 0 };
}

/**
 * Advances the module temperature by one hour and returns it, °C. `poa` is the incident
 * plane-of-array irradiance (before the cover's reflection, as in PVWatts), `windMs` the
 * wind at module height. The ground exchanges radiation at its own temperature, which
 * lies between the air's and the module's.
 */
export function fuentesStep(m: FuentesModel, state: FuentesState, poa: number, tAirC: number, windMs: number): number {
  const tAmb = tAirC + 273.15;
  // PVWatts puts a dark module at ambient temperature, so each morning starts afresh.
  if (poa <= 0) {
    state.tModuleK = tAmb;
    state.sunPrev = 0;
    return tAirC;
  }
  const sun = poa * ABSORPTANCE;
  const sun0 = state.sunPrev;
  const tSky = 0.68 * 0.0552 * tAmb ** 1.5 + 0.32 * tAmb;
  // A small floor keeps the forced convection defined in a calm.
  const wind = windMs + 1e-4;
  const t0 = state.tModuleK;
  let t = t0;
  for (let i = 0; i < ITERATIONS; i++) {
    const hConv = m.convectionRatio * airConvection((t + tAmb) / 2, wind, Math.abs(t - tAmb), true);
    const hSky = EMISSIVITY * BOLTZMANN * (t * t + tSky * tSky) * (t + tSky);
    const tGround = tAmb + m.groundRatio * (t - tAmb);
    const hGround = EMISSIVITY * BOLTZMANN * (t * t + tGround * tGround) * (t + tGround);
    const hTotal = hConv + hSky + hGround;
    // Exact solution over the hour for a linear ramp of the absorbed sun.
    const eigen = (-hTotal / m.capacity) * SECONDS_PER_HOUR;
    const ex = eigen > -10 ? Math.exp(eigen) : 0;
    const next =
      t0 * ex +
      ((1 - ex) * (hConv * tAmb + hSky * tSky + hGround * tGround + sun0 + (sun - sun0) / eigen) + sun - sun0) / hTotal;
    const converged = Math.abs(next - t) < TOLERANCE_K;
    t = next;
    if (converged) break;
  }
  state.tModuleK = t;
  state.sunPrev = sun;
  return t - 273.15;
}
