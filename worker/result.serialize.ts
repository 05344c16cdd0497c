// Turns an engine result into the stored forms: the statements JSON with and without hourly
// arrays, gzip-compressed, and their ETag.
//
// The full JSON is written and compressed one year at a time, as the engine finishes each year
// (ResultWriter, in its own thread: result.thread.ts), so only the small part known at the end
// (the statements, and the hashes) is left to do after the engine. Each year's row is its own
// raw-deflate piece ending in a sync flush (byte-aligned, not final); the pieces are put in JSON
// order behind one gzip header, with the CRC-32 and length of the whole: one ordinary gzip stream.
import { createHash } from 'node:crypto';
import { constants, crc32, deflateRawSync, gzipSync } from 'node:zlib';
import type { EngineResult } from './engine/index.ts';
import { MAX_BYTES_PER_VALUE, writeHourlyRow } from './hourly.json.ts';

export interface SerializedResult {
  etag: string;
  statements_gzip: Buffer;
  statements_lite_gzip: Buffer;
  summary: EngineResult['kpis'];
}

/** The engine result without its hourly arrays: what the statements without `?hourly` hold. */
export type ResultStatements = Omit<EngineResult, 'solar_hourly' | 'wind_hourly'>;

// Huffman-only: 10 ms for the 2.3 MB statements vs 16 ms at level 1 and 50 ms at the default level 6,
// for 0.99 MB vs 0.83 and 0.76 MB (measured). memLevel 9: larger blocks, measured faster still.
const GZIP = { strategy: constants.Z_HUFFMAN_ONLY, memLevel: 9 };
const PIECE = { ...GZIP, finishFlush: constants.Z_SYNC_FLUSH };
const LAST_PIECE = { ...GZIP, finishFlush: constants.Z_FINISH };
/** gzip member header: deflate, no name or mtime, "fastest" (XFL 4), Unix. */
const GZIP_HEADER = Buffer.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 4, 3]);
const COMMA = 44;

/** Delivered MWh rounded to 1 kWh, as integers, so the JSON writer prints exact 3-decimal MWh. */
function toKwh(mwh: Float64Array, out: Int32Array, offset: number): void {
  for (let i = 0; i < mwh.length; i++) out[offset + i] = Math.round(mwh[i] * 1000);
}

/** One series' rows as JSON bytes and as deflate pieces, in a buffer reused from result to result. */
class SeriesRows {
  bytes = new Uint8Array(0);
  length = 0;
  readonly pieces: Buffer[] = [];

  reset(): void {
    this.length = 0;
    this.pieces.length = 0;
  }

  add(kwh: Int32Array, start: number, hours: number): void {
    const from = this.length;
    const needed = from + hours * MAX_BYTES_PER_VALUE + 3;
    if (this.bytes.length < needed) {
      const grown = new Uint8Array(Math.max(needed, 2 * this.bytes.length));
      grown.set(this.bytes.subarray(0, from));
      this.bytes = grown;
    }
    let pos = from;
    if (this.pieces.length > 0) this.bytes[pos++] = COMMA;
    this.length = writeHourlyRow(this.bytes, pos, kwh, start, hours);
    this.pieces.push(deflateRawSync(this.bytes.subarray(from, this.length), PIECE));
  }

  get json(): Uint8Array {
    return this.bytes.subarray(0, this.length);
  }
}

/** Builds one result at a time: begin, year × years (in order), finish. Reusable across results. */
export class ResultWriter {
  readonly #solar = new SeriesRows();
  readonly #wind = new SeriesRows();

  begin(): void {
    this.#solar.reset();
    this.#wind.reset();
  }

  /** One year's delivered kWh: `hours` solar values, then `hours` wind values. */
  year(kwh: Int32Array): void {
    const hours = kwh.length / 2;
    this.#solar.add(kwh, 0, hours);
    this.#wind.add(kwh, hours, hours);
  }

  finish(scenarioId: string, statements: ResultStatements): SerializedResult {
    const lite = JSON.stringify({ scenario_id: scenarioId, ...statements });
    // The full JSON: the lite object's members, then the two hourly arrays (year rows).
    const parts = [
      Buffer.from(`${lite.slice(0, -1)},"solar_hourly":[`),
      this.#solar.json,
      Buffer.from('],"wind_hourly":['),
      this.#wind.json,
      Buffer.from(']}'),
    ];
    const hash = createHash('sha256');
    let crc = 0;
    let size = 0;
    for (const part of parts) {
      hash.update(part);
      crc = crc32(part, crc);
      size += part.length;
    }
    const pieces = [
      GZIP_HEADER,
      deflateRawSync(parts[0], PIECE),
      ...this.#solar.pieces,
      deflateRawSync(parts[2], PIECE),
      ...this.#wind.pieces,
      deflateRawSync(parts[4], LAST_PIECE),
    ];
    let total = 8;
    for (const p of pieces) total += p.length;
    // Its own ArrayBuffer (never Node's shared pool), so it can be transferred between threads.
    const gzip = Buffer.from(new ArrayBuffer(total));
    let pos = 0;
    for (const p of pieces) {
      gzip.set(p, pos);
      pos += p.length;
    }
    gzip.writeUInt32LE(crc >>> 0, pos);
    gzip.writeUInt32LE(size >>> 0, pos + 4);
    return {
      etag: hash.digest('base64url').slice(0, 27),
      statements_gzip: gzip,
      statements_lite_gzip: gzipSync(lite, GZIP),
      summary: statements.kpis,
    };
  }
}

/** One year of the engine's output as the writer takes it. */
export function yearKwh(solar: Float64Array, wind: Float64Array): Int32Array {
  const kwh = new Int32Array(solar.length + wind.length);
  toKwh(solar, kwh, 0);
  toKwh(wind, kwh, solar.length);
  return kwh;
}

/** The whole result at once, in the calling thread (warm-up, the bench's serializing figure). */
export function serializeResult(scenarioId: string, result: EngineResult): SerializedResult {
  const { solar_hourly, wind_hourly, ...statements } = result;
  const hours = result.hours_per_year;
  const writer = new ResultWriter();
  writer.begin();
  for (let y = 0; y < result.years; y++) {
    writer.year(
      yearKwh(solar_hourly.subarray(y * hours, (y + 1) * hours), wind_hourly.subarray(y * hours, (y + 1) * hours)),
    );
  }
  return writer.finish(scenarioId, statements);
}
