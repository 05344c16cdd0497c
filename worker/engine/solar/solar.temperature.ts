// Cell temperature: the Fuentes (1987, SAND85-0330) thermal model that PVWatts v5 uses.
// An energy balance of absorbed sun against convection (free and forced) and radiation to
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
const MAX_ITERATIONS = 30;
/** A thousandth of a kelvin moves the DC power by 5 parts per million. */
const TOLERANCE_K = 1e-3;

export interface FuentesModel {
  inoctK: number;
  /** Ratio of the total convection to the top surface's. */
  convectionRatio: number;
  /** How far the ground's temperature follows the module's above ambient. */
  groundRatio: number;
  /** Seconds per hour / heat capacity. */
  hourOverCapacity: number;
}

/** The module between hours, and the scratch of the hour being solved (no allocation per hour). */
export interface FuentesState {
  tModuleK: number;
  /** Absorbed irradiance of the previous hour, W/m². */
  sunPrev: number;
  /** Convection coefficient of the latest evaluation, W/(m²·K); 0 after dark. */
  hConv: number;
  /** Latest secant slope of F(T) − T: near −1, F depending only weakly on T. */
  slope: number;
  tAmb: number;
  tSky: number;
  wind: number;
  sqrtWind: number;
  wind08: number;
  t0: number;
  ramp: number;
}

interface AirProperties {
  density: number;
  viscosity: number;
  conductivity: number;
}

function air(tFilm: number, out: AirProperties): AirProperties {
  out.density = (0.003484 * 101325) / tFilm;
  out.viscosity = (0.24237e-6 * tFilm ** 0.76) / out.density;
  out.conductivity = 2.1695e-4 * tFilm ** 0.84;
  return out;
}

// Forced convection over a laminar boundary layer is laminar × √wind, over a turbulent one
// (past Re = 1.2e5) turbulent × wind^0.8; free convection is free × ΔT^0.32.
const laminar = (a: AirProperties) =>
  0.86 * Math.sqrt(a.viscosity / HYDRAULIC_DIAMETER) * a.density * (1007 / 0.71 ** 0.67);
const turbulent = (a: AirProperties) =>
  0.0282 * (a.viscosity / HYDRAULIC_DIAMETER) ** 0.2 * a.density * (1007 / 0.71 ** 0.4);
const free = (a: AirProperties, tFilm: number) =>
  (0.21 *
    ((9.8 / tFilm) * HYDRAULIC_DIAMETER ** 3 * SIN_THERMAL_TILT * (0.71 / (a.viscosity * a.viscosity))) ** 0.32 *
    a.conductivity) /
  HYDRAULIC_DIAMETER;

// The hourly solve is the engine's hottest loop, so its powers, roots and exponentials are
// read from tables (linear interpolation; together they move the cell temperature by less
// than 1e-4 K; outside a table's range the value is computed):
// - the air's coefficients against film temperature, 150–450 K in 0.1 K steps: the wind
//   at which flow turns turbulent, laminar, turbulent and free coefficients;
// - ΔT^0.32 for 1–128 K in 1/32 K steps; wind^0.8 for 0–60 m/s in 1/64 m/s steps;
// - (1 + r³)^⅓ for r in 0–1 in 1/1024 steps, which combines free and forced convection;
// - e^−x for 0–10 in 1/1024 steps (PVWatts takes the module's memory as 0 beyond 10).
const AIR_T0 = 150;
const AIR_PER_K = 10;
const AIR_ROWS = 3001;
const AIR = new Float64Array(AIR_ROWS * 4);
{
  const a: AirProperties = { density: 0, viscosity: 0, conductivity: 0 };
  for (let i = 0; i < AIR_ROWS; i++) {
    const t = AIR_T0 + i / AIR_PER_K;
    air(t, a);
    AIR[i * 4] = (1.2e5 * a.viscosity) / HYDRAULIC_DIAMETER;
    AIR[i * 4 + 1] = laminar(a);
    AIR[i * 4 + 2] = turbulent(a);
    AIR[i * 4 + 3] = free(a, t);
  }
}
/** No film temperature in the table turns the flow turbulent below this wind. */
const MIN_TURBULENT_WIND = AIR[0];
const POW_PER_K = 32;
const POW = Float64Array.from({ length: 128 * POW_PER_K + 2 }, (_, i) => (i / POW_PER_K) ** 0.32);
const WIND_STEPS = 64;
const WIND_MAX = 60;
const WIND08 = Float64Array.from({ length: WIND_MAX * WIND_STEPS + 2 }, (_, i) => (i / WIND_STEPS) ** 0.8);
const CUBE_SUM_STEPS = 1024;
const CUBE_SUM = Float64Array.from({ length: CUBE_SUM_STEPS + 2 }, (_, i) => Math.cbrt(1 + (i / CUBE_SUM_STEPS) ** 3));
const EXP_STEPS = 1024;
const EXP = Float64Array.from({ length: 10 * EXP_STEPS + 2 }, (_, i) => Math.exp(-i / EXP_STEPS));

