// Writes hourly kWh integers as JSON MWh numbers straight into bytes. The output is exactly what
// JSON.stringify would print for kwh / 1000 (shortest round-trip form), without building
// 438,000 strings: the serialization cost of a result drops from tens of ms to a few.
const MINUS = 45;
const DOT = 46;
const ZERO = 48;
const COMMA = 44;

function writeUint(buf: Uint8Array, pos: number, n: number): number {
  if (n < 10) {
    buf[pos] = ZERO + n;
    return pos + 1;
  }
  let digits = 0;
  for (let m = n; m > 0; m = Math.floor(m / 10)) digits++;
  for (let i = pos + digits - 1; i >= pos; i--) {
    buf[i] = ZERO + (n % 10);
    n = Math.floor(n / 10);
  }
  return pos + digits;
}

/** Writes one value, kwh / 1000, as JSON.stringify prints it; returns the end. Any int32. */
export function writeKwhAsMwh(buf: Uint8Array, pos: number, kwh: number): number {
  if (kwh < 0) {
    buf[pos++] = MINUS;
    kwh = -kwh;
  }
  const whole = Math.floor(kwh / 1000);
  const frac = kwh - whole * 1000;
  pos = writeUint(buf, pos, whole);
  if (frac !== 0) {
    buf[pos++] = DOT;
    const d1 = Math.floor(frac / 100);
    const d2 = Math.floor(frac / 10) % 10;
    const d3 = frac % 10;
    buf[pos++] = ZERO + d1;
    if (d2 !== 0 || d3 !== 0) {
      buf[pos++] = ZERO + d2;
      if (d3 !== 0) buf[pos++] = ZERO + d3;
    }
  }
  return pos;
}

/** An int32 is at most 12 characters as MWh ("-2147483.648"), plus a comma. */
export const MAX_BYTES_PER_VALUE = 13;

/**
 * Pieces of value text, up to 4 bytes each packed little-endian in an int32 with its length, so a
 * writer can store all 4 bytes unconditionally and advance by the length. Made by writeKwhAsMwh
 * itself, so they cannot disagree with it.
 */
export interface TextTable {
  text: Int32Array;
  length: Uint8Array;
}

/** Entry i: the bytes `write` puts in a buffer for i, less the first `skip` of them. */
function textTable(size: number, skip: number, write: (buf: Uint8Array, i: number) => number): TextTable {
  const table = { text: new Int32Array(size), length: new Uint8Array(size) };
  const buf = new Uint8Array(16);
  for (let i = 0; i < size; i++) {
    const end = write(buf, i);
    for (let k = skip; k < end; k++) table.text[i] |= buf[k] << (8 * (k - skip));
    table.length[i] = end - skip;
  }
  return table;
}

/** `,w` for whole MWh 0..999: a value's comma and integer part (kWh 0..999,999). */
export const WHOLE_TEXT = textTable(1000, 0, (buf, w) => {
  buf[0] = COMMA;
  return writeKwhAsMwh(buf, 1, w * 1000);
});
/** `ddd`, zero-padded: the last three digits of a larger integer part. */
export const THOUSANDS_TEXT = textTable(1000, 1, (buf, w) => writeKwhAsMwh(buf, 0, (1000 + w) * 1000));
/** `.d`, `.dd`, `.ddd` or nothing, for kWh 0..999 of a value: its fraction part. */
export const FRACTION_TEXT = textTable(1000, 1, (buf, f) => writeKwhAsMwh(buf, 0, f));
