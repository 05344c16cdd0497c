// The result writer: a calculation's statements as the stored forms and their ETag. Everything
// outside this folder uses only what this file exports.
//
// Contract: the full form is the stored form of shared/result/stored.form.ts, from which the web
// makes exactly the gzip of JSON.stringify({ scenario_id, ...statements, ...series })
// (shared/result/stored.gzip.ts) — the hourly series the result has, in the registry's order
// (shared/hourly.series.ts: solar and wind always, a battery's and a load's with them) — with each
// hourly value rounded to the scenario's decimals of MWh (3, i.e. 1 kWh, for any plant where that
// moves no annual sum by more than 0.05 %; up to 9 for a small system: hourly.precision.ts). The
// lite form is the gzip of the same JSON without the hourly arrays, which any gzip reader reads
// (test/result.serialize.test.ts checks both against JSON.stringify on real and random results).
//
// Why the hourly values are stored as integers (zigzag varints, zlib-deflated row by row) and not
// as the answer's gzip: a battery that cycles daily has six series that are nearly incompressible
// as text (1.93 MiB stored as gzip JSON, 1.50 MiB as integers: bench/README.md, "The hourly series
// stored as integers"). The answer's gzip is made back by the web with the hand-made encoder
// that wrote it here before (shared/result/hourly.deflate.ts; why hand-made: 11–16 ms a default
// result against 54–62 ms for JSON text + zlib at level 1, bench/README.md, "Result writer").
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
