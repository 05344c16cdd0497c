// The module and inverter of PVWatts v8 (NREL SSC `cmod_pvwattsv8`, SSC 2025.4.16, commit
// e97a19f8e), written here from the published models it uses:
// - the cover: De Soto et al. 2006's physical transmittance (Snell, Fresnel, Bouguer) of an
//   anti-reflective coated glass for the beam, and of the glass at Duffie & Beckman's equivalent
//   angles (eqs 5.4.1–2) for sky and ground diffuse, each relative to normal incidence;
// - the spectrum: De Soto's air-mass modifier (King's air mass, corrected for elevation);
// - the cell temperature: the CEC calculator's NOCT model (wind at 0.51 × the measured speed);
// - the DC power: the CEC six-parameter single-diode model at its maximum power point, with the
//   parameters SSC gives each module type (Canadian Solar CS1H-320MS, SunPower SPR-E20-327,
//   First Solar FS-6435A);
// - the inverter: Sandia's model with C0 … C3 = 0 (a straight line from the self-consumption Pso
//   to the rating), clipped at the AC rating.
import { DEG } from '../angles.ts';

// Cover optics (the same constants as PVWatts v5's): glass n = 1.526, K = 4 /m, 2 mm; the
// coating n = 1.3, a hundredth of the glass thickness.
const GLASS_N = 1.526;
const GLASS_M = 0.002;
const AR_N = 1.3;
const AR_M = GLASS_M * 0.01;
const EXTINCTION_PER_M = 4;

/** Transmittance of one layer entered from index n1 at theta1 (degrees); the refracted angle in `out`. */
function layer(theta1Deg: number, nLayer: number, nIncoming: number, thicknessM: number, out?: { theta2: number }) {
  const t1 = theta1Deg * DEG;
  const t2 = Math.asin((nIncoming / nLayer) * Math.sin(t1));
  if (out) out.theta2 = t2 / DEG;
  const reflected =
    0.5 * (Math.sin(t2 - t1) ** 2 / Math.sin(t2 + t1) ** 2 + Math.tan(t2 - t1) ** 2 / Math.tan(t2 + t1) ** 2);
  return (1 - reflected) * Math.exp((-EXTINCTION_PER_M * thicknessM) / Math.cos(t2));
}

/** Beam transmittance of the coated glass at an incidence angle (degrees, clamped to 1–89). */
function coatedGlass(thetaDeg: number): number {
  const refracted = { theta2: 0 };
  const coating = layer(thetaDeg, AR_N, 1, AR_M, refracted);
  return coating * layer(refracted.theta2, GLASS_N, AR_N, GLASS_M);
}

/** Normal-incidence transmittance (taken at 1°, as De Soto's 0/0 at 0° requires). */
const TAU_NORMAL = (() => {
  const refracted = { theta2: 0 };
  const coating = layer(1, AR_N, 1, AR_M, refracted);
  return coating * layer(refracted.theta2, GLASS_N, 1, GLASS_M);
})();

/** The beam's incidence-angle modifier through the coated cover, AOI in degrees. */
export function coverBeamModifier(aoiDeg: number): number {
  const theta = Math.min(89, Math.max(1, aoiDeg));
  return Math.min(1, coatedGlass(theta) / TAU_NORMAL);
}

/** Sky and ground diffuse modifiers at a tilt (degrees): the glass at their equivalent angles. */
export function coverDiffuseModifiers(tiltDeg: number): { sky: number; ground: number } {
  const skyAngle = Math.min(89, Math.max(1, 59.7 - 0.1388 * tiltDeg + 0.001497 * tiltDeg * tiltDeg));
  const groundAngle = Math.min(89, Math.max(1, 90 - 0.5788 * tiltDeg + 0.002693 * tiltDeg * tiltDeg));
  return {
    sky: Math.min(1, layer(skyAngle, GLASS_N, 1, GLASS_M) / TAU_NORMAL),
    ground: Math.min(1, layer(groundAngle, GLASS_N, 1, GLASS_M) / TAU_NORMAL),
  };
}

/** The beam modifier at 0°, 0.1° … 90°, for interpolation (the hot loop reads it). */
export const COVER_BEAM_CURVE = Float64Array.from({ length: 902 }, (_, i) => coverBeamModifier(i / 10));

export function coverBeamFromCurve(aoiDeg: number): number {
  const x = Math.min(900, Math.max(0, aoiDeg * 10));
  const i = Math.min(899, Math.floor(x));
  return COVER_BEAM_CURVE[i] + (x - i) * (COVER_BEAM_CURVE[i + 1] - COVER_BEAM_CURVE[i]);
}

const AIR_MASS_COEFFICIENTS = [0.918093, 0.086257, -0.024459, 0.002816, -0.000126];

