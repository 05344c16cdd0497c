// The stored form of a result's statements with their hourly series (scenario_results.statements_gzip,
// since 2026-11-29): not the answer's gzip JSON, but the same values in a smaller lossless binary
// form, which the web turns back into exactly the JSON it always sent (stored.gzip.ts). Written by
// the worker (worker/result/serialize.ts), read only by the web.
//
// Why: a battery that cycles every day has six hourly series whose values are close to
// incompressible as text (bench/README.md, "PVWatts v8 at v5's cost; the cycling battery's bytes");
// as integers, each a zigzag LEB128 varint, deflated row by row, they take a quarter less.
//
// Layout, integers little-endian:
//   0  4  MAGIC: 'H' 'G' 'S' 2. A gzip member starts 1f 8b: the two forms cannot be mistaken, and a
//         row stored before this form (gzip JSON) is read as it always was (isStoredForm).
//   4  1  d, the decimals of MWh of every value (3: kWh; up to 9: worker/result/hourly.precision.ts)
//   5  1  S, the number of series
//   6  2  Y, years
//   8  4  H, hours a year
//  12  4  T, the length of the statements' JSON text less its last `}` (the lite form's text)
//  16  4  the CRC-32 of that text
//  20  4  B, the length of its deflate piece
//  24  S  each series' index in the registry (shared/hourly.series.ts), in the registry's order
//      B  the piece: raw deflate of the text, ended by a sync flush (byte-aligned, not final)
//    4SY  each row's length, series by series, year by year
//         the rows: each a raw deflate (zlib, ROW_LEVEL) of H varints, value i being
//         round(MWh · 10^d), zigzagged (0, -1, 1, -2 … → 0, 1, 2, 3 …), compressed on its own
//         and ended by a sync flush (byte-aligned, no final block)
//
// Each row on its own: a year of the hourly arrays (?year, the viewer's charts) inflates Y times
// less; across years a row shares little with the last (degradation moves every value). Ended by
// a sync flush and not final, a series' rows back to back are one raw deflate stream too, which
// the full answer inflates in one call (readSeries), not Y.
import { constants, deflateRawSync, inflateRawSync } from 'node:zlib';
import { HOURLY_NAMES, type HourlySeriesName } from '../hourly.series.ts';

export const MAGIC = Buffer.from([0x48, 0x47, 0x53, 2]);
const FIXED = 24;
/** The first bytes of a stored result that tell whether it is a stored form (isStoredForm). */
export const HEAD_BYTES = FIXED;
/**
 * zlib's level for the rows. On the cycling battery (bench #1's `working` scenario): levels 1, 3
 * and 6 stored its rows in 1,591,126, 1,561,625 and 1,537,050 bytes, in 56, 53 and 66 ms (one
 * process, medians of 5, load average 0.7 on 2 CPUs); 3 is the fastest of them here.
 */
const ROW_LEVEL = 3;

/** True when these stored bytes are this form (else: gzip JSON, as stored before it). */
export function isStoredForm(bytes: Uint8Array): boolean {
  return bytes.length >= FIXED && MAGIC.every((b, i) => bytes[i] === b);
}

/** kWh integers (int32) as varints into `buf` from 0 (room: 5 bytes a value); returns the end. */
function writeInt32Varints(values: Int32Array, buf: Uint8Array): number {
  let p = 0;
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    let z = ((v << 1) ^ (v >> 31)) >>> 0;
    while (z >= 0x80) {
      buf[p++] = (z & 0x7f) | 0x80;
      z >>>= 7;
    }
    buf[p++] = z;
  }
  return p;
}

const WIDEST = 2 ** 52;

/** Integers under 2^52 in magnitude (many decimals) as varints into `buf` from 0 (room: 8 bytes a value); returns the end. */
function writeWideVarints(values: Float64Array, buf: Uint8Array): number {
  let p = 0;
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    // Zigzagged, |v| < 2^52 stays below 2^53, where doubles hold every integer.
    if (!(Number.isInteger(v) && Math.abs(v) < WIDEST)) {
      throw new RangeError(`an hourly value of ${v} cannot be stored (not an integer under 2^52)`);
    }
    let z = v >= 0 ? 2 * v : -2 * v - 1;
    while (z >= 0x80) {
      buf[p++] = (z % 0x80) | 0x80;
      z = Math.floor(z / 0x80);
    }
    buf[p++] = z;
  }
  return p;
}

