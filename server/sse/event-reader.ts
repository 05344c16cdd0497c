// Reads a scenario's events for SSE streams, sharing one query among the streams that need the
// same rows. When one event reaches 5,000 streams of a scenario, that is one query, not 5,000.
//
// Sharing is safe only with a query that started after the notification a stream is acting on
// (and after the stream subscribed): the key includes the listener's epoch, which it bumps on
// every notification, reconnect and subscribe before it wakes anyone.
import type { Db } from '../../shared/db.ts';
import { eventsAfter } from '../../shared/scenarios.repository.ts';

export interface SseEvent {
  seq: number;
  name: string;
  /** The whole `id:/event:/data:` block as UTF-8, made once for every stream that sends it. */
  bytes: Buffer;
}

export class EventReader {
  readonly #db: Db;
  readonly #inflight = new Map<string, Promise<SseEvent[]>>();

  constructor(db: Db) {
    this.#db = db;
  }

  read(scenarioId: string, afterSeq: number, epoch: number): Promise<SseEvent[]> {
    const key = `${scenarioId}:${afterSeq}:${epoch}`;
    let pending = this.#inflight.get(key);
    if (!pending) {
      pending = eventsAfter(this.#db, scenarioId, afterSeq)
        .then((rows) =>
          rows.map((r) => ({
            seq: r.seq,
            name: r.name,
            bytes: Buffer.from(`id: ${r.seq}\nevent: ${r.name}\ndata: ${JSON.stringify(r.data)}\n\n`),
          })),
        )
        .finally(() => this.#inflight.delete(key));
      this.#inflight.set(key, pending);
    }
    return pending;
  }
}
