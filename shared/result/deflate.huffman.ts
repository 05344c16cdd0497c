// Huffman codes as deflate wants them (RFC 1951 §3.2.2): lengths from symbol counts, limited to
// the format's maximum, then the canonical code of those lengths. The alphabets are small (at most
// 286 symbols) and built once per series of a result, so this favours plainness over speed.

/** Code lengths for the counts in `freq` (0: the symbol is never sent), none over `maxBits`. */
export function codeLengths(freq: ArrayLike<number>, maxBits: number): Uint8Array {
  const weights = Array.from(freq);
  for (;;) {
    const lengths = huffmanLengths(weights);
    if (Math.max(...lengths) <= maxBits) return lengths;
    // Too deep: halve the counts (keeping each sent symbol at 1 or more) and build again. Once all
    // counts are 1 the tree is balanced, ⌈log2 286⌉ = 9 deep, so this ends. It is rare: a code
    // over 15 bits needs symbols thousands of times rarer than others, and costs a few bits then.
    for (let s = 0; s < weights.length; s++) weights[s] = Math.ceil(weights[s] / 2);
  }
}

/** Unlimited Huffman code lengths, by the two-queue method over the counts in ascending order. */
function huffmanLengths(weights: number[]): Uint8Array {
  const lengths = new Uint8Array(weights.length);
  const used: number[] = [];
  for (let s = 0; s < weights.length; s++) if (weights[s] > 0) used.push(s);
  if (used.length === 0) return lengths;
  if (used.length === 1) {
    // One symbol still needs a 1-bit code, and inflate wants a complete code: add a second one.
    lengths[used[0]] = 1;
    lengths[used[0] === 0 ? 1 : 0] = 1;
    return lengths;
  }
  used.sort((a, b) => weights[a] - weights[b] || a - b);
  const leaves = used.length;
  // Nodes 0..leaves-1 are the leaves in ascending weight; the merged nodes follow, and are made in
  // ascending weight too, so the two lightest are always at the head of one of the two queues.
  const weight = new Float64Array(2 * leaves - 1);
  const parent = new Int32Array(2 * leaves - 1);
  for (let i = 0; i < leaves; i++) weight[i] = weights[used[i]];
  let leaf = 0;
  let merged = leaves;
  const lightest = (made: number): number =>
    leaf < leaves && (merged >= made || weight[leaf] <= weight[merged]) ? leaf++ : merged++;
  for (let made = leaves; made < 2 * leaves - 1; made++) {
    const a = lightest(made);
    const b = lightest(made);
    weight[made] = weight[a] + weight[b];
    parent[a] = made;
    parent[b] = made;
  }
  // A parent is made after its children, so walking down from the root sees it first.
  const depth = new Uint8Array(2 * leaves - 1);
  for (let node = 2 * leaves - 3; node >= 0; node--) depth[node] = depth[parent[node]] + 1;
  for (let i = 0; i < leaves; i++) lengths[used[i]] = depth[i];
  return lengths;
}

/**
 * The canonical code of `lengths`, each code bit-reversed: deflate packs bits from the least
 * significant end but sends Huffman codes most significant bit first.
 */
export function canonicalCodes(lengths: Uint8Array): Uint16Array {
  const countOf = new Uint16Array(16);
  for (const length of lengths) countOf[length]++;
  countOf[0] = 0;
  const next = new Uint16Array(16);
  for (let bits = 1, code = 0; bits < 16; bits++) {
    code = (code + countOf[bits - 1]) << 1;
    next[bits] = code;
  }
  const codes = new Uint16Array(lengths.length);
  for (let s = 0; s < lengths.length; s++) {
    const bits = lengths[s];
    if (bits === 0) continue;
    const code = next[bits]++;
    let reversed = 0;
    for (let b = 0; b < bits; b++) reversed |= ((code >> b) & 1) << (bits - 1 - b);
    codes[s] = reversed;
  }
  return codes;
}
