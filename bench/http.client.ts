// A minimal HTTP/1.1 keep-alive client over raw sockets, one request at a time per connection.
// A load generator that shares two cores with the server must cost little per request: no
// pooling layer, no header objects beyond what is parsed here. Only 127.0.0.1.
import { connect, type Socket } from 'node:net';
import { epochMs } from '../test/helpers/wait.ts';
import { quantile, sleep } from './stats.ts';

export interface HttpResponse {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

export interface HttpRequest {
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
}

type Pending = { resolve: (r: HttpResponse) => void; reject: (e: Error) => void; head: boolean };

export class Connection {
  readonly #socket: Socket;
  readonly #port: number;
  // Received bytes not yet consumed, kept as chunks: a 1 MB body is concatenated once, not per chunk.
  #chunks: Buffer[] = [];
  #length = 0;
  /** Bytes needed before parsing again is worth it (a known Content-Length); 0 when unknown. */
  #need = 0;
  #pending: Pending | null = null;
  #closed = false;

  private constructor(socket: Socket, port: number) {
    this.#socket = socket;
    this.#port = port;
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => {
      this.#chunks.push(chunk);
      this.#length += chunk.length;
      if (this.#length >= this.#need) this.#parse();
    });
    const fail = (err: Error) => {
      this.#closed = true;
      const p = this.#pending;
      this.#pending = null;
      p?.reject(err);
    };
    socket.on('error', fail);
    socket.on('close', () => fail(new Error('connection closed')));
  }

  static open(port: number): Promise<Connection> {
    return new Promise((resolve, reject) => {
      const socket = connect({ host: '127.0.0.1', port }, () => {
        socket.off('error', reject);
        resolve(new Connection(socket, port));
      });
      socket.once('error', reject);
    });
  }

  get closed(): boolean {
    return this.#closed;
  }

