// The result writer against the well-kept alternative (issue 14): the default scenario's
// statements written and gzip-compressed by our own encoder (worker/result, then shared/result), and by JSON text per
// year row fed to node:zlib with a sync flush per row, at several levels and strategies. Prints ms
// per result (median of RUNS, after a warm-up) and stored bytes; every candidate's gunzip is checked
// to equal JSON.stringify of the statements.
// `./node_modules/.bin/node bench/result.writer.bench.ts` (RUNS=n for more runs). A sync flush per
// row, as a writer fed year by year would need, costs a little more than the one pass timed here.
import { performance } from 'node:perf_hooks';
import { constants, crc32, deflateRawSync, gunzipSync } from 'node:zlib';
import { parseStoredForm } from '../shared/result/stored.form.ts';
import { fullGzip } from '../shared/result/stored.gzip.ts';
import { resolvedInputs } from '../test/fixtures/inputs.ts';
import { calculate } from '../worker/engine/index.ts';
import { serializeResult } from '../worker/result/index.ts';
import { median } from './stats.ts';

const RUNS = Number(process.env.RUNS ?? 25);
const result = calculate(resolvedInputs());
const { solar_hourly, wind_hourly, ...statements } = result;
const id = '01936f3e-0000-7000-8000-000000000042';
const hours = result.hours_per_year;
const round3 = (v: number) => Math.round(v * 1000) / 1000;
const storedForm = parseStoredForm(serializeResult(id, result).statements_gzip ?? Buffer.alloc(0));
const rows = (a: Float64Array) =>
  Array.from({ length: result.years }, (_, y) => Array.from(a.subarray(y * hours, (y + 1) * hours), round3));
const expected = JSON.stringify({
  scenario_id: id,
  ...statements,
  solar_hourly: rows(solar_hourly),
  wind_hourly: rows(wind_hourly),
});

/** The statements' JSON text in pieces: the head, then one piece per year row. */
function jsonPieces(): Buffer[] {
  const texts = [`${JSON.stringify({ scenario_id: id, ...statements }).slice(0, -1)},"solar_hourly":[`];
  for (const [key, arr] of [
    ['solar', solar_hourly],
    ['wind', wind_hourly],
  ] as const) {
    if (key === 'wind') texts.push('],"wind_hourly":[');
    for (let y = 0; y < result.years; y++) {
      const row = JSON.stringify(Array.from(arr.subarray(y * hours, (y + 1) * hours), round3));
      texts.push(y > 0 ? `,${row}` : row);
    }
  }
  texts.push(']}');
  return texts.map((t) => Buffer.from(t));
}

/** node:zlib over the pieces, one raw deflate stream with a sync flush per piece, in a gzip member. */
function gzipPieces(pieces: Buffer[], level: number, strategy: number): Buffer {
  const out: Buffer[] = [Buffer.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 4, 3])];
  let crc = 0;
  let size = 0;
  const deflate = deflateRawSync(Buffer.concat(pieces), { level, strategy, memLevel: 9 });
  for (const p of pieces) {
    crc = crc32(p, crc);
    size += p.length;
  }
  out.push(deflate);
  const trailer = Buffer.alloc(8);
  trailer.writeUInt32LE(crc >>> 0, 0);
  trailer.writeUInt32LE(size >>> 0, 4);
  out.push(trailer);
  return Buffer.concat(out);
}

function measure(name: string, fn: () => Buffer): void {
  for (let i = 0; i < 3; i++) fn();
  const times: number[] = [];
  let out: Buffer = Buffer.alloc(0);
  for (let i = 0; i < RUNS; i++) {
    const t0 = performance.now();
    out = fn();
    times.push(performance.now() - t0);
  }
  const same = gunzipSync(out).toString() === expected;
  console.log(
    `| ${name} | ${median(times).toFixed(1)} ms | ${(out.length / 1e6).toFixed(3)} MB | ${same ? 'yes' : 'NO'} |`,
  );
}

console.log(
  `| Writer (default scenario, ${RUNS} runs) | ms per result, median | stored gzip | gunzip = JSON.stringify |`,
);
console.log('|---|--:|--:|---|');
// Since 2026-11-29 the worker stores the hourly integers (shared/result/stored.form.ts) and the web
// makes the gzip with the hand-made encoder: both steps here, the stored bytes in bench/stored.form.ab.ts.
measure('our writer (worker/result) + the web making the gzip (shared/result/stored.gzip.ts)', () =>
  fullGzip(parseStoredForm(serializeResult(id, result).statements_gzip ?? Buffer.alloc(0))),
);
measure('the web making the gzip alone', () => fullGzip(storedForm));
const pieces = jsonPieces();
measure('JSON text only (no compression), for scale', () => {
  jsonPieces();
  return gzipPieces([Buffer.from(expected)], 0, constants.Z_DEFAULT_STRATEGY);
});
for (const [name, level, strategy] of [
  ['zlib level 1, default strategy', 1, constants.Z_DEFAULT_STRATEGY],
  ['zlib level 1, Z_RLE', 1, constants.Z_RLE],
  ['zlib Z_HUFFMAN_ONLY', 1, constants.Z_HUFFMAN_ONLY],
  ['zlib level 6 (its default)', 6, constants.Z_DEFAULT_STRATEGY],
] as const) {
  measure(`JSON text + ${name}`, () => gzipPieces(jsonPieces(), level, strategy));
  measure(`… ${name}, compression alone (text made beforehand)`, () => gzipPieces(pieces, level, strategy));
}