/**
 * The varints of `bytes` from `at` into `out`, all of it; returns where they end. 32-bit
 * operations while a value fits them (every kWh value of a plant under ~1 TWh an hour), arithmetic
 * beyond: measured 4× faster than arithmetic alone.
 */
function readVarintsFrom(bytes: Uint8Array, at: number, out: Float64Array): number {
  let p = at;
  const n = bytes.length;
  for (let i = 0; i < out.length; i++) {
    if (p >= n) throw new Error('stored form: a row is shorter than a year');
    let byte = bytes[p++];
    let z = byte & 0x7f;
    let shift = 7;
    while (byte >= 0x80 && shift < 28) {
      byte = bytes[p++];
      z |= (byte & 0x7f) << shift;
      shift += 7;
    }
    if (byte >= 0x80) {
      // Wider than 28 bits: the rest by multiplication (z so far is below 2^28, non-negative).
      do {
        byte = bytes[p++];
        z += (byte & 0x7f) * 2 ** shift;
        shift += 7;
      } while (byte >= 0x80);
      out[i] = z % 2 === 0 ? z / 2 : -(z + 1) / 2;
    } else {
      out[i] = (z >>> 1) ^ -(z & 1);
    }
  }
  return p;
}

/** One result's stored form, built row by row. */
export class StoredFormWriter {
  /** The decimals of MWh of the values given to addRow. */
  decimals = 3;
  #hours = 0;
  /** The compressed rows back to back, as they came (year by year), and where each series' are. */
  #data = new Uint8Array(0);
  #dataLength = 0;
  readonly #rows = new Map<HourlySeriesName, Array<{ at: number; length: number }>>();
  #scratch = new Uint8Array(0);

  begin(): void {
    this.#hours = 0;
    this.#dataLength = 0;
    this.#rows.clear();
  }

