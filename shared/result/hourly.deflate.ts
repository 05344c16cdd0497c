// The web's maker of the full answer (stored.gzip.ts, from the stored form; until 2026-11-29 the
// worker's writer of the stored gzip). One series' hourly rows, year after year, compressed as
// they are written: for each value its
// JSON text comes from tables (hourly.json.ts) and, in the same step, the Huffman bits of that
// text (hourly.code.ts). Each row is one dynamic-Huffman deflate block (RFC 1951) ended by a sync
// flush, so rows are byte-aligned pieces of one stream. The text itself is only kept long enough
// for its CRC-32. Writing the text and then deflating it with zlib took ~24 ms a result.
//
// The code is built from the first row of the result and kept for the others (a series' years
// differ by degradation, not shape); a row it fits badly gets a code of its own. A run of values
// equal to the one before (nights and calms at 0, wind farms at rated power) is one match at the
// distance of that value's text: 12% smaller output, at no cost in time.
import { constants, crc32, deflateRawSync } from 'node:zlib';
import {
  END_OF_BLOCK,
  LITERAL_SYMBOLS,
  MAX_MATCH,
  MAX_SHORT_DISTANCE,
  MIN_MATCH,
  SYNC_FLUSH_TAIL,
} from './deflate.block.ts';
import {
  buildCode,
  CLOSE,
  COMMA,
  type CodeTable,
  countRow,
  MAX_PUT_BITS,
  matchLength,
  OPEN,
  type RowCode,
  TABLE_LIMIT,
  THOUSANDS_LIMIT,
  TOO_LONG,
} from './hourly.code.ts';
import { FRACTION_TEXT, MAX_BYTES_PER_VALUE, WHOLE_TEXT, writeKwhAsMwh } from './hourly.json.ts';

/** Values per chunk: a chunk's text and bits are made in scratch buffers that stay in cache. */
const CHUNK = 2048;
/** The largest block header: 17 bits, 19 × 3 bits, then at most 288 lengths of 7 + 7 bits. */
const MAX_HEADER_BYTES = 520;
/** A value sent byte by byte: 13 bytes of up to 15 bits each. */
const MAX_VALUE_BYTES = 25;
/** A row whose bits per text byte exceed those of its code's own row this much gets a new code. */
const REFIT_RATIO = 1.2;

// All the encoder's buffers and tables are fixed module-level arrays, so that V8 compiles their
// addresses and lengths into the hot loop as constants: measured 1.5× faster than the same loop
// reaching them through objects. One row is encoded at a time, start to end, whatever the series.
// A chunk also holds a row's start (`,[`, its first two values) or its end (`]`, the flush), and
// the hot loop stores 4 bytes where fewer may count: room for a few values more.
const TEXT = new Uint8Array((CHUNK + 4) * MAX_BYTES_PER_VALUE);
const TEXT_VIEW = new DataView(TEXT.buffer);
const OUT = new Uint8Array(MAX_HEADER_BYTES + (CHUNK + 4) * MAX_VALUE_BYTES);
const OUT_VIEW = new DataView(OUT.buffer);
// Imported bindings are live, so V8 rereads and checks them on every use: copies are constants.
const FAST_LIMIT = TABLE_LIMIT;
const FAST_BITS = MAX_PUT_BITS;
const WHOLE_TEXT_BYTES = WHOLE_TEXT.text;
const WHOLE_TEXT_LENGTH = WHOLE_TEXT.length;
const FRACTION_TEXT_BYTES = FRACTION_TEXT.text;
const FRACTION_TEXT_LENGTH = FRACTION_TEXT.length;
// The code of the row being encoded: copies of its RowCode's tables.
const LITERAL_CODE = new Int32Array(LITERAL_SYMBOLS);
const LITERAL_BITS = new Uint8Array(LITERAL_SYMBOLS);
const WHOLE_CODE = new Int32Array(1000);
const WHOLE_BITS = new Uint8Array(1000);
const THOUSANDS_CODE = new Int32Array(1000);
const THOUSANDS_BITS = new Uint8Array(1000);
const FRACTION_CODE = new Int32Array(1000);
const FRACTION_BITS = new Uint8Array(1000);
const LENGTH_CODE = new Int32Array(MAX_MATCH + 1);
const LENGTH_BITS = new Uint8Array(MAX_MATCH + 1);
const DISTANCE_CODE = new Int32Array(MAX_SHORT_DISTANCE + 1);
const DISTANCE_BITS = new Uint8Array(MAX_SHORT_DISTANCE + 1);
// Between calls: bytes used in TEXT and OUT, and BITS bits of ACC not yet in OUT (always < 32).
const STATE = new Int32Array(4);
const TEXT_END = 0;
const OUT_END = 1;
const ACC = 2;
const BITS = 3;

