// Turns an engine result into the stored forms: the statements with their hourly series in the
// stored form (shared/result/stored.form.ts: each row's values as integers, zigzag varints,
// deflated), the statements without them as gzip JSON, and their ETag.
//
// The rows are written and compressed one year at a time, as the engine finishes each year
// (ResultWriter, in its own thread: thread.ts), so only the small part known at the end
// (the statements, and the hash) is left to do after the engine. The web makes the full form
// back into the gzip JSON it answers with (shared/result/stored.gzip.ts).
import { createHash } from 'node:crypto';
import { constants, crc32, deflateRawSync } from 'node:zlib';
import { ALWAYS_HOURLY, HOURLY_NAMES, type HourlyRecord, type HourlySeriesName } from '../../shared/hourly.series.ts';
import { storedBlock } from '../../shared/result/deflate.block.ts';
import { StoredFormWriter } from '../../shared/result/stored.form.ts';
import { GZIP_HEADER } from '../../shared/result/stored.gzip.ts';
import type { EngineResult } from '../engine/index.ts';
import { hourlyDecimals, MIN_DECIMALS } from './hourly.precision.ts';

export interface SerializedResult {
  etag: string;
  /**
   * The statements with their hourly series, in the stored form (not gzip, despite the column's
   * name: shared/result/stored.form.ts); null when the hourly arrays were not kept (finish with hourly = false).
   */
  statements_gzip: Buffer | null;
  statements_lite_gzip: Buffer;
  kpis: EngineResult['kpis'];
}

/** The engine result without its hourly arrays: what the statements without `?hourly` hold. */
export type ResultStatements = Omit<EngineResult, HourlySeriesName>;

/** One year of the hourly series by name (shared/hourly.series.ts): MWh of each hour. */
export type YearSeries = HourlyRecord<Float64Array>;

// The statements (~37 kB of JSON) by zlib at level 1: 9.6 kB in 0.07 ms, where Huffman-only took
// 0.16 ms for 23.6 kB (their numbers repeat keys and digits that only string matching finds). They
// are most of a variant's disk when its hourly arrays are not kept (bench #17, bench/README.md).
const STATEMENTS = { level: constants.Z_BEST_SPEED, memLevel: 9, finishFlush: constants.Z_SYNC_FLUSH };
/** zlib's output chunk, at least Node's pool size: a buffer of its own. */
const OWN_CHUNK = Buffer.poolSize;
const LITE_CLOSE = Buffer.from('}');

/**
 * Frees the memory of a buffer that nothing else holds, now: its ArrayBuffer is detached. A buffer a
 * thread is done with otherwise lasts until a mark-compact of that thread's heap, which V8 runs
 * only after ~64 MB more external memory (a result thread's heap and its collections are small;
 * bench/README.md, "A 512 MB dyno"). A slice of Node's shared buffer pool cannot be detached: it is
 * left to the collector.
 */
export function freeBuffer(view: ArrayBufferView): void {
  const buffer = view.buffer;
  if (!(buffer instanceof ArrayBuffer) || buffer.detached) return;
  try {
    buffer.transfer(0);
  } catch {
    // Not detachable (Node's pool): the collector frees it.
  }
}

/** A gzip member of these deflate pieces, for text of this CRC-32 and length, in its own ArrayBuffer. */
function gzipMember(pieces: Uint8Array[], crc: number, size: number): Buffer {
  let total = GZIP_HEADER.length + 8;
  for (const p of pieces) total += p.length;
  // Its own ArrayBuffer (never Node's shared pool), so it can be transferred between threads.
  const gzip = Buffer.from(new ArrayBuffer(total));
  gzip.set(GZIP_HEADER, 0);
  let pos = GZIP_HEADER.length;
  for (const p of pieces) {
    gzip.set(p, pos);
    pos += p.length;
  }
  gzip.writeUInt32LE(crc >>> 0, pos);
  gzip.writeUInt32LE(size >>> 0, pos + 4);
  return gzip;
}

/** Builds one result at a time: begin, year × years (in order), finish. Reusable across results. */
export class ResultWriter {
  readonly #stored = new StoredFormWriter();
  #decimals: number | null = null;
  #kwh = new Int32Array(0);

  begin(): void {
    this.#decimals = null;
    this.#stored.begin();
  }

  #decide(decimals: number): void {
    if (this.#decimals !== null) return;
    this.#decimals = decimals;
    this.#stored.decimals = decimals;
  }

