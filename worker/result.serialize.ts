// Turns an engine result into the stored forms: the statements JSON (with and without hourly
// arrays) gzip-compressed, and the hourly series as int32 kWh for CSV. Runs in the engine thread.
import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import type { EngineResult } from './engine/index.ts';

export interface SerializedResult {
  etag: string;
  statements_gzip: Buffer;
  statements_lite_gzip: Buffer;
  hourly_kwh: Buffer;
  summary: EngineResult['kpis'];
}

// Level 1 is ~4x faster than the default 6 on these number arrays and only ~15 % larger.
const GZIP_LEVEL = 1;

/** Delivered MWh rounded to 1 kWh, as integers: exact, and half the bytes of float64. */
function toKwh(mwh: Float64Array, out: Int32Array, offset: number): void {
  for (let i = 0; i < mwh.length; i++) out[offset + i] = Math.round(mwh[i] * 1000);
}

/** `[[y1h0,…],[y2h0,…],…]` from kWh, each value printed as MWh with at most 3 decimals. */
function hourlyJson(kwh: Int32Array, offset: number, years: number, hours: number): string {
  const parts: string[] = [];
  for (let y = 0; y < years; y++) {
    const start = offset + y * hours;
    const row: string[] = new Array(hours);
    for (let h = 0; h < hours; h++) row[h] = String(kwh[start + h] / 1000);
    parts.push(`[${row.join(',')}]`);
  }
  return `[${parts.join(',')}]`;
}

export function serializeResult(scenarioId: string, result: EngineResult): SerializedResult {
  const { solar_hourly, wind_hourly, ...rest } = result;
  const n = solar_hourly.length;
  const kwh = new Int32Array(2 * n);
  toKwh(solar_hourly, kwh, 0);
  toKwh(wind_hourly, kwh, n);
  const lite = JSON.stringify({ scenario_id: scenarioId, ...rest });
  const full = `${lite.slice(0, -1)},"solar_hourly":${hourlyJson(kwh, 0, result.years, result.hours_per_year)},"wind_hourly":${hourlyJson(kwh, n, result.years, result.hours_per_year)}}`;
  const etag = createHash('sha256').update(full).digest('base64url').slice(0, 27);
  return {
    etag,
    statements_gzip: gzipSync(full, { level: GZIP_LEVEL }),
    statements_lite_gzip: gzipSync(lite, { level: GZIP_LEVEL }),
    hourly_kwh: Buffer.from(kwh.buffer, kwh.byteOffset, kwh.byteLength),
    summary: result.kpis,
  };
}