/** Each table of a RowCode and the module-level copy the hot loops read. */
const LOADED: Array<['literal' | 'whole' | 'thousands' | 'fraction' | 'length' | 'distance', Int32Array, Uint8Array]> =
  [
    ['literal', LITERAL_CODE, LITERAL_BITS],
    ['whole', WHOLE_CODE, WHOLE_BITS],
    ['thousands', THOUSANDS_CODE, THOUSANDS_BITS],
    ['fraction', FRACTION_CODE, FRACTION_BITS],
    ['length', LENGTH_CODE, LENGTH_BITS],
    ['distance', DISTANCE_CODE, DISTANCE_BITS],
  ];

function load(code: RowCode): void {
  for (const [name, codes, bits] of LOADED) {
    const table: CodeTable = code[name];
    codes.set(table.code);
    bits.set(table.bits);
  }
}

/** Appends the low `bits` (at most 31) bits of `value`, least significant first. */
function put(value: number, bits: number): void {
  const pending = STATE[BITS];
  const acc = STATE[ACC] | (value << pending);
  if (pending + bits < 32) {
    STATE[ACC] = acc;
    STATE[BITS] = pending + bits;
    return;
  }
  OUT_VIEW.setInt32(STATE[OUT_END], acc, true);
  STATE[OUT_END] += 4;
  // What did not fit: value >> (32 - pending), with pending ≥ 1 here.
  STATE[ACC] = (value >> 1) >> (31 - pending);
  STATE[BITS] = pending + bits - 32;
}

/** The literal codes of TEXT[from..to). */
function putText(from: number, to: number): void {
  for (let k = from; k < to; k++) put(LITERAL_CODE[TEXT[k]], LITERAL_BITS[TEXT[k]]);
}

/** A value the hot loop leaves: negative, over 999 MWh, or with a code too long for one put. */
function putValue(v: number): void {
  const from = STATE[TEXT_END];
  TEXT[from] = COMMA;
  const end = writeKwhAsMwh(TEXT, from + 1, v);
  STATE[TEXT_END] = end;
  if (v >>> 0 >= TABLE_LIMIT && v >>> 0 < THOUSANDS_LIMIT) {
    // Plants over ~1 GW: the integer part's last 3 digits from a table of their own.
    const w = (v / 1000) | 0;
    const hi = (w / 1000) | 0;
    const lo = w - hi * 1000;
    const f = v - w * 1000;
    if (WHOLE_BITS[hi] !== TOO_LONG && THOUSANDS_BITS[lo] !== TOO_LONG && FRACTION_BITS[f] !== TOO_LONG) {
      put(WHOLE_CODE[hi], WHOLE_BITS[hi]);
      put(THOUSANDS_CODE[lo], THOUSANDS_BITS[lo]);
      put(FRACTION_CODE[f], FRACTION_BITS[f]);
      return;
    }
  }
  putText(from, end);
}

/**
 * The run of values at h (h ≥ 2, before `end`) equal to the one before: their text, and matches
 * copying it from one value back. Returns where the run ends. Apart from encodeValues: in it, this
 * loop kept V8 from compiling the tables' addresses in (~0.7 ms a result).
 */