  /** One year of one series: integers, each round(MWh · 10^decimals). */
  addRow(name: HourlySeriesName, values: Int32Array | Float64Array): void {
    if (this.#hours === 0) this.#hours = values.length;
    else if (values.length !== this.#hours)
      throw new RangeError(`a row of ${values.length} hours after rows of ${this.#hours}`);
    if (this.#scratch.length < 8 * values.length) this.#scratch = new Uint8Array(8 * values.length);
    const end =
      values instanceof Int32Array ? writeInt32Varints(values, this.#scratch) : writeWideVarints(values, this.#scratch);
    const row = deflateRawSync(this.#scratch.subarray(0, end), {
      level: ROW_LEVEL,
      finishFlush: constants.Z_SYNC_FLUSH,
    });
    if (this.#data.length < this.#dataLength + row.length) {
      const larger = new Uint8Array(Math.max(this.#dataLength + row.length, 2 * this.#data.length, 1 << 20));
      larger.set(this.#data.subarray(0, this.#dataLength));
      this.#data = larger;
    }
    this.#data.set(row, this.#dataLength);
    const rows = this.#rows.get(name) ?? [];
    this.#rows.set(name, rows);
    rows.push({ at: this.#dataLength, length: row.length });
    this.#dataLength += row.length;
  }

  /** The stored form: `bodyPiece` deflates to the statements' text less its `}` (length, CRC-32). */
  finish(bodyPiece: Uint8Array, bodyCrc: number, bodyLength: number): Buffer {
    const names = HOURLY_NAMES.filter((n) => this.#rows.has(n));
    const years = names.length ? (this.#rows.get(names[0]) ?? []).length : 0;
    const rows = names.flatMap((n) => {
      const series = this.#rows.get(n) ?? [];
      if (series.length !== years) throw new RangeError(`series ${n} has ${series.length} years, not ${years}`);
      return series;
    });
    const total = FIXED + names.length + bodyPiece.length + 4 * rows.length + this.#dataLength;
    // Its own ArrayBuffer (never Node's shared pool), so it can be moved between threads and freed.
    const out = Buffer.from(new ArrayBuffer(total));
    out.set(MAGIC, 0);
    out.writeUInt8(this.decimals, 4);
    out.writeUInt8(names.length, 5);
    out.writeUInt16LE(years, 6);
    out.writeUInt32LE(this.#hours, 8);
    out.writeUInt32LE(bodyLength, 12);
    out.writeUInt32LE(bodyCrc >>> 0, 16);
    out.writeUInt32LE(bodyPiece.length, 20);
    let p = FIXED;
    for (const n of names) out[p++] = HOURLY_NAMES.indexOf(n);
    out.set(bodyPiece, p);
    p += bodyPiece.length;
    for (const r of rows) {
      out.writeUInt32LE(r.length, p);
      p += 4;
    }
    for (const r of rows) {
      out.set(this.#data.subarray(r.at, r.at + r.length), p);
      p += r.length;
    }
    this.begin();
    return out;
  }
}

/** A stored form, read: where each of its parts is. */
export interface StoredForm {
  decimals: number;
  names: HourlySeriesName[];
  years: number;
  hours: number;
  bodyLength: number;
  bodyCrc: number;
  bodyPiece: Uint8Array;
  /** Row `year` (0-based) of series `k` (an index into `names`): deflated varints. */
  row(k: number, year: number): Uint8Array;
}

export function parseStoredForm(bytes: Uint8Array): StoredForm {
  if (!isStoredForm(bytes)) throw new Error('not a stored form of a result');
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const count = buf.readUInt8(5);
  const years = buf.readUInt16LE(6);
  const pieceLength = buf.readUInt32LE(20);
  const names = Array.from(buf.subarray(FIXED, FIXED + count), (i) => {
    const name = HOURLY_NAMES[i];
    if (!name) throw new Error(`stored form: unknown series ${i}`);
    return name;
  });
  const pieceStart = FIXED + count;
  const lengthsStart = pieceStart + pieceLength;
  const offsets = new Float64Array(count * years + 1);
  offsets[0] = lengthsStart + 4 * count * years;
  for (let r = 0; r < count * years; r++) offsets[r + 1] = offsets[r] + buf.readUInt32LE(lengthsStart + 4 * r);
  if (offsets[count * years] !== buf.length) throw new Error('stored form: its rows do not end where it does');
  return {
    decimals: buf.readUInt8(4),
    names,
    years,
    hours: buf.readUInt32LE(8),
    bodyLength: buf.readUInt32LE(12),
    bodyCrc: buf.readUInt32LE(16),
    bodyPiece: buf.subarray(pieceStart, lengthsStart),
    row: (k, year) => buf.subarray(offsets[k * years + year], offsets[k * years + year + 1]),
  };
}

const SYNC = { finishFlush: constants.Z_SYNC_FLUSH };

/** A row's integers (round(MWh · 10^decimals)) into `out`, whose length is the form's hours. */
export function readRow(form: StoredForm, k: number, year: number, out: Float64Array): void {
  const bytes = inflateRawSync(form.row(k, year), SYNC);
  if (readVarintsFrom(bytes, 0, out) !== bytes.length) throw new Error('stored form: a row holds more than a year');
}

/** Every row of series `k`, inflated in one call: `each(year, values)` in turn, `values` reused. */
export function readSeries(form: StoredForm, k: number, each: (year: number, values: Float64Array) => void): void {
  if (form.years === 0) return;
  const first = form.row(k, 0);
  const last = form.row(k, form.years - 1);
  // The series' rows are contiguous in the form.
  const bytes = inflateRawSync(
    Buffer.from(first.buffer, first.byteOffset, last.byteOffset + last.byteLength - first.byteOffset),
    SYNC,
  );
  const values = new Float64Array(form.hours);
  let at = 0;
  for (let y = 0; y < form.years; y++) {
    at = readVarintsFrom(bytes, at, values);
    each(y, values);
  }
  if (at !== bytes.length) throw new Error('stored form: a series holds more than its rows');
}

/** A row as the MWh numbers the JSON carries (each the double its text parses to). */
export function rowMwh(form: StoredForm, k: number, year: number): Float64Array {
  const out = new Float64Array(form.hours);
  readRow(form, k, year, out);
  const scale = 10 ** form.decimals;
  for (let h = 0; h < out.length; h++) out[h] /= scale;
  return out;
}
