// A scenario's events as SSE blocks. Each block is encoded once and the same bytes go to every
// stream that sends it; one read serves all the streams of a scenario (scenario-streams.ts).
import type { Db } from '../../shared/db.ts';
import { eventsAfter } from '../scenarios.repository.ts';

export interface SseEvent {
  seq: number;
  name: string;
  /** The whole `id:/event:/data:` block as UTF-8, made once for every stream that sends it. */
  bytes: Buffer;
}

export async function readSseEvents(db: Db, scenarioId: string, afterSeq: number): Promise<SseEvent[]> {
  const rows = await eventsAfter(db, scenarioId, afterSeq);
  return rows.map((r) => ({
    seq: r.seq,
    name: r.name,
    bytes: Buffer.from(`id: ${r.seq}\nevent: ${r.name}\ndata: ${JSON.stringify(r.data)}\n\n`),
  }));
}
