// A stored form (stored.form.ts) made the answer it stands for: the gzip of exactly the JSON text the
// worker stored as gzip before the stored form existed, `{ scenario_id, ...statements, ...series }`
// with each hourly value printed as JSON.stringify prints it. The hourly rows are written by the
// same hand-made encoder (hourly.deflate.ts) that wrote the stored gzip then, so the bytes are those
// it stored; a piece at a time (gzipPieces), so the web can send each as it is made.
import { crc32 } from 'node:zlib';
import type { HourlyRecord, HourlySeriesName } from '../hourly.series.ts';
import { storedBlock } from './deflate.block.ts';
import { HourlyDeflate } from './hourly.deflate.ts';
import { readSeries, rowMwh, type StoredForm } from './stored.form.ts';

/** gzip member header: deflate, no name or mtime, "fastest" (XFL 4), Unix. */
export const GZIP_HEADER = Buffer.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 4, 3]);
const FULL_CLOSE = Buffer.from(']}');
/**
 * One encoder for every answer being made: a series is encoded from reset() to take() within one
 * step of a generator, so generators interleaving between steps never share its state, and its
 * buffer (a series' output, ~350 kB) is not grown again for every answer.
 */
const ENCODER = new HourlyDeflate();

/** The opening of series `name` when it is the `k`-th the result has (0: right after the statements). */
export function seriesOpening(name: HourlySeriesName, k: number): Buffer {
  return Buffer.from(`${k === 0 ? ',' : '],'}"${name}":[`);
}

/** The gzip member's last 8 bytes: the CRC-32 and length (mod 2^32) of its text. */
export function gzipTrailer(crc: number, size: number): Buffer {
  const trailer = Buffer.alloc(8);
  trailer.writeUInt32LE(crc >>> 0, 0);
  trailer.writeUInt32LE(size >>> 0, 4);
  return trailer;
}

/**
 * The full answer's gzip, piece by piece: its header and statements, then one piece a series (its
 * rows inflated in one call and re-encoded from their integers), then the close and the trailer.
 * Each piece is done whole before it is yielded, so generators of several requests may interleave.
 */
export function* gzipPieces(form: StoredForm): Generator<Uint8Array> {
  yield GZIP_HEADER;
  yield form.bodyPiece;
  let crc = form.bodyCrc;
  let size = form.bodyLength;
  const kwh = new Int32Array(form.hours);
  const encoder = ENCODER;
  for (let k = 0; k < form.names.length; k++) {
    const open = seriesOpening(form.names[k], k);
    yield storedBlock(open, false);
    crc = crc32(open, crc);
    size += open.length;
    encoder.reset();
    // The encoder's CRC-32 goes on from the text before its rows.
    encoder.crc = crc;
    const scale = 10 ** form.decimals;
    readSeries(form, k, (_y, values) => {
      if (form.decimals === 3) {
        kwh.set(values);
        encoder.addRow(kwh, 0, kwh.length);
      } else {
        for (let h = 0; h < values.length; h++) values[h] /= scale;
        encoder.addTextRow(values);
      }
    });
    // Everything of the encoder read before the yield: another answer may use it meanwhile.
    const piece = encoder.take();
    crc = encoder.crc;
    size += encoder.textLength;
    yield piece;
  }
  yield storedBlock(FULL_CLOSE, true);
  yield gzipTrailer(crc32(FULL_CLOSE, crc), size + FULL_CLOSE.length);
}

/** The full answer's gzip in one buffer. */
export function fullGzip(form: StoredForm): Buffer {
  return Buffer.concat(Array.from(gzipPieces(form)));
}

/**
 * The hourly series as the JSON's numbers, year by year: every year, or only the (1-based) year
 * asked for (the other places of the array empty, none if the result has no such year).
 */
export function storedHourly(form: StoredForm, year?: number): HourlyRecord<Float64Array[]> {
  const out: Partial<Record<HourlySeriesName, Float64Array[]>> = {};
  form.names.forEach((name, k) => {
    if (year === undefined) {
      out[name] = Array.from({ length: form.years }, (_, y) => rowMwh(form, k, y));
    } else {
      const rows: Float64Array[] = [];
      if (year >= 1 && year <= form.years) rows[year - 1] = rowMwh(form, k, year - 1);
      out[name] = rows;
    }
  });
  return out as HourlyRecord<Float64Array[]>;
}
