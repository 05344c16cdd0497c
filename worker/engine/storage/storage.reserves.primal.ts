// The reserve certificate's primal part (storage.reserves.basis.ts `certifyOn`) in WebAssembly
// (storage.reserves.primal.wat): on a kept basis, the nonbasic columns at their bounds, the kernel's
// right-hand side, the LU solve, a look at the basic columns' bounds, and every row's activity A x
// within its bounds. The same operations in the same order as the JavaScript it replaced, so the
// same plan and the same verdict (test/engine.reserves.primal.test.ts holds it to that JavaScript);
// measured: bench/README.md, "2026-11-30, second session".
//
// One instance a thread holds the path's matrix and each kept basis's factors, each copied in once,
// and takes each horizon's bounds by copy; the plan goes back into path.x when the basis holds.
import { wasmExports } from './storage.dispatch.ts';
import type { BasisFactor, BasisPath, LpBounds } from './storage.reserves.basis.ts';
import { PRIMAL_WASM_BASE64 } from './storage.reserves.primal.wasm.ts';

/** The header's slots (i32 byte offsets and counts at 4 × slot; storage.reserves.primal.wat's header). */
const H = {
  nb: 0,
  r: 1,
  rows: 2,
  nbCols: 3,
  nbColUp: 4,
  stepRow: 5,
  stepUp: 6,
  stepCol: 7,
  pivot: 8,
  lStart: 9,
  lStep: 10,
  lValue: 11,
  uStart: 12,
  uStep: 13,
  uValue: 14,
  nbStart: 15,
  nbCol: 16,
  nbValue: 17,
  x: 18,
  kernel: 19,
  colLower: 20,
  colUpper: 21,
  rowLower: 22,
  rowUpper: 23,
  starts: 24,
  cols: 25,
  values: 26,
} as const;
const HEADER_BYTES = 128;
/** A basis's arrays and their header slots. */
const BASIS: readonly [number, keyof BasisFactor][] = [
  [H.nbCols, 'nbCols'],
  [H.nbColUp, 'nbColUp'],
  [H.stepRow, 'stepRow'],
  [H.stepUp, 'stepUp'],
  [H.stepCol, 'stepCol'],
  [H.pivot, 'pivot'],
  [H.lStart, 'lStart'],
  [H.lStep, 'lStep'],
  [H.lValue, 'lValue'],
  [H.uStart, 'uStart'],
  [H.uStep, 'uStep'],
  [H.uValue, 'uValue'],
  [H.nbStart, 'nbStart'],
  [H.nbCol, 'nbCol'],
  [H.nbValue, 'nbValue'],
];
/** Room for the bases copied in (a kept basis of the bench's case takes ~15 kB; 8 are kept). */
const BASES_BYTES = 1 << 20;
const PAGE = 65536;

type Typed = Int32Array | Uint8Array | Float64Array;

/** Bytes rounded up to a multiple of 8 (every array starts 8-byte aligned). */
const aligned = (bytes: number) => Math.ceil(bytes / 8) * 8;

/** The path's plan and each horizon's bounds in the memory. */
interface Views {
  header: Int32Array;
  x: Float64Array;
  colLower: Float64Array;
  colUpper: Float64Array;
  rowLower: Float64Array;
  rowUpper: Float64Array;
}

/** One thread's instance (primalPass()). */
export class PrimalPass {
  readonly #primal: () => number;
  readonly #memory: { buffer: ArrayBuffer; grow(pages: number): number };
  #path: BasisPath | null = null;
  /** Where the path's arrays end (the bases' begin), and where the next basis copied in goes. */
  #pathEnd = 0;
  #next = 0;
  /** The offsets of each basis copied in (BASIS' order). */
  #regions = new WeakMap<BasisFactor, Int32Array>();
  #views: Views | null = null;

  constructor() {
    const exports = wasmExports(PRIMAL_WASM_BASE64);
    this.#primal = exports.primal as () => number;
    this.#memory = exports.memory as { buffer: ArrayBuffer; grow(pages: number): number };
  }