  /**
   * One year's MWh of each series the result has. The first year of the series present always
   * (solar and wind) decides the decimals every series of every year is stored with
   * (hourly.precision.ts): 3 (kWh), or more for a small system.
   */
  yearMwh(series: YearSeries): void {
    this.#decide(hourlyDecimals(...ALWAYS_HOURLY.map((n) => series[n])));
    const decimals = this.#decimals as number;
    const scale = 10 ** decimals;
    for (const name of HOURLY_NAMES) {
      const year = series[name];
      if (!year) continue;
      if (decimals === MIN_DECIMALS) {
        if (this.#kwh.length !== year.length) this.#kwh = new Int32Array(year.length);
        toKwh(year, this.#kwh, 0);
        this.#stored.addRow(name, this.#kwh);
      } else {
        // Stored as n = round(x · 10^d); the JSON's value is n / 10^d, x rounded to d decimals.
        this.#stored.addRow(
          name,
          year.map((x) => Math.round(x * scale)),
        );
      }
    }
  }

  /** One year's kWh of the series present always, one after another in the registry's order (yearKwh). */
  year(kwh: Int32Array): void {
    this.#decide(MIN_DECIMALS);
    const hours = kwh.length / ALWAYS_HOURLY.length;
    ALWAYS_HOURLY.forEach((name, k) => {
      this.#stored.addRow(name, kwh.subarray(k * hours, (k + 1) * hours));
    });
  }

  /** hourly = false: only the statements without hourly arrays (no year was given). */
  finish(scenarioId: string, statements: ResultStatements, hourly = true): SerializedResult {
    const lite = JSON.stringify({ scenario_id: scenarioId, ...statements });
    // Both forms start with the lite object less its `}`: compressed once, for both.
    const body = Buffer.from(lite.slice(0, -1));
    // In an output buffer of its own, which freeBuffer can free: zlib's default, a 16 kB slice of
    // Node's 64 kB pool, lasted as long as zlib's promoted handle (~20 MB a 1,000-variant sweep).
    const bodyPiece = deflateRawSync(body, { ...STATEMENTS, chunkSize: Math.max(OWN_CHUNK, 2 * body.length) });
    const bodyCrc = crc32(body);
    const liteGzip = gzipMember(
      [bodyPiece, storedBlock(LITE_CLOSE, true)],
      crc32(LITE_CLOSE, bodyCrc),
      body.length + LITE_CLOSE.length,
    );
    // A result with no year written (hourly = false) has no hourly form.
    this.#decide(MIN_DECIMALS);
    const full = hourly ? this.#stored.finish(bodyPiece, bodyCrc, body.length) : null;
    freeBuffer(body);
    freeBuffer(bodyPiece);
    // The ETag hashes the stored bytes, not the 2.3 MB of JSON: the stored form is lossless (the
    // JSON is a function of it), so any change to the JSON changes these bytes and the tag, which
    // is all a strong validator needs. Only a new encoder could also change the tag of unchanged
    // JSON: a needless refetch (as when the stored form replaced the stored gzip).
    return {
      etag: createHash('sha256')
        .update(full ?? liteGzip)
        .digest('base64url')
        .slice(0, 27),
      statements_gzip: full,
      statements_lite_gzip: liteGzip,
      kpis: statements.kpis,
    };
  }
}

/** Delivered MWh rounded to 1 kWh, as integers, so the JSON writer prints exact 3-decimal MWh. */
function toKwh(mwh: Float64Array, out: Int32Array, offset: number): void {
  for (let i = 0; i < mwh.length; i++) {
    // Math.round without its branch (2–3× slower here, on unpredictable halves): x - ⌊x⌋ is exact,
    // and doubling it is ≥ 1 exactly when Math.round rounds up. NaN and ±∞ still give 0.
    const x = mwh[i] * 1000;
    const floor = Math.floor(x);
    out[offset + i] = floor + (((x - floor) * 2) | 0);
  }
}

/** One year of series (those present always, in the registry's order) as `year` takes them: kWh, one after another. */
export function yearKwh(...series: Float64Array[]): Int32Array {
  const kwh = new Int32Array(series.reduce((n, s) => n + s.length, 0));
  let offset = 0;
  for (const s of series) {
    toKwh(s, kwh, offset);
    offset += s.length;
  }
  return kwh;
}

/** The whole result at once, in the calling thread (warm-up, the bench's serializing figure). */
export function serializeResult(scenarioId: string, result: EngineResult): SerializedResult {
  const statements = withoutHourly(result);
  const hours = result.hours_per_year;
  const writer = new ResultWriter();
  writer.begin();
  for (let y = 0; y < result.years; y++) writer.yearMwh(yearOf(result, y, hours));
  return writer.finish(scenarioId, statements);
}

/** Year `y` of a result's series (views into its arrays), by name. */
export function yearOf(result: HourlyRecord<Float64Array>, y: number, hours: number): YearSeries {
  const year: Partial<Record<HourlySeriesName, Float64Array>> = {};
  for (const name of HOURLY_NAMES) year[name] = result[name]?.subarray(y * hours, (y + 1) * hours);
  return year as YearSeries;
}

/** The statements without any hourly array (they are written after the statements, series by series). */
export function withoutHourly<T extends object>(statements: T): Omit<T, HourlySeriesName> {
  const copy = { ...statements } as Record<string, unknown>;
  for (const name of HOURLY_NAMES) delete copy[name];
  return copy as Omit<T, HourlySeriesName>;
}