function putRepeats(kwh: Int32Array, start: number, h: number, end: number): number {
  const v = kwh[start + h];
  const from = STATE[TEXT_END];
  let to = h;
  let d: number;
  if (v >>> 0 < FAST_LIMIT) {
    const w = (v / 1000) | 0;
    const f = v - w * 1000;
    const wholeLength = WHOLE_TEXT_LENGTH[w];
    const wholeText = WHOLE_TEXT_BYTES[w];
    const fractionText = FRACTION_TEXT_BYTES[f];
    d = wholeLength + FRACTION_TEXT_LENGTH[f];
    for (let p = from; to < end && kwh[start + to] === v; to++, p += d) {
      TEXT_VIEW.setInt32(p, wholeText, true);
      TEXT_VIEW.setInt32(p + wholeLength, fractionText, true);
    }
  } else {
    while (to < end && kwh[start + to] === v) to++;
    TEXT[from] = COMMA;
    d = writeKwhAsMwh(TEXT, from + 1, v) - from;
    for (let i = from + d; i < from + d * (to - h); i++) TEXT[i] = TEXT[i - d];
  }
  const total = d * (to - h);
  if (total < MIN_MATCH) {
    // A single repeat of a one-digit value (",0"): too short for a match.
    STATE[TEXT_END] = from + d;
    putText(from, from + d);
    return h + 1;
  }
  STATE[TEXT_END] = from + total;
  for (let left = total; left > 0; ) {
    const length = matchLength(left);
    left -= length;
    const lengthBits = LENGTH_BITS[length];
    const bits = lengthBits + DISTANCE_BITS[d];
    if (bits <= FAST_BITS) {
      put(LENGTH_CODE[length] | (DISTANCE_CODE[d] << lengthBits), bits);
    } else {
      put(LENGTH_CODE[length], lengthBits);
      put(DISTANCE_CODE[d], DISTANCE_BITS[d]);
    }
  }
  return to;
}

/**
 * Values h..end-1 of the row at `start` (h ≥ 2: see putRepeats), after TEXT_END and
 * OUT_END. A put ORs up to 31 bits into `acc` above its `bits` pending ones, always stores the
 * 4 bytes of `acc`, and moves on 4 bytes only if they filled up, keeping the bits that did not
 * fit: no branch, where one mispredicted on a third of the values and cost ~1 ms a result.
 */
function encodeValues(kwh: Int32Array, start: number, h: number, end: number): void {
  let jp = STATE[TEXT_END];
  let op = STATE[OUT_END];
  let acc = STATE[ACC];
  let bits = STATE[BITS];
  let previous = kwh[start + h - 1];
  for (; h < end; h++) {
    const v = kwh[start + h];
    if (v === previous) {
      STATE[TEXT_END] = jp;
      STATE[OUT_END] = op;
      STATE[ACC] = acc;
      STATE[BITS] = bits;
      h = putRepeats(kwh, start, h, end) - 1;
      jp = STATE[TEXT_END];
      op = STATE[OUT_END];
      acc = STATE[ACC];
      bits = STATE[BITS];
      continue;
    }
    previous = v;
    if (v >>> 0 < FAST_LIMIT) {
      const w = (v / 1000) | 0;
      const f = v - w * 1000;
      const wn = WHOLE_BITS[w];
      const n = wn + FRACTION_BITS[f];
      if (n <= FAST_BITS) {
        TEXT_VIEW.setInt32(jp, WHOLE_TEXT_BYTES[w], true);
        jp += WHOLE_TEXT_LENGTH[w];
        TEXT_VIEW.setInt32(jp, FRACTION_TEXT_BYTES[f], true);
        jp += FRACTION_TEXT_LENGTH[f];
        const c = WHOLE_CODE[w] | (FRACTION_CODE[f] << wn);
        acc |= c << bits;
        const over = (c >> 1) >> (31 - bits);
        bits += n;
        OUT_VIEW.setInt32(op, acc, true);
        const full = bits >> 5;
        op += full << 2;
        acc = (acc & (full - 1)) | (over & -full);
        bits &= 31;
        continue;
      }
    }
    STATE[TEXT_END] = jp;
    STATE[OUT_END] = op;
    STATE[ACC] = acc;
    STATE[BITS] = bits;
    putValue(v);
    jp = STATE[TEXT_END];
    op = STATE[OUT_END];
    acc = STATE[ACC];
    bits = STATE[BITS];
  }
  STATE[TEXT_END] = jp;
  STATE[OUT_END] = op;
  STATE[ACC] = acc;
  STATE[BITS] = bits;
}

/** One series of one result at a time: reset, then addRow for each year in order. */
export class HourlyDeflate {
  /** The deflate data: one piece per row, each ending byte-aligned. */
  out = new Uint8Array(0);
  outLength = 0;
  /** CRC-32 and length of the JSON text the data inflates to: the rows, `,`-separated. */
  crc = 0;
  textLength = 0;
  #code: RowCode | null = null;

  reset(): void {
    this.outLength = 0;
    this.crc = 0;
    this.textLength = 0;
    this.#code = null;
  }

