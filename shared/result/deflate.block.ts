// The fixed parts of a deflate stream (RFC 1951) that the hourly encoder needs around its data:
// match length and distance codes, the header of a dynamic-Huffman block, stored blocks.
import { canonicalCodes, codeLengths } from './deflate.huffman.ts';

export const END_OF_BLOCK = 256;
/** Literal/length alphabet: bytes, end of block, length symbols 257..285. */
export const LITERAL_SYMBOLS = 286;
export const MAX_CODE_BITS = 15;
export const MIN_MATCH = 3;
export const MAX_MATCH = 258;
/** Deflate's empty stored block after a block: what zlib's Z_SYNC_FLUSH writes once byte-aligned. */
export const SYNC_FLUSH_TAIL = [0, 0, 0xff, 0xff];

/** For each match length 3..258: its symbol, and how many extra bits carry length - base. */
export const LENGTH_SYMBOL = new Uint16Array(MAX_MATCH + 1);
export const LENGTH_EXTRA_BITS = new Uint8Array(MAX_MATCH + 1);
export const LENGTH_BASE = new Uint16Array(MAX_MATCH + 1);
{
  // Symbols 257..284: 8 with no extra bits, then 4 each with 1..5 extra bits; 285 is 258 alone.
  let base = MIN_MATCH;
  for (let symbol = 257; symbol < 285; symbol++) {
    const extra = symbol < 265 ? 0 : (symbol - 261) >> 2;
    for (let length = base; length < base + (1 << extra) && length < MAX_MATCH; length++) {
      LENGTH_SYMBOL[length] = symbol;
      LENGTH_EXTRA_BITS[length] = extra;
      LENGTH_BASE[length] = base;
    }
    base += 1 << extra;
  }
  LENGTH_SYMBOL[MAX_MATCH] = 285;
  LENGTH_BASE[MAX_MATCH] = MAX_MATCH;
}

/** Distances 1..16 (the first 8 distance codes, all a value's text needs): code, extra bits. */
export const MAX_SHORT_DISTANCE = 16;
export const DISTANCE_SYMBOL = new Uint8Array(MAX_SHORT_DISTANCE + 1);
export const DISTANCE_EXTRA_BITS = new Uint8Array(MAX_SHORT_DISTANCE + 1);
export const DISTANCE_BASE = new Uint8Array(MAX_SHORT_DISTANCE + 1);
{
  // Codes 0..3 are distances 1..4; then pairs of codes with 1, 2, … extra bits.
  let base = 1;
  for (let symbol = 0; base <= MAX_SHORT_DISTANCE; symbol++) {
    const extra = symbol < 4 ? 0 : (symbol - 2) >> 1;
    for (let distance = base; distance < base + (1 << extra); distance++) {
      DISTANCE_SYMBOL[distance] = symbol;
      DISTANCE_EXTRA_BITS[distance] = extra;
      DISTANCE_BASE[distance] = base;
    }
    base += 1 << extra;
  }
}

/** Packs bits from the least significant end, as deflate does; for headers, not the hot loop. */
export class BitWriter {
  readonly bytes: number[] = [];
  acc = 0;
  bits = 0;

  put(value: number, bits: number): void {
    this.acc |= value << this.bits;
    this.bits += bits;
    while (this.bits >= 8) {
      this.bytes.push(this.acc & 0xff);
      this.acc >>>= 8;
      this.bits -= 8;
    }
  }
}

/** The order in which a block header sends the code-length code's own lengths. */
const CODE_LENGTH_ORDER = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15];

/**
 * Starts a non-final dynamic-Huffman block with these literal/length and distance code lengths:
 * BFINAL, BTYPE, HLIT, HDIST, HCLEN, the code-length code, then both lengths run-length coded.
 */
export function writeDynamicHeader(out: BitWriter, litLengths: Uint8Array, distLengths: Uint8Array): void {
  let hlit = litLengths.length;
  while (hlit > 257 && litLengths[hlit - 1] === 0) hlit--;
  let hdist = distLengths.length;
  while (hdist > 1 && distLengths[hdist - 1] === 0) hdist--;
  const runs = runLengthCode([...litLengths.subarray(0, hlit), ...distLengths.subarray(0, hdist)]);
  const freq = new Uint32Array(19);
  for (let i = 0; i < runs.length; i += 3) freq[runs[i]]++;
  const clLengths = codeLengths(freq, 7);
  const clCodes = canonicalCodes(clLengths);
  let hclen = 19;
  while (hclen > 4 && clLengths[CODE_LENGTH_ORDER[hclen - 1]] === 0) hclen--;
  out.put(0, 1);
  out.put(2, 2);
  out.put(hlit - 257, 5);
  out.put(hdist - 1, 5);
  out.put(hclen - 4, 4);
  for (let i = 0; i < hclen; i++) out.put(clLengths[CODE_LENGTH_ORDER[i]], 3);
  for (let i = 0; i < runs.length; i += 3) {
    out.put(clCodes[runs[i]], clLengths[runs[i]]);
    out.put(runs[i + 2], runs[i + 1]);
  }
}

/** Code lengths as (symbol, extra bits, extra value) triples: 16 repeats, 17 and 18 zero runs. */
function runLengthCode(lengths: number[]): number[] {
  const runs: number[] = [];
  for (let i = 0; i < lengths.length; ) {
    const length = lengths[i];
    let run = 1;
    while (i + run < lengths.length && lengths[i + run] === length) run++;
    i += run;
    if (length === 0) {
      for (; run >= 11; run -= Math.min(run, 138)) runs.push(18, 7, Math.min(run, 138) - 11);
      if (run >= 3) {
        runs.push(17, 3, run - 3);
        run = 0;
      }
    } else {
      runs.push(length, 0, 0);
      run--;
      for (; run >= 3; run -= Math.min(run, 6)) runs.push(16, 2, Math.min(run, 6) - 3);
    }
    for (; run > 0; run--) runs.push(length, 0, 0);
  }
  return runs;
}

/** A stored (uncompressed) block at a byte boundary, of under 64 KiB: the few bytes between rows. */
export function storedBlock(bytes: Uint8Array, final: boolean): Uint8Array {
  const block = new Uint8Array(5 + bytes.length);
  block[0] = final ? 1 : 0;
  block[1] = bytes.length;
  block[2] = bytes.length >> 8;
  block[3] = ~bytes.length;
  block[4] = ~bytes.length >> 8;
  block.set(bytes, 5);
  return block;
}
