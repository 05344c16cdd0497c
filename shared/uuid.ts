import { v7 } from 'uuid';

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;

/**
 * RFC 9562 UUIDv7 (the `uuid` package): 48-bit Unix milliseconds, then a counter, so ids made by
 * one process sort in creation order even within a millisecond, which keyset paging relies on.
 * Ids from different processes in the same millisecond sort by their random bits.
 */
export const uuidv7 = (): string => v7();

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

/** The LISTEN/NOTIFY channel of one sweep's events (written by sql/0005_sweeps.sql's trigger). */
export const sweepChannel = (id: string): string => `sweep_${id.replaceAll('-', '').toLowerCase()}`;
export const optimizationChannel = (id: string): string => `optimization_${id.replaceAll('-', '').toLowerCase()}`;