  addRow(kwh: Int32Array, start: number, hours: number): void {
    const comma = this.textLength > 0;
    const before = { outLength: this.outLength, crc: this.crc, textLength: this.textLength };
    let code = this.#code;
    if (code !== null) {
      this.#encodeRow(kwh, start, hours, comma, code);
      if (this.#bitsPerByte(before) <= REFIT_RATIO * code.bitsPerByte) return;
      this.outLength = before.outLength;
      this.crc = before.crc;
      this.textLength = before.textLength;
    }
    code = buildCode(countRow(kwh, start, hours, comma));
    this.#encodeRow(kwh, start, hours, comma, code);
    code.bitsPerByte = this.#bitsPerByte(before);
    this.#code = code;
  }

  /**
   * A row of values already rounded to their decimals, as JSON.stringify prints them, compressed
   * by zlib: the rows of a small system, which need more than 3 decimals of MWh (hourly.precision.ts).
   */
  addTextRow(values: Float64Array): void {
    const text = Buffer.from(`${this.textLength > 0 ? ',' : ''}${JSON.stringify(Array.from(values))}`);
    const piece = deflateRawSync(text, { level: 1, finishFlush: constants.Z_SYNC_FLUSH });
    this.crc = crc32(text, this.crc);
    this.textLength += text.length;
    if (this.out.length < this.outLength + piece.length) {
      const larger = new Uint8Array(Math.max(this.outLength + piece.length, 2 * this.out.length));
      larger.set(this.out.subarray(0, this.outLength));
      this.out = larger;
    }
    this.out.set(piece, this.outLength);
    this.outLength += piece.length;
  }

  /** The data written since the last take, as a copy; the buffer is then empty (crc and textLength go on). */
  take(): Uint8Array {
    const piece = this.out.slice(0, this.outLength);
    this.outLength = 0;
    return piece;
  }

  #bitsPerByte(before: { outLength: number; textLength: number }): number {
    return (8 * (this.outLength - before.outLength)) / (this.textLength - before.textLength);
  }

  #encodeRow(kwh: Int32Array, start: number, hours: number, comma: boolean, code: RowCode): void {
    load(code);
    OUT.set(code.header);
    STATE[OUT_END] = code.header.length;
    STATE[ACC] = code.headerTail;
    STATE[BITS] = code.headerBits;
    let jp = 0;
    if (comma) TEXT[jp++] = COMMA;
    TEXT[jp++] = OPEN;
    if (hours > 0) jp = writeKwhAsMwh(TEXT, jp, kwh[start]);
    STATE[TEXT_END] = jp;
    putText(0, jp);
    if (hours > 1) putValue(kwh[start + 1]);
    for (let h = 2; h < hours; h += CHUNK) {
      encodeValues(kwh, start, h, Math.min(h + CHUNK, hours));
      this.#drain();
    }
    TEXT[STATE[TEXT_END]++] = CLOSE;
    put(LITERAL_CODE[CLOSE], LITERAL_BITS[CLOSE]);
    put(LITERAL_CODE[END_OF_BLOCK], LITERAL_BITS[END_OF_BLOCK]);
    // Byte-aligned, as zlib's Z_SYNC_FLUSH ends: an empty stored block (3 header bits, padding).
    put(0, 3);
    for (let k = 0; k < STATE[BITS]; k += 8) OUT[STATE[OUT_END]++] = STATE[ACC] >> k;
    OUT.set(SYNC_FLUSH_TAIL, STATE[OUT_END]);
    STATE[OUT_END] += SYNC_FLUSH_TAIL.length;
    this.#drain();
  }

  /** Moves the finished bytes out of the scratch buffers: text into the CRC, output here. */
  #drain(): void {
    const textEnd = STATE[TEXT_END];
    const outEnd = STATE[OUT_END];
    this.crc = crc32(TEXT.subarray(0, textEnd), this.crc);
    this.textLength += textEnd;
    if (this.out.length < this.outLength + outEnd) {
      const larger = new Uint8Array(Math.max(this.outLength + outEnd, 2 * this.out.length));
      larger.set(this.out.subarray(0, this.outLength));
      this.out = larger;
    }
    this.out.set(OUT.subarray(0, outEnd), this.outLength);
    this.outLength += outEnd;
    STATE[TEXT_END] = 0;
    STATE[OUT_END] = 0;
  }
}
