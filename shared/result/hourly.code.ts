// The Huffman code the hourly encoder (hourly.deflate.ts) sends a series' rows with: built from
// the symbol counts of one row, with the bits of every piece of value text precomputed, so the
// encoder needs two lookups a value. The counts follow the encoder's choices: the text of each
// value, and a run of values equal to the one before (nights, calms, rated power) as one match
// at the distance of one value's text.
import {
  BitWriter,
  DISTANCE_BASE,
  DISTANCE_EXTRA_BITS,
  DISTANCE_SYMBOL,
  END_OF_BLOCK,
  LENGTH_BASE,
  LENGTH_EXTRA_BITS,
  LENGTH_SYMBOL,
  LITERAL_SYMBOLS,
  MAX_CODE_BITS,
  MAX_MATCH,
  MAX_SHORT_DISTANCE,
  MIN_MATCH,
  writeDynamicHeader,
} from './deflate.block.ts';
import { canonicalCodes, codeLengths } from './deflate.huffman.ts';
import {
  FRACTION_TEXT,
  MAX_BYTES_PER_VALUE,
  type TextTable,
  THOUSANDS_TEXT,
  WHOLE_TEXT,
  writeKwhAsMwh,
} from './hourly.json.ts';

export const COMMA = 44;
export const OPEN = 91;
export const CLOSE = 93;
/** kWh of 0..999.999 MWh: text and bits from the whole and fraction tables. */
export const TABLE_LIMIT = 1_000_000;
/** Up to 999,999.999 MWh: the integer part in two table entries. */
export const THOUSANDS_LIMIT = 1_000_000_000;
/** The most bits the encoder adds at once: its accumulator is an int32. */
export const MAX_PUT_BITS = 31;
/** The bits of a table entry too long for one put: its value is then sent byte by byte. */
export const TOO_LONG = 64;
/** Every byte a row can hold needs a code, even if the row the code is built from has none. */
const ROW_BYTES = Array.from(',-.0123456789[]', (c) => c.charCodeAt(0));
/** A value's text with its comma: 2 (",0") to 13 bytes (",-2147483.648"), distance codes 1..7. */
const DISTANCE_SYMBOLS = 8;

/** (code, bits) for each entry of a table: literal codes back to back, or a match's bits. */
export interface CodeTable {
  code: Int32Array;
  bits: Uint8Array;
}

/** A Huffman code for rows, with everything the encoder looks up precomputed from it. */
export interface RowCode {
  literal: CodeTable;
  whole: CodeTable;
  thousands: CodeTable;
  fraction: CodeTable;
  /** A match's length 3..258: its symbol and extra bits. */
  length: CodeTable;
  /** A match's distance 1..16: its code and extra bits. */
  distance: CodeTable;
  /** The block header, less its last `headerBits` bits (`headerTail`), which start the data. */
  header: Uint8Array;
  headerTail: number;
  headerBits: number;
  /** Output bits per JSON byte of the row the code was built from. */
  bitsPerByte: number;
}

function codeTable(text: TextTable, literal: CodeTable): CodeTable {
  const size = text.text.length;
  const table = { code: new Int32Array(size), bits: new Uint8Array(size) };
  for (let i = 0; i < size; i++) {
    let code = 0;
    let bits = 0;
    for (let k = 0; k < text.length[i]; k++) {
      const byte = (text.text[i] >>> (8 * k)) & 0xff;
      if (bits + literal.bits[byte] > MAX_PUT_BITS) {
        code = 0;
        bits = TOO_LONG;
        break;
      }
      code |= literal.code[byte] << bits;
      bits += literal.bits[byte];
    }
    table.code[i] = code;
    table.bits[i] = bits;
  }
  return table;
}

/** Symbol counts of a row, as countRow makes them. */
interface RowCounts {
  literal: Uint32Array;
  distance: Uint32Array;
}