/** De Soto's spectral (air-mass) modifier for a zenith (degrees, clamped to 0–86) and site elevation. */
export function airMassModifier(zenithDeg: number, elevationM: number): number {
  const z = Math.min(86, Math.max(0, zenithDeg));
  const am = (1 / (Math.cos(z * DEG) + 0.5057 * (96.08 - z) ** -1.634)) * Math.exp(-0.0001184 * elevationM);
  const [a0, a1, a2, a3, a4] = AIR_MASS_COEFFICIENTS;
  const f = a0 + am * (a1 + am * (a2 + am * (a3 + am * a4)));
  return f > 0 ? f : 0;
}

export type V8ModuleType = 'standard' | 'premium' | 'thin_film';

/** A CEC six-parameter module at reference conditions (1,000 W/m², 25 °C). */
export interface CecModule {
  area: number;
  vmp: number;
  imp: number;
  voc: number;
  alphaIsc: number;
  a: number;
  il: number;
  io: number;
  rs: number;
  rsh: number;
  adj: number;
}

/** SSC's module of each type, and the module type's self-shading fill factor and STC efficiency. */
export const V8_MODULES: Readonly<Record<V8ModuleType, { cec: CecModule; fillFactor: number; efficiency: number }>> = {
  standard: {
    cec: {
      area: 1.6864,
      vmp: 35.8,
      imp: 9.01,
      voc: 43.3,
      alphaIsc: 0.004755,
      a: 1.65916,
      il: 9.51393,
      io: 4.37813e-11,
      rs: 0.269953,
      rsh: 654.059,
      adj: 5.79586,
    },
    fillFactor: 0.778,
    efficiency: 0.19,
  },
  premium: {
    cec: {
      area: 1.6297,
      vmp: 54.7,
      imp: 5.98,
      voc: 64.9,
      alphaIsc: 0.0026,
      a: 2.45326,
      il: 6.4704,
      io: 2.01784e-11,
      rs: 0.421231,
      rsh: 261.723,
      adj: 9.56482,
    },
    fillFactor: 0.78,
    efficiency: 0.21,
  },
  thin_film: {
    cec: {
      area: 2.4751,
      vmp: 183.6,
      imp: 2.37,
      voc: 219.6,
      alphaIsc: 0.00102,
      a: 7.97293,
      il: 2.55475,
      io: 2.69243e-12,
      rs: 4.60991,
      rsh: 2476.95,
      adj: -2.49865,
    },
    fillFactor: 0.777,
    efficiency: 0.18,
  },
};

const T_REF_K = 298.15;
const BOLTZMANN_EV = 8.618e-5;
const EG0 = 1.12;

/**
 * The maximum power (W) of one module at an effective irradiance (W/m², after cover and spectrum)
 * and a cell temperature (°C): the CEC model's parameters at those conditions, then the maximum of
 * P over the diode voltage Vd = V + I·Rs, where the single-diode equation gives I explicitly:
 * I = IL − IO(e^(Vd/a) − 1) − Vd/Rsh, V = Vd − I·Rs. Newton's method on dP/dVd = 0, kept inside
 * the bracket where dP/dVd changes sign (P is unimodal between short and open circuit).
 */
export function cecMaxPower(m: CecModule, geff: number, cellC: number): number {
  if (geff < 1) return 0;
  const t = cellC + 273.15;
  const muIsc = m.alphaIsc * (1 - m.adj / 100);
  const il = Math.max(0, (geff / 1000) * (m.il + muIsc * (t - T_REF_K)));
  if (il <= 0) return 0;
  const eg = EG0 * (1 - 0.0002677 * (t - T_REF_K));
  const io = m.io * (t / T_REF_K) ** 3 * Math.exp((1 / BOLTZMANN_EV) * (EG0 / T_REF_K - eg / t));
  const a = (m.a * t) / T_REF_K;
  const gsh = geff / (m.rsh * 1000);
  const rs = m.rs;
  // Open circuit (V = Vd there): f(v) = IL − IO(e^(v/a) − 1) − v·Gsh falls and is concave, so
  // Newton's method from above (the root without the shunt) converges from the right.
  let voc = a * Math.log(il / io + 1);
  for (let k = 0; k < 50; k++) {
    const e = io * Math.exp(voc / a);
    const step = (il - (e - io) - voc * gsh) / (e / a + gsh);
    voc += step;
    if (Math.abs(step) < 1e-12 * (1 + voc)) break;
  }
  let lo = 0;
  let hi = voc;
  let vd = Math.max(0, voc - a * Math.log(1 + voc / a));
  let best = 0;
  for (let k = 0; k < 60; k++) {
    const e = io * Math.exp(vd / a);
    const i = il - (e - io) - vd * gsh;
    const di = -e / a - gsh;
    const d2i = -e / (a * a);
    const v = vd - i * rs;
    const dv = 1 - rs * di;
    const p = v * i;
    if (p > best) best = p;
    const dp = dv * i + v * di;
    const d2p = -rs * d2i * i + 2 * dv * di + v * d2i;
    if (dp > 0) lo = vd;
    else hi = vd;
    let next = d2p < 0 ? vd - dp / d2p : Number.NaN;
    if (!(next > lo && next < hi)) next = (lo + hi) / 2;
    if (Math.abs(next - vd) < 1e-10 * (1 + vd) || hi - lo < 1e-12) break;
    vd = next;
  }
  return best;
}

