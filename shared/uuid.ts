import { randomFillSync } from 'node:crypto';

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;

/** Random bytes drawn 4 kB at a time: one call into the CSPRNG per 409 ids instead of per id. */
const pool = Buffer.alloc(4096);
let poolAt = pool.length;

function random10(): Buffer {
  if (poolAt + 10 > pool.length) {
    randomFillSync(pool);
    poolAt = 0;
  }
  poolAt += 10;
  return pool.subarray(poolAt - 10, poolAt);
}

/** RFC 9562 UUIDv7: 48-bit Unix milliseconds, then random bits, so ids sort by creation time. */
export function uuidv7(now = Date.now()): string {
  const b = Buffer.allocUnsafe(16);
  random10().copy(b, 6);
  b.writeUIntBE(now, 0, 6);
  b[6] = 0x70 | (b[6] & 0x0f);
  b[8] = 0x80 | (b[8] & 0x3f);
  const h = b.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/** Any RFC 4122 / 9562 variant UUID; the id routes answer 404 for anything else. */
export const isUuid = (s: string): boolean => UUID_RE.test(s);

/** The LISTEN/NOTIFY channel of one scenario. */
export const scenarioChannel = (id: string): string => `scenario_${id.replaceAll('-', '').toLowerCase()}`;

/** A stable 32-bit seed from a scenario id, for synthetic weather when none is given. */
export function seedFromId(id: string): number {
  let h = 2166136261;
  for (const ch of id.replaceAll('-', '')) {
    h ^= ch.charCodeAt(0);
    h = Math.imul(h, 16777619) >>> 0;
  }
  return h >>> 0;
}