/** The code for these symbol counts. */
export function buildCode(counts: RowCounts): RowCode {
  const litBits = codeLengths(counts.literal, MAX_CODE_BITS);
  const literal = { code: Int32Array.from(canonicalCodes(litBits)), bits: litBits };
  const distBits = codeLengths(counts.distance, MAX_CODE_BITS);
  const distCode = canonicalCodes(distBits);
  const length = { code: new Int32Array(MAX_MATCH + 1), bits: new Uint8Array(MAX_MATCH + 1) };
  for (let n = MIN_MATCH; n <= MAX_MATCH; n++) {
    const symbol = LENGTH_SYMBOL[n];
    length.code[n] = literal.code[symbol] | ((n - LENGTH_BASE[n]) << litBits[symbol]);
    length.bits[n] = litBits[symbol] + LENGTH_EXTRA_BITS[n];
  }
  const distance = { code: new Int32Array(MAX_SHORT_DISTANCE + 1), bits: new Uint8Array(MAX_SHORT_DISTANCE + 1) };
  for (let d = 1; d <= MAX_SHORT_DISTANCE; d++) {
    const symbol = DISTANCE_SYMBOL[d];
    distance.code[d] = distCode[symbol] | ((d - DISTANCE_BASE[d]) << distBits[symbol]);
    distance.bits[d] = distBits[symbol] + DISTANCE_EXTRA_BITS[d];
  }
  const header = new BitWriter();
  writeDynamicHeader(header, litBits, distBits);
  return {
    literal,
    whole: codeTable(WHOLE_TEXT, literal),
    thousands: codeTable(THOUSANDS_TEXT, literal),
    fraction: codeTable(FRACTION_TEXT, literal),
    length,
    distance,
    header: Uint8Array.from(header.bytes),
    headerTail: header.acc,
    headerBits: header.bits,
    bitsPerByte: 0,
  };
}

/** The next match to send for `left` (≥ 3) bytes of a run: never leaves 1 or 2 bytes over. */
export function matchLength(left: number): number {
  if (left <= MAX_MATCH) return left;
  return left - MAX_MATCH < MIN_MATCH ? MAX_MATCH - MIN_MATCH : MAX_MATCH;
}

/** How many values from `h` on (before `end`) equal the one before `h`. */
function repeatRun(kwh: Int32Array, start: number, h: number, end: number): number {
  const v = kwh[start + h - 1];
  let to = h;
  while (to < end && kwh[start + to] === v) to++;
  return to - h;
}

/** Symbol counts of a row as the encoder sends it: what its code is built from. */
export function countRow(kwh: Int32Array, start: number, hours: number, comma: boolean): RowCounts {
  const freq = new Uint32Array(LITERAL_SYMBOLS);
  const distance = new Uint32Array(DISTANCE_SYMBOLS);
  const whole = new Uint32Array(1000);
  const thousands = new Uint32Array(1000);
  const fraction = new Uint32Array(1000);
  const text = new Uint8Array(MAX_BYTES_PER_VALUE + 2);
  const countText = (end: number) => {
    for (let k = 0; k < end; k++) freq[text[k]]++;
  };
  if (comma) freq[COMMA]++;
  freq[OPEN]++;
  // The first two values as text: a run needs a value with its comma before it.
  if (hours > 0) countText(writeKwhAsMwh(text, 0, kwh[start]));
  text[0] = COMMA;
  if (hours > 1) countText(writeKwhAsMwh(text, 1, kwh[start + 1]));
  for (let h = 2; h < hours; h++) {
    const v = kwh[start + h];
    if (v === kwh[start + h - 1]) {
      const run = repeatRun(kwh, start, h, hours);
      const d = writeKwhAsMwh(text, 1, v);
      if (d * run >= MIN_MATCH) {
        for (let left = d * run, n = 0; left > 0; left -= n) {
          n = matchLength(left);
          freq[LENGTH_SYMBOL[n]]++;
          distance[DISTANCE_SYMBOL[d]]++;
        }
        h += run - 1;
        continue;
      }
    }
    const w = (v / 1000) | 0;
    if (v >>> 0 < TABLE_LIMIT) {
      whole[w]++;
      fraction[v - w * 1000]++;
    } else if (v >>> 0 < THOUSANDS_LIMIT) {
      const hi = (w / 1000) | 0;
      whole[hi]++;
      thousands[w - hi * 1000]++;
      fraction[v - w * 1000]++;
    } else {
      countText(writeKwhAsMwh(text, 1, v));
    }
  }
  freq[CLOSE]++;
  for (const [counts, table] of [
    [whole, WHOLE_TEXT],
    [thousands, THOUSANDS_TEXT],
    [fraction, FRACTION_TEXT],
  ] as const) {
    for (let i = 0; i < 1000; i++) {
      if (counts[i] === 0) continue;
      for (let k = 0; k < table.length[i]; k++) freq[(table.text[i] >>> (8 * k)) & 0xff] += counts[i];
    }
  }
  for (const byte of ROW_BYTES) freq[byte] ||= 1;
  for (let symbol = END_OF_BLOCK; symbol < LITERAL_SYMBOLS; symbol++) freq[symbol] ||= 1;
  for (let symbol = 1; symbol < DISTANCE_SYMBOLS; symbol++) distance[symbol] ||= 1;
  return { literal: freq, distance };
}
