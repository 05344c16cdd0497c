// The result writer: a calculation's statements as the stored forms (gzip JSON with and without the
// hourly arrays) and their ETag. Everything outside this folder uses only what this file exports.
//
// Contract: the full form gunzips to exactly JSON.stringify({ scenario_id, ...statements, ...series })
// — the hourly series the result has, in the registry's order (shared/hourly.series.ts: solar and
// wind always, a battery's and a load's with them) — with each hourly value rounded to the scenario's decimals of MWh
// (3, i.e. 1 kWh, for any plant where that moves no annual sum by more than 0.05 %; up to 9 for a
// small system, whose rows then go through zlib: hourly.precision.ts), and the lite form to the
// same without the hourly arrays; any gzip reader reads both
// (test/result.serialize.test.ts checks gunzip against JSON.stringify on real and random results).
//
// Why a hand-made encoder (hourly.deflate.ts and its helpers) and not JSON text + node:zlib: on the
// default scenario, `node bench/result.writer.bench.ts` measured 11–16 ms a result for this encoder
// (0.831 MB) against 54–62 ms for JSON text + zlib at level 1 or Huffman-only (0.84–1.01 MB; making
// the 2.3 MB of JSON text alone takes ~35–40 ms) and ~150 ms at zlib's default level. The writer
// runs in a result thread beside the engine thread on 2 cores, so its CPU comes out of the backlog
// drain (bench #5, ≥ 0.8 × 1/engine): the library path costs ~40 ms more CPU a result, two thirds of
// an engine run, which 2 cores cannot absorb at 0.8× (the arithmetic: bench/README.md, "Result writer").
export { ResultClient } from './client.ts';
export {
  freeBuffer,
  type ResultStatements,
  ResultWriter,
  type SerializedResult,
  serializeResult,
  withoutHourly,
  type YearSeries,
  yearKwh,
} from './serialize.ts';
export type { ResultReply } from './thread.ts';