  request(req: HttpRequest): Promise<HttpResponse> {
    if (this.#closed) return Promise.reject(new Error('connection closed'));
    if (this.#pending) return Promise.reject(new Error('one request at a time'));
    const body = req.body === undefined ? null : Buffer.isBuffer(req.body) ? req.body : Buffer.from(req.body);
    let head = `${req.method} ${req.path} HTTP/1.1\r\nHost: 127.0.0.1:${this.#port}\r\n`;
    for (const [k, v] of Object.entries(req.headers ?? {})) head += `${k}: ${v}\r\n`;
    if (body) head += `Content-Length: ${body.length}\r\n`;
    head += '\r\n';
    return new Promise((resolve, reject) => {
      this.#pending = { resolve, reject, head: req.method === 'HEAD' };
      this.#socket.write(body ? Buffer.concat([Buffer.from(head), body]) : head);
    });
  }

  close(): void {
    this.#closed = true;
    this.#socket.destroy();
  }

  #parse(): void {
    const p = this.#pending;
    if (!p) return;
    const buf = this.#chunks.length === 1 ? this.#chunks[0] : Buffer.concat(this.#chunks, this.#length);
    this.#chunks = [buf];
    const end = buf.indexOf('\r\n\r\n');
    if (end < 0) return;
    const lines = buf.toString('latin1', 0, end).split('\r\n');
    const status = Number(lines[0].split(' ')[1]);
    const headers: Record<string, string> = {};
    for (let i = 1; i < lines.length; i++) {
      const colon = lines[i].indexOf(':');
      headers[lines[i].slice(0, colon).trim().toLowerCase()] = lines[i].slice(colon + 1).trim();
    }
    const start = end + 4;
    let body: Buffer | null;
    let consumed: number;
    if (p.head || status === 204 || status === 304 || (status >= 100 && status < 200)) {
      body = Buffer.alloc(0);
      consumed = start;
    } else if (headers['content-length'] !== undefined) {
      const len = Number(headers['content-length']);
      if (buf.length < start + len) {
        this.#need = start + len;
        return;
      }
      body = buf.subarray(start, start + len);
      consumed = start + len;
    } else if (headers['transfer-encoding']?.includes('chunked')) {
      const r = decodeChunked(buf, start);
      if (!r) return;
      body = r.body;
      consumed = r.end;
    } else {
      this.close();
      p.reject(new Error('response without Content-Length or chunked encoding'));
      return;
    }
    const rest = buf.subarray(consumed);
    this.#chunks = rest.length > 0 ? [rest] : [];
    this.#length = rest.length;
    this.#need = 0;
    this.#pending = null;
    p.resolve({ status, headers, body });
  }
}

/** The body of a complete chunked message starting at `from`, or null if more bytes are needed. */
function decodeChunked(buf: Buffer, from: number): { body: Buffer; end: number } | null {
  const parts: Buffer[] = [];
  let at = from;
  for (;;) {
    const eol = buf.indexOf('\r\n', at);
    if (eol < 0) return null;
    const size = Number.parseInt(buf.toString('latin1', at, eol), 16);
    const dataStart = eol + 2;
    if (size === 0) {
      const trailerEnd = buf.indexOf('\r\n', dataStart);
      if (trailerEnd < 0) return null;
      return { body: Buffer.concat(parts), end: trailerEnd + 2 };
    }
    if (buf.length < dataStart + size + 2) return null;
    parts.push(buf.subarray(dataStart, dataStart + size));
    at = dataStart + size + 2;
  }
}

export interface LoadResult {
  /** Requests answered inside the measured window. */
  requests: number;
  /** Every answered request, warm-up included: what per-request CPU figures divide by. */
  completed: number;
  /** Errors over the whole run, warm-up included. */
  errors: number;
  /** The first few distinct error descriptions, to say what went wrong. */
  errorSamples: string[];
  perSecond: number;
  p50: number;
  p99: number;
  max: number;
}

/**
 * Closed loop: `connections` keep-alive connections, each sending its next request as soon as the
 * previous answer arrives. Requests started during the warm-up are not counted; the measured
 * window is `durationMs` after it. A response whose status is not `expect` counts as an error.
 */
export interface ClosedLoopOptions {
  port: number;
  connections: number;
  warmupMs: number;
  durationMs: number;
  request: HttpRequest;
  expect: number;
  /**
   * Paced instead: all connections together start this many requests a second, each connection on
   * its own fixed schedule. A request whose connection is still busy at its time starts late, and
   * its latency counts from its scheduled time, so queueing is measured, not hidden (as wrk2 does).
   */
  ratePerSecond?: number;
}

export async function closedLoop(options: ClosedLoopOptions): Promise<LoadResult> {
  const conns = await Promise.all(Array.from({ length: options.connections }, () => Connection.open(options.port)));
  const t0 = epochMs();
  const measureFrom = t0 + options.warmupMs;
  const stopAt = measureFrom + options.durationMs;
  const latencies: number[] = [];
  let errors = 0;
  let completed = 0;
  const errorSamples = new Set<string>();
  const note = (what: string) => {
    errors++;
    if (errorSamples.size < 5) errorSamples.add(what);
  };
  await Promise.all(
    conns.map(async (initial, index) => {
      let conn = initial;
      const interval = options.ratePerSecond ? (1000 * options.connections) / options.ratePerSecond : 0;
      // Connections spread evenly over one interval, so the offered load is smooth.
      let scheduled = t0 + (interval * index) / options.connections;
      for (;;) {
        if (interval > 0) {
          const wait = scheduled - epochMs();
          if (wait > 0) await sleep(wait);
        }
        const start = interval > 0 ? scheduled : epochMs();
        scheduled += interval;
        if (start >= stopAt) break;
        try {
          const res = await conn.request(options.request);
          const done = epochMs();
          completed++;
          if (res.status !== options.expect) note(`HTTP ${res.status}: ${res.body.toString('utf8', 0, 200)}`);
          if (start >= measureFrom && done <= stopAt) latencies.push(done - start);
        } catch (err) {
          note((err as Error).message);
          conn.close();
          conn = await Connection.open(options.port);
        }
      }
      conn.close();
    }),
  );
  return {
    requests: latencies.length,
    completed,
    errors,
    errorSamples: [...errorSamples],
    perSecond: latencies.length / (options.durationMs / 1000),
    p50: quantile(latencies, 0.5),
    p99: quantile(latencies, 0.99),
    max: quantile(latencies, 1),
  };
}
