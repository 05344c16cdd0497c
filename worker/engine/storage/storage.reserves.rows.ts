// The reserve certificate's pass over every row (storage.reserves.basis.ts `certifyOn`), in
// WebAssembly (storage.reserves.rows.wat): A x, row by row in the row's column order, within the rows'
// bounds to PRIMAL_TOL of each bound's scale. The same sums as the JavaScript loop it replaced, about
// twice as fast with its copies (bench/README.md, "2026-11-30, second session"): the pass was the
// largest part of a certificate that holds.
import { wasmExports } from './storage.dispatch.ts';
import { ROWS_WASM_BASE64 } from './storage.reserves.rows.wasm.ts';

/** A matrix by rows: row i's entries are starts[i] … starts[i + 1] − 1 (columns and values). */
export interface RowMatrix {
  starts: Int32Array;
  cols: Int32Array;
  values: Float64Array;
}

/** Byte offsets of the module's inputs and how many of each fit (storage.reserves.rows.wat's header). */
const AT = { starts: 0, cols: 8192, values: 40960, x: 106496, lower: 114688, upper: 131072 };
const FITS = { rows: 2048, entries: 8192, cols: 1024 };

/** One thread's instance: the matrix it holds (copied in when another is given), x and the bounds. */
export class RowPass {
  readonly #pass: (rows: number) => number;
  readonly #buffer: ArrayBuffer;
  readonly #x: Float64Array;
  readonly #lower: Float64Array;
  readonly #upper: Float64Array;
  #matrix: RowMatrix | null = null;

  constructor() {
    const exports = wasmExports(ROWS_WASM_BASE64);
    this.#pass = exports.rows as (rows: number) => number;
    this.#buffer = (exports.memory as { buffer: ArrayBuffer }).buffer;
    this.#x = new Float64Array(this.#buffer, AT.x, FITS.cols);
    this.#lower = new Float64Array(this.#buffer, AT.lower, FITS.rows);
    this.#upper = new Float64Array(this.#buffer, AT.upper, FITS.rows);
  }

  /**
   * Whether each of the matrix's first `rows` rows has its activity at x within [lower, upper]: below
   * lower (above upper) by more than PRIMAL_TOL × max(1, |bound|) fails; a side at or beyond ±1e20 is
   * not looked at. Throws for a matrix larger than the module holds (a reserve LP is ≤ 48 hours of
   * ≤ 10 columns and 8 rows, with ≤ 2 daily rows).
   */
  holds(matrix: RowMatrix, rows: number, x: Float64Array, lower: Float64Array, upper: Float64Array): boolean {
    if (matrix !== this.#matrix) this.#load(matrix, rows, x.length);
    this.#x.set(x);
    this.#lower.set(lower.length === rows ? lower : lower.subarray(0, rows));
    this.#upper.set(upper.length === rows ? upper : upper.subarray(0, rows));
    return this.#pass(rows) === 1;
  }

  #load(matrix: RowMatrix, rows: number, cols: number): void {
    const entries = matrix.starts[rows];
    if (rows > FITS.rows || cols > FITS.cols || entries > FITS.entries) {
      throw new Error(
        `reserve LP of ${rows} rows, ${cols} columns, ${entries} entries: larger than the row pass holds`,
      );
    }
    new Int32Array(this.#buffer, AT.starts, rows + 1).set(matrix.starts.subarray(0, rows + 1));
    new Int32Array(this.#buffer, AT.cols, entries).set(matrix.cols.subarray(0, entries));
    new Float64Array(this.#buffer, AT.values, entries).set(matrix.values.subarray(0, entries));
    this.#matrix = matrix;
  }
}

let pass: RowPass | null = null;

/** This thread's row pass, made on first use. */
export function rowPass(): RowPass {
  pass ??= new RowPass();
  return pass;
}