// Maximum power per module, tabulated against ln(G) and the cell temperature: the hourly loop reads
// it by bilinear interpolation (within 4e-5 of the direct solve, test/engine.solar.pvwattsv8.test.ts).
const LN_G_MIN = 0; // 1 W/m²
const LN_G_MAX = Math.log(2500);
const LN_G_STEPS = 512;
const T_MIN_C = -60;
const T_MAX_C = 120;
const T_STEPS = 90;

export interface PowerTable {
  module: CecModule;
  /** W per module, [t × (LN_G_STEPS + 1) + g]. */
  watts: Float64Array;
}

const tables = new Map<V8ModuleType, PowerTable>();

/** The table of a module type, built once per process on first use. */
export function powerTable(type: V8ModuleType): PowerTable {
  let table = tables.get(type);
  if (!table) {
    const module = V8_MODULES[type].cec;
    const watts = new Float64Array((T_STEPS + 1) * (LN_G_STEPS + 1));
    for (let ti = 0; ti <= T_STEPS; ti++) {
      const t = T_MIN_C + ((T_MAX_C - T_MIN_C) * ti) / T_STEPS;
      for (let gi = 0; gi <= LN_G_STEPS; gi++) {
        const g = Math.exp(LN_G_MIN + ((LN_G_MAX - LN_G_MIN) * gi) / LN_G_STEPS);
        watts[ti * (LN_G_STEPS + 1) + gi] = cecMaxPower(module, g, t);
      }
    }
    table = { module, watts };
    tables.set(type, table);
  }
  return table;
}

/** Maximum power of one module (W) from the table; outside it, the direct solve. */
export function tablePower(table: PowerTable, geff: number, cellC: number): number {
  if (geff < 1) return 0;
  const x = ((Math.log(geff) - LN_G_MIN) / (LN_G_MAX - LN_G_MIN)) * LN_G_STEPS;
  const y = ((cellC - T_MIN_C) / (T_MAX_C - T_MIN_C)) * T_STEPS;
  if (!(x >= 0 && x < LN_G_STEPS && y >= 0 && y < T_STEPS)) return cecMaxPower(table.module, geff, cellC);
  const gi = x | 0;
  const ti = y | 0;
  const fx = x - gi;
  const fy = y - ti;
  const w = table.watts;
  const o = ti * (LN_G_STEPS + 1) + gi;
  const p0 = w[o] + fx * (w[o + 1] - w[o]);
  const p1 = w[o + LN_G_STEPS + 1] + fx * (w[o + LN_G_STEPS + 2] - w[o + LN_G_STEPS + 1]);
  return p0 + fy * (p1 - p0);
}

/** NOCT of the mounting, °C: roof mounts run hotter. */
export const NOCT_OPEN_RACK_C = 45;
export const NOCT_ROOF_MOUNT_C = 49;
/** The CEC calculator's wind factor for mountings under 22 ft. */
const WIND_FACTOR = 0.51;
const TAU_ALPHA = 0.9;

/**
 * The NOCT cell temperature (°C) at an effective front irradiance (after cover and spectrum, W/m²);
 * `efficiencyRef` is the module's Vmp·Imp / (1,000 · area).
 */
export function noctCellTemp(
  geffFront: number,
  tAirC: number,
  windMs: number,
  noctC: number,
  efficiencyRef: number,
): number {
  const wind = Math.max(0.001, windMs * WIND_FACTOR);
  return tAirC + ((geffFront / 800) * (noctC - 20) * (1 - efficiencyRef / TAU_ALPHA) * 9.5) / (5.7 + 3.8 * wind);
}

/** Sandia's self-consumption of PVWatts v8's inverter, as a share of its AC rating, by DC size in W. */
export function inverterSelfConsumptionShare(dcNameplateW: number): number {
  if (dcNameplateW < 10) return 0.002246;
  if (dcNameplateW < 1000) return 0.002478;
  return 0.004931;
}