  /**
   * Whether basis f gives path's LP, at lp's bounds, a plan within every column's and row's bounds
   * (to PRIMAL_TOL of each bound's scale); the plan is then in path.x.
   */
  holds(path: BasisPath, f: BasisFactor, lp: LpBounds): boolean {
    if (path !== this.#path) this.#loadPath(path);
    const at = this.#regions.get(f) ?? this.#loadBasis(f);
    const v = this.#views as Views;
    const { header } = v;
    for (let k = 0; k < BASIS.length; k++) header[BASIS[k][0]] = at[k];
    header[H.nb] = f.nbCols.length;
    header[H.r] = f.stepCol.length;
    v.colLower.set(lp.colLower);
    v.colUpper.set(lp.colUpper);
    v.rowLower.set(lp.rowLower);
    v.rowUpper.set(lp.rowUpper);
    if (this.#primal() !== 1) return false;
    path.x.set(v.x);
    return true;
  }

  /** The views of the path's plan and bounds (made again when the memory grows: the old ones detach). */
  #makeViews(path: BasisPath): void {
    const { buffer } = this.#memory;
    const header = new Int32Array(buffer, 0, HEADER_BYTES / 4);
    const at = (slot: number, length: number) => new Float64Array(buffer, header[slot], length);
    this.#views = {
      header,
      x: at(H.x, path.cols),
      colLower: at(H.colLower, path.cols),
      colUpper: at(H.colUpper, path.cols),
      rowLower: at(H.rowLower, path.rows),
      rowUpper: at(H.rowUpper, path.rows),
    };
  }

  /** The path's matrix by rows copied in, with room for its plan, kernel and bounds after it. */
  #loadPath(path: BasisPath): void {
    const { starts, cols, values } = path.csr;
    const m = path.rows;
    const n = path.cols;
    const entries = starts[m];
    let at = HEADER_BYTES;
    const place = (slot: number, bytes: number) => {
      const here = at;
      at += aligned(bytes);
      return [slot, here] as const;
    };
    const slots = [
      place(H.starts, 4 * (m + 1)),
      place(H.cols, 4 * entries),
      place(H.values, 8 * entries),
      place(H.x, 8 * n),
      place(H.kernel, 8 * m),
      place(H.colLower, 8 * n),
      place(H.colUpper, 8 * n),
      place(H.rowLower, 8 * m),
      place(H.rowUpper, 8 * m),
    ];
    this.#room(at);
    const header = new Int32Array(this.#memory.buffer, 0, HEADER_BYTES / 4);
    for (const [slot, offset] of slots) header[slot] = offset;
    header[H.rows] = m;
    this.#copy(header[H.starts], starts.subarray(0, m + 1));
    this.#copy(header[H.cols], cols.subarray(0, entries));
    this.#copy(header[H.values], values.subarray(0, entries));
    this.#path = path;
    this.#pathEnd = at;
    this.#next = at;
    this.#regions = new WeakMap();
    this.#makeViews(path);
  }

  /**
   * The basis's factors and its nonbasic entries copied in after the path's arrays (and after the
   * bases copied before it, while they take up less than BASES_BYTES; then from the start again, the
   * others forgotten): their offsets, in BASIS' order.
   */
  #loadBasis(f: BasisFactor): Int32Array {
    const arrays = BASIS.map(([, key]) => f[key] as Typed);
    let bytes = 0;
    for (const a of arrays) bytes += aligned(a.byteLength);
    if (this.#next + bytes > this.#pathEnd + BASES_BYTES) {
      this.#next = this.#pathEnd;
      this.#regions = new WeakMap();
    }
    const at = new Int32Array(arrays.length);
    arrays.forEach((a, k) => {
      at[k] = this.#next;
      this.#next += aligned(a.byteLength);
    });
    if (this.#room(this.#next)) this.#makeViews(this.#path as BasisPath);
    for (let k = 0; k < arrays.length; k++) this.#copy(at[k], arrays[k]);
    this.#regions.set(f, at);
    return at;
  }

  /** Whether the memory had to grow to `bytes` (views made before a growth are of a detached buffer). */
  #room(bytes: number): boolean {
    const have = this.#memory.buffer.byteLength;
    if (bytes <= have) return false;
    this.#memory.grow(Math.ceil((bytes - have) / PAGE));
    return true;
  }

  /** `a` into the memory at byte `offset`. */
  #copy(offset: number, a: Typed): void {
    const View = a.constructor as new (b: ArrayBuffer, o: number, l: number) => Typed;
    new View(this.#memory.buffer, offset, a.length).set(a);
  }
}

let pass: PrimalPass | null = null;

/** This thread's primal pass, made on first use. */
export function primalPass(): PrimalPass {
  pass ??= new PrimalPass();
  return pass;
}