function deltaPow032(x: number): number {
  if (x < 1 || x >= 128) return x ** 0.32;
  const y = x * POW_PER_K;
  const k = y | 0;
  return POW[k] + (y - k) * (POW[k + 1] - POW[k]);
}

export function fuentesModel(inoctC: number): FuentesModel {
  const t = inoctC + 273.15;
  const rise = t - T_NOCT_AMBIENT;
  // The calibration's wind of 1 m/s is laminar.
  const tFilm = (t + T_NOCT_AMBIENT) / 2;
  const props = air(tFilm, { density: 0, viscosity: 0, conductivity: 0 });
  const hTop = Math.cbrt(laminar(props) ** 3 + (free(props, tFilm) * rise ** 0.32) ** 3);
  const hGround = EMISSIVITY * BOLTZMANN * (t * t + T_NOCT_AMBIENT ** 2) * (t + T_NOCT_AMBIENT);
  const backRatio =
    (ABSORPTANCE * 800 - EMISSIVITY * BOLTZMANN * (t ** 4 - T_NOCT_SKY ** 4) - hTop * rise) / ((hGround + hTop) * rise);
  const tGround = Math.min(t, Math.max(T_NOCT_AMBIENT, (t ** 4 - backRatio * (t ** 4 - T_NOCT_AMBIENT ** 4)) ** 0.25));
  const convectionRatio =
    (ABSORPTANCE * 800 - EMISSIVITY * BOLTZMANN * (2 * t ** 4 - T_NOCT_SKY ** 4 - tGround ** 4)) / (hTop * rise);
  // A high INOCT means the module is coupled to its mounting, whose mass it then shares.
  const capacity = t > 321.15 ? CAPACITY * (1 + (t - 321.15) / 12) : CAPACITY;
  return {
    inoctK: t,
    convectionRatio,
    groundRatio: (tGround - T_NOCT_AMBIENT) / rise,
    hourOverCapacity: SECONDS_PER_HOUR / capacity,
  };
}

/** Factor from the measured wind speed to the module's height (1/5 power law). */
export function moduleWindFactor(windHeightM: number): number {
  return (MODULE_HEIGHT_M / windHeightM) ** 0.2;
}

export function initialFuentesState(): FuentesState {
  return {
    tModuleK: T_NOCT_AMBIENT,
    sunPrev: 0,
    hConv: 0,
    slope: -1,
    tAmb: 0,
    tSky: 0,
    wind: 0,
    sqrtWind: 0,
    wind08: 0,
    t0: 0,
    ramp: 0,
  };
}

/**
 * The state after a step whose module temperature (°C) and incident plane-of-array irradiance
 * (W/m²) are known: the next step starts from that temperature and ramps the absorbed sun
 * from that irradiance.
 */
export function fuentesStateAfter(cellTempC: number, poa: number): FuentesState {
  const s = initialFuentesState();
  s.tModuleK = cellTempC + 273.15;
  s.sunPrev = Math.max(0, poa) * ABSORPTANCE;
  return s;
}

/**
 * Advances the module temperature by one hour and returns it, °C. `poa` is the incident
 * plane-of-array irradiance (before the cover's reflection, as in PVWatts), `windMs` the
 * wind at module height. The ground exchanges radiation at its own temperature, which
 * lies between the air's and the module's.
 */
