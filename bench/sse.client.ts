// A raw-socket SSE client cheap enough to hold thousands of streams in one process. It does not
// parse events: it notes the moment a marker (e.g. "event: progress") first appears in the stream.
import { connect, type Socket } from 'node:net';
import { epochMs } from './stats.ts';

type Watcher = { marker: string; resolve: (at: number) => void; reject: (err: Error) => void };

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
