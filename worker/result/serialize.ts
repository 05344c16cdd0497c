// Turns an engine result into the stored forms: the statements JSON with and without hourly
// arrays, gzip-compressed, and their ETag.
//
// The full JSON is written and compressed one year at a time, as the engine finishes each year
// (ResultWriter, in its own thread: thread.ts), so only the small part known at the end
// (the statements, and the hashes) is left to do after the engine. Each year's row is its own
// deflate piece ending in a sync flush (byte-aligned, not final), written by hourly.deflate.ts;
// the pieces are put in JSON order behind one gzip header, with the CRC-32 and length of the
// whole: one ordinary gzip stream.
import { createHash } from 'node:crypto';
import { constants, crc32, deflateRawSync } from 'node:zlib';
import { ALWAYS_HOURLY, HOURLY_NAMES, type HourlyRecord, type HourlySeriesName } from '../../shared/hourly.series.ts';
import type { EngineResult } from '../engine/index.ts';
import { crc32Combine } from './crc32.combine.ts';
import { storedBlock } from './deflate.block.ts';
import { HourlyDeflate } from './hourly.deflate.ts';
import { hourlyDecimals, MIN_DECIMALS, roundTo } from './hourly.precision.ts';

export interface SerializedResult {
  etag: string;
  /** null when the hourly arrays were not kept (finish with hourly = false). */
  statements_gzip: Buffer | null;
  statements_lite_gzip: Buffer;
  kpis: EngineResult['kpis'];
}

/** The engine result without its hourly arrays: what the statements without `?hourly` hold. */
export type ResultStatements = Omit<EngineResult, HourlySeriesName>;

/** One year of the hourly series by name (shared/hourly.series.ts): MWh of each hour. */
export type YearSeries = HourlyRecord<Float64Array>;

/** Each series' opening in the full form, after the previous one: the first after the statements. */
const OPEN = new Map(HOURLY_NAMES.map((name, k) => [name, Buffer.from(`${k === 0 ? ',' : '],'}"${name}":[`)]));

// The statements (~37 kB of JSON) by zlib at level 1: 9.6 kB in 0.07 ms, where Huffman-only took
// 0.16 ms for 23.6 kB (their numbers repeat keys and digits that only string matching finds). They
// are most of a variant's disk when its hourly arrays are not kept (bench #17, bench/README.md).
const STATEMENTS = { level: constants.Z_BEST_SPEED, memLevel: 9, finishFlush: constants.Z_SYNC_FLUSH };
/** zlib's output chunk, at least Node's pool size: a buffer of its own. */
const OWN_CHUNK = Buffer.poolSize;
/** gzip member header: deflate, no name or mtime, "fastest" (XFL 4), Unix. */
const GZIP_HEADER = Buffer.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 4, 3]);
const FULL_CLOSE = Buffer.from(']}');
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
  /** Every series of the registry, and those the current result has (those present always among them). */
  readonly #series = new Map(HOURLY_NAMES.map((name) => [name, new HourlyDeflate()]));
  readonly #present = new Set<HourlySeriesName>();

  #decimals: number | null = null;

  begin(): void {
    for (const series of this.#series.values()) series.reset();
    this.#present.clear();
    for (const name of ALWAYS_HOURLY) this.#present.add(name);
    this.#decimals = null;
  }

  /**
   * One year's MWh of each series the result has. The first year of the series present always
   * (solar and wind) decides the decimals every series of every year is stored with
   * (hourly.precision.ts): 3, through the fast encoder of kWh integers, or more, through zlib.
   */
  yearMwh(series: YearSeries): void {
    this.#decimals ??= hourlyDecimals(...ALWAYS_HOURLY.map((n) => series[n]));
    const scale = 10 ** this.#decimals;
    for (const name of HOURLY_NAMES) {
      const year = series[name];
      if (!year) continue;
      this.#present.add(name);
      const out = this.#series.get(name) as HourlyDeflate;
      if (this.#decimals === MIN_DECIMALS) {
        const kwh = new Int32Array(year.length);
        toKwh(year, kwh, 0);
        out.addRow(kwh, 0, kwh.length);
      } else {
        out.addTextRow(year.map((x) => roundTo(x, scale)));
      }
    }
  }

  /** One year's kWh of the series present always, one after another in the registry's order (yearKwh). */
  year(kwh: Int32Array): void {
    const hours = kwh.length / ALWAYS_HOURLY.length;
    ALWAYS_HOURLY.forEach((name, k) => {
      (this.#series.get(name) as HourlyDeflate).addRow(kwh, k * hours, hours);
    });
  }

  /** hourly = false: only the statements without hourly arrays (no year was given). */
  finish(scenarioId: string, statements: ResultStatements, hourly = true): SerializedResult {
    const lite = JSON.stringify({ scenario_id: scenarioId, ...statements });
    // Both JSON texts start with the lite object less its `}`: compressed once, for both.
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
    const full = hourly ? this.#full(bodyPiece, bodyCrc, body.length) : null;
    freeBuffer(body);
    freeBuffer(bodyPiece);
    // The ETag hashes the stored gzip, not the 2.3 MB of JSON (~1 ms less): gunzip is a function,
    // so any change to the JSON changes these bytes and the tag, which is all a strong validator
    // needs. Only a new encoder could also change the tag of unchanged JSON: a needless refetch.
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

  /** The statements with their hourly arrays: the body's compressed piece, then each series' stored text. */
  #full(bodyPiece: Uint8Array, bodyCrc: number, bodyLength: number): Buffer {
    const names = HOURLY_NAMES.filter((n) => this.#present.has(n));
    const series = names.map((n) => this.#series.get(n) as HourlyDeflate);
    const opens = names.map((n) => OPEN.get(n) as Buffer);
    let crc = bodyCrc;
    let size = bodyLength;
    const pieces: Uint8Array[] = [bodyPiece];
    series.forEach((s, k) => {
      crc = crc32Combine(crc32(opens[k], crc), s.crc, s.textLength);
      size += opens[k].length + s.textLength;
      pieces.push(storedBlock(opens[k], false), s.out.subarray(0, s.outLength));
    });
    crc = crc32(FULL_CLOSE, crc);
    size += FULL_CLOSE.length;
    pieces.push(storedBlock(FULL_CLOSE, true));
    return gzipMember(pieces, crc, size);
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