export function fuentesStep(m: FuentesModel, s: FuentesState, poa: number, tAirC: number, windMs: number): number {
  const tAmb = tAirC + 273.15;
  // PVWatts puts a dark module at ambient temperature, so each morning starts afresh.
  if (poa <= 0) {
    s.tModuleK = tAmb;
    s.sunPrev = 0;
    s.hConv = 0;
    return tAirC;
  }
  s.tAmb = tAmb;
  s.tSky = (0.68 * 0.0552 * Math.sqrt(tAmb) + 0.32) * tAmb;
  // A small floor keeps the forced convection defined in a calm.
  const wind = windMs + 1e-4;
  s.wind = wind;
  s.sqrtWind = Math.sqrt(wind);
  if (wind <= MIN_TURBULENT_WIND) s.wind08 = 0;
  else if (wind >= WIND_MAX) s.wind08 = wind ** 0.8;
  else {
    const y = wind * WIND_STEPS;
    const k = y | 0;
    s.wind08 = WIND08[k] + (y - k) * (WIND08[k + 1] - WIND08[k]);
  }
  s.t0 = s.tModuleK;
  s.ramp = poa * ABSORPTANCE - s.sunPrev;

  // The module temperature T solves g(T) = F(T) − T = 0, F being the hour's exact solution
  // with the heat transfer coefficients evaluated at T; g falls as T rises. Start from the
  // solution with the previous hour's convection (it changes little from hour to hour),
  // step with the previous hour's slope of g, then by secant. Free convection grows as
  // |T − T_air|^0.32, a cusp where the module sits at air temperature (calm, low sun), so
  // the root is also kept bracketed and a step that leaves the bracket bisects it.
  let lo = Number.NEGATIVE_INFINITY;
  let hi = Number.POSITIVE_INFINITY;
  let tA = s.hConv > 0 ? balance(m, s, s.t0, s.hConv) : s.t0;
  let gA = endTemperature(m, s, tA) - tA;
  let t = tA + gA;
  if (Math.abs(gA) >= TOLERANCE_K) {
    if (gA > 0) lo = tA;
    else hi = tA;
    t = tA - gA / s.slope;
    for (let i = 0; i < MAX_ITERATIONS; i++) {
      if (!(t > lo && t < hi)) t = Number.isFinite(lo + hi) ? (lo + hi) / 2 : tA + gA;
      const tB = t;
      const gB = endTemperature(m, s, tB) - tB;
      if (Math.abs(gB) < TOLERANCE_K || hi - lo < TOLERANCE_K) {
        t = tB + gB;
        break;
      }
      if (gB > 0) lo = tB;
      else hi = tB;
      const slope = (gB - gA) / (tB - tA);
      if (slope < 0) {
        s.slope = slope;
        t = tB - gB / slope;
      } else {
        t = tB + gB;
      }
      tA = tB;
      gA = gB;
    }
  }
  s.tModuleK = t;
  s.sunPrev = poa * ABSORPTANCE;
  return t - 273.15;
}

/** F(t): the module temperature at the end of the hour with the coefficients evaluated at t. */
function endTemperature(m: FuentesModel, s: FuentesState, t: number): number {
  const x = ((t + s.tAmb) / 2 - AIR_T0) * AIR_PER_K;
  const k = x <= 0 ? 0 : x >= AIR_ROWS - 2 ? AIR_ROWS - 2 : x | 0;
  const f = x - k;
  const o = k * 4;
  const turbulentFrom = AIR[o] + f * (AIR[o + 4] - AIR[o]);
  const forced =
    s.wind > turbulentFrom
      ? (AIR[o + 2] + f * (AIR[o + 6] - AIR[o + 2])) * s.wind08
      : (AIR[o + 1] + f * (AIR[o + 5] - AIR[o + 1])) * s.sqrtWind;
  const freeConv = (AIR[o + 3] + f * (AIR[o + 7] - AIR[o + 3])) * deltaPow032(Math.abs(t - s.tAmb));
  // (a³ + b³)^⅓ = big · (1 + r³)^⅓ with r = small / big ≤ 1, read from a table.
  const big = freeConv > forced ? freeConv : forced;
  const r = big > 0 ? ((freeConv > forced ? forced : freeConv) / big) * CUBE_SUM_STEPS : 0;
  const j = r | 0;
  const hConv = m.convectionRatio * big * (CUBE_SUM[j] + (r - j) * (CUBE_SUM[j + 1] - CUBE_SUM[j]));
  s.hConv = hConv;
  return balance(m, s, t, hConv);
}

/**
 * The hour's energy balance with the radiation coefficients evaluated at t, solved exactly
 * for a linear ramp of the absorbed sun from the previous hour's value.
 */
function balance(m: FuentesModel, s: FuentesState, t: number, hConv: number): number {
  const { tAmb, tSky, ramp } = s;
  const hSky = EMISSIVITY * BOLTZMANN * (t * t + tSky * tSky) * (t + tSky);
  const tGround = tAmb + m.groundRatio * (t - tAmb);
  const hGround = EMISSIVITY * BOLTZMANN * (t * t + tGround * tGround) * (t + tGround);
  const hTotal = hConv + hSky + hGround;
  const decay = hTotal * m.hourOverCapacity;
  let ex = 0;
  if (decay < 10) {
    const y = decay * EXP_STEPS;
    const k = y | 0;
    ex = EXP[k] + (y - k) * (EXP[k + 1] - EXP[k]);
  }
  return (
    s.t0 * ex + ((1 - ex) * (hConv * tAmb + hSky * tSky + hGround * tGround + s.sunPrev - ramp / decay) + ramp) / hTotal
  );
}
