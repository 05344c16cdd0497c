// The SSE clients of the tests and the bench: follow(), a real client (the `eventsource` package,
// reconnecting with Last-Event-ID as a browser does) that records every event it receives; and
// SseStream, a raw-socket client cheap enough to hold thousands of streams in one process, for
// measuring: it does not parse events, it notes the moment a marker first appears in the stream.
import { connect, type Socket } from 'node:net';
import { EventSource } from 'eventsource';
import { isTerminal, OPTIMIZATION_EVENTS, SCENARIO_EVENTS, SWEEP_EVENTS } from '../../shared/lifecycle.ts';
import { Arrivals, epochMs } from './wait.ts';

export interface ReceivedEvent {
  id: number;
  event: string;
  data: Record<string, unknown>;
}

/** A scenario's events, a sweep's and an optimization's stored ones and the `progress` their streams add. */
const NAMES = [...new Set([...SCENARIO_EVENTS, ...SWEEP_EVENTS, ...OPTIMIZATION_EVENTS, 'deleted'])];

export interface Follower {
  events: ReceivedEvent[];
  /** Resolves when an event matching the predicate has arrived. */
  until(predicate: (e: ReceivedEvent) => boolean, timeoutMs?: number): Promise<ReceivedEvent>;
  close(): void;
  source: EventSource;
}

export function follow(url: string, opts: { lastEventId?: number; headers?: Record<string, string> } = {}): Follower {
  const received = new Arrivals<ReceivedEvent>();
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
      received.push({ id: Number(ev.lastEventId), event: name, data: JSON.parse(ev.data as string) });
      // A scenario stream ends with its terminal status; a sweep's and an optimization's with
      // `finished`; any stream with `deleted` when its resource is deleted.
      if (isTerminal(name) || name === 'finished' || name === 'deleted') source.close();
    });
  }
  const events = received.items;
  return {
    events,
    source,
    close: () => source.close(),
    until(predicate, timeoutMs = 30_000) {
      return received.until(predicate, {
        timeoutMs,
        timedOut: () =>
          new Error(`event not seen in ${timeoutMs} ms; got ${events.map((e) => `${e.id}:${e.event}`).join(' ')}`),
      });
    },
  };
}

type Watcher = { marker: string; resolve: (at: number) => void; reject: (err: Error) => void };

/** A raw event stream on 127.0.0.1 that notes when markers (e.g. "event: progress") arrive. */
export class SseStream {
  readonly #socket: Socket;
  #text = '';
  #watchers: Watcher[] = [];
  #error: Error | null = null;

  private constructor(socket: Socket) {
    this.#socket = socket;
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => {
      const at = epochMs();
      this.#text += chunk.toString('latin1');
      if (this.#text.length >= 12 && !this.#text.startsWith('HTTP/1.1 200')) {
        this.#fail(new Error(`stream refused: ${this.#text.slice(0, 300)}`));
        return;
      }
      if (this.#watchers.length > 0) this.#check(at);
    });
    socket.on('error', (err) => this.#fail(err));
    socket.on('close', () => this.#fail(new Error('stream closed before the marker')));
  }

  static open(port: number, path: string, headers: Record<string, string> = {}): Promise<SseStream> {
    return new Promise((resolve, reject) => {
      const socket = connect({ host: '127.0.0.1', port }, () => {
        socket.off('error', reject);
        let head = `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAccept: text/event-stream\r\n`;
        for (const [k, v] of Object.entries(headers)) head += `${k}: ${v}\r\n`;
        socket.write(`${head}\r\n`);
        resolve(new SseStream(socket));
      });
      socket.once('error', reject);
    });
  }

  /** Resolves with the wall-clock time (epochMs) at which `marker` arrived (at once if it already has). */
  waitFor(marker: string): Promise<number> {
    if (this.#error) return Promise.reject(this.#error);
    return new Promise((resolve, reject) => {
      this.#watchers.push({ marker, resolve, reject });
      if (this.#text.includes(marker)) this.#check(epochMs());
    });
  }

  /** Everything received, the response's head included. */
  get text(): string {
    return this.#text;
  }

  close(): void {
    this.#watchers = [];
    this.#socket.destroy();
  }

  #check(at: number): void {
    this.#watchers = this.#watchers.filter((w) => {
      if (!this.#text.includes(w.marker)) return true;
      w.resolve(at);
      return false;
    });
  }

  #fail(err: Error): void {
    if (this.#error) return;
    this.#error = err;
    const watchers = this.#watchers;
    this.#watchers = [];
    for (const w of watchers) w.reject(err);
  }
}
