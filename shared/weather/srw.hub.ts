// The wind at hub height from an SRW file, picked as SSC's winddata_provider::read and
// cmod_windpower pick it: for each field the measured height closest to the hub; when the hub
// lies strictly between two measured heights, linear interpolation between the closest one and
// the closest one on the other side (direction across north the short way); the shear exponent
// only for a speed still more than 1 m from the hub (outside the measured range, or a single
// height). SSC's limits are errors here: the speed's height more than 35 m from the hub, the
// direction's height more than 10 m from the speed's, a speed outside 0–120 m/s, a temperature
// outside −200–100 °C. Pressure in atm (0.5–1.1) is converted to Pa; other values are taken as
// Pa, as SSC does, and must lie within 50–110 kPa (our check: SSC has none).
import { HOURS_PER_YEAR as HOURS } from '../calendar.ts';
import { SRW_FIRST_DATA_LINE, type SrwData, type SrwField, srwRow } from './srw.ts';
import type { WindSteps } from './types.ts';
import { WeatherFileError } from './weather.error.ts';

const PA_PER_ATM = 101325;
/** SSC's limits, m. */
const MAX_SPEED_HEIGHT_GAP = 35;
const MAX_DIRECTION_HEIGHT_GAP = 10;

/** A hub height the file cannot serve (SSC's limits): an error of the hub height, not of a line. */
export class HubHeightError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'HubHeightError';
  }
}

/** Which columns give a field at the hub: one, or two to interpolate between with weight w of the second. */
interface Pick {
  first: number;
  second: number;
  /** Weight of `second` (0 when there is no second). */
  w: number;
  /** The height the value stands for: the hub when interpolated, else the column's. */
  heightM: number;
}

function pickColumns(data: SrwData, field: SrwField, hubM: number): Pick {
  const { columns } = data;
  let first = -1;
  for (let i = 0; i < columns.length; i++) {
    if (columns[i].field !== field) continue;
    if (first < 0 || Math.abs(columns[i].heightM - hubM) < Math.abs(columns[first].heightM - hubM)) first = i;
  }
  const h1 = columns[first].heightM;
  if (h1 === hubM) return { first, second: -1, w: 0, heightM: h1 };
  let second = -1;
  for (let i = 0; i < columns.length; i++) {
    if (i === first || columns[i].field !== field) continue;
    const other = columns[i].heightM;
    const opposite = (other > hubM && h1 < hubM) || (other < hubM && h1 > hubM);
    if (opposite && (second < 0 || Math.abs(other - hubM) < Math.abs(columns[second].heightM - hubM))) second = i;
  }
  if (second < 0) return { first, second: -1, w: 0, heightM: h1 };
  const h2 = columns[second].heightM;
  return { first, second, w: (hubM - h1) / (h2 - h1), heightM: hubM };
}

/** SSC's direction interpolation: both in [0, 360), across north the short way. */
function interpolateDirection(d1: number, d2: number, w: number): number {
  let a = d1 % 360;
  if (a < 0) a += 360;
  let b = d2 % 360;
  if (b < 0) b += 360;
  let wa = 1 - w;
  if (a > b) {
    [a, b] = [b, a];
    wa = w;
  }
  // a is now the smaller direction, with weight wa.
  if (a < 90 && b > 270) {
    const d = wa * (a + 90) + (1 - wa) * (b - 270) - 90;
    return d < 0 ? d + 360 : d;
  }
  return wa * a + (1 - wa) * b;
}

function checkHeights(speed: Pick, direction: Pick, hubM: number): void {
  if (Math.abs(speed.heightM - hubM) > MAX_SPEED_HEIGHT_GAP) {
    throw new HubHeightError(
      `the wind file's closest speed height (${speed.heightM} m) is more than ${MAX_SPEED_HEIGHT_GAP} m from the hub height (${hubM} m)`,
    );
  }
  if (Math.abs(direction.heightM - speed.heightM) > MAX_DIRECTION_HEIGHT_GAP) {
    throw new HubHeightError(
      `the wind file's closest direction height (${direction.heightM} m) is more than ${MAX_DIRECTION_HEIGHT_GAP} m from its speed height (${speed.heightM} m)`,
    );
  }
}

/** The hub-height wind of every step of the year; throws WeatherFileError or HubHeightError. */
export function srwHubSteps(data: SrwData, hubM: number, shearExponent: number): WindSteps {
  const pick = {
    speed: pickColumns(data, 'speed', hubM),
    direction: pickColumns(data, 'direction', hubM),
    temperature: pickColumns(data, 'temperature', hubM),
    pressure: pickColumns(data, 'pressure', hubM),
  };
  checkHeights(pick.speed, pick.direction, hubM);
  const shear =
    Math.abs(pick.speed.heightM - hubM) > 1
      ? (hubM / pick.speed.heightM) ** (shearExponent > 1 ? 1 / 7 : shearExponent)
      : 1;
  const n = HOURS * data.stepsPerHour;
  const out: WindSteps = {
    stepsPerHour: data.stepsPerHour,
    speedMs: new Float64Array(n),
    directionDeg: new Float64Array(n),
    tempC: new Float64Array(n),
    pressurePa: new Float64Array(n),
  };
  const width = data.columns.length;
  const { values } = data;
  const read = (p: Pick, row: number, what: string): number => {
    const a = values[row * width + p.first];
    const b = p.second >= 0 ? values[row * width + p.second] : a;
    if (Number.isNaN(a) || Number.isNaN(b)) {
      throw new WeatherFileError(
        SRW_FIRST_DATA_LINE + row,
        `${what} is N/A`,
        (Number.isNaN(a) ? p.first : p.second) + 1,
      );
    }
    return p.second >= 0 ? a + p.w * (b - a) : a;
  };
  // Direction is interpolated the short way round, so its two columns are read one by one.
  const d = pick.direction;
  const dirFirst: Pick = { first: d.first, second: -1, w: 0, heightM: d.heightM };
  const dirSecond: Pick | null = d.second >= 0 ? { first: d.second, second: -1, w: 0, heightM: d.heightM } : null;
  const directions = out.directionDeg as Float64Array;
  for (let s = 0; s < n; s++) {
    const row = srwRow(data, s);
    const line = SRW_FIRST_DATA_LINE + row;
    const speed = read(pick.speed, row, 'speed');
    if (!(speed >= 0 && speed <= 120))
      throw new WeatherFileError(line, `speed ${speed} m/s is outside 0 to 120`, pick.speed.first + 1);
    out.speedMs[s] = speed * shear;
    const t = read(pick.temperature, row, 'temperature');
    if (!(t >= -200 && t <= 100))
      throw new WeatherFileError(line, `temperature ${t} °C is outside −200 to 100`, pick.temperature.first + 1);
    out.tempC[s] = t;
    const p = read(pick.pressure, row, 'pressure');
    const pa = p > 0.5 && p < 1.1 ? p * PA_PER_ATM : p;
    if (!(pa >= 50_000 && pa <= 110_000)) {
      throw new WeatherFileError(
        line,
        `pressure ${p} is neither atm (0.5 to 1.1) nor Pa (50,000 to 110,000)`,
        pick.pressure.first + 1,
      );
    }
    out.pressurePa[s] = pa;
    const d1 = read(dirFirst, row, 'direction');
    directions[s] = dirSecond ? interpolateDirection(d1, read(dirSecond, row, 'direction'), pick.direction.w) : d1;
  }
  return out;
}
