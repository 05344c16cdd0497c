// The CRC-32 (gzip's, as zlib.crc32 computes it) of a concatenation A‖B from crc(A), crc(B) and
// the length of B. The result writer needs it because the JSON's order (statements, all solar
// rows, all wind rows) is not the order its bytes are made in (the statements last, and the two
// series' rows year by year, interleaved).
//
// A CRC is the remainder of the message polynomial modulo P, plus terms that depend only on the
// length; appending B's n bytes multiplies A's remainder by x^(8n) and adds B's own CRC, the
// length-only terms cancelling out. Polynomials are kept as zlib keeps them: bit-reflected, x^0
// in bit 31.
const P = 0xedb88320;
const X0 = 0x80000000;

/** a·b mod P. */
function multiply(a: number, b: number): number {
  let product = 0;
  for (let term = X0; term !== 0; term >>>= 1) {
    if (a & term) product ^= b;
    // b·x: one term up, reducing by P when x^31 goes over to x^32.
    b = b & 1 ? (b >>> 1) ^ P : b >>> 1;
  }
  return product >>> 0;
}

/** x^(2^k) mod P for k = 0..63, by squaring: x^1 is bit 30. */
const X_TO_2_TO_THE = [0x40000000];
for (let k = 1; k < 64; k++) X_TO_2_TO_THE.push(multiply(X_TO_2_TO_THE[k - 1], X_TO_2_TO_THE[k - 1]));

/** x^(8n) mod P: the factor that appending n bytes puts on a CRC. */
function shiftFor(bytes: number): number {
  let factor = X0;
  for (let k = 3; bytes > 0; k++, bytes = Math.floor(bytes / 2)) {
    if (bytes % 2 === 1) factor = multiply(X_TO_2_TO_THE[k], factor);
  }
  return factor;
}

/** crc32(A‖B) from crc32(A), crc32(B) and B's length in bytes. */
export function crc32Combine(crcA: number, crcB: number, lengthB: number): number {
  return (multiply(shiftFor(lengthB), crcA) ^ crcB) >>> 0;
}
