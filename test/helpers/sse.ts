// A real SSE client (the `eventsource` package) that records every event it receives.
import { EventSource } from 'eventsource';
import { isTerminal, SCENARIO_EVENTS, SWEEP_EVENTS } from '../../shared/lifecycle.ts';

export interface ReceivedEvent {
  id: number;
  event: string;
  data: Record<string, unknown>;
}

/** A scenario's events, a sweep's stored ones and the `progress` its stream adds (a scenario's name too). */
const NAMES = [...SCENARIO_EVENTS, ...SWEEP_EVENTS];

export interface Follower {
  events: ReceivedEvent[];
  /** Resolves when an event matching the predicate has arrived. */
  until(predicate: (e: ReceivedEvent) => boolean, timeoutMs?: number): Promise<ReceivedEvent>;
  close(): void;
  source: EventSource;
}

export function follow(url: string, opts: { lastEventId?: number; headers?: Record<string, string> } = {}): Follower {
  const events: ReceivedEvent[] = [];
  const waiters = new Set<() => void>();
  const source = new EventSource(url, {
    fetch: (input, init) =>
      fetch(input, {
        ...init,
        headers: {
          ...(init?.headers as Record<string, string>),
          ...opts.headers,
          ...(opts.lastEventId !== undefined && !(init?.headers as Record<string, string>)?.['Last-Event-ID']
            ? { 'Last-Event-ID': String(opts.lastEventId) }
            : {}),
        },
      }),
  });
  for (const name of NAMES) {
    source.addEventListener(name, (ev: MessageEvent) => {
      events.push({ id: Number(ev.lastEventId), event: name, data: JSON.parse(ev.data as string) });
      for (const w of waiters) w();
      if (isTerminal(name)) source.close();
    });
  }
  return {
    events,
    source,
    close: () => source.close(),
    until(predicate, timeoutMs = 30_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const hit = events.find(predicate);
          if (hit) {
            waiters.delete(check);
            clearTimeout(timer);
            resolve(hit);
          }
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(
            new Error(`event not seen in ${timeoutMs} ms; got ${events.map((e) => `${e.id}:${e.event}`).join(' ')}`),
          );
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
  };
}
