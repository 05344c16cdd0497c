// The web process's one dedicated LISTEN connection, shared by every SSE stream. Channels are
// reference-counted: LISTEN when the first subscriber arrives, UNLISTEN when the last leaves.
// LISTEN/UNLISTEN run one at a time, in order, so a subscribe can never race a pending UNLISTEN.
// After a reconnect every channel is listened again and every subscriber is told to re-read.
import pg from 'pg';

interface Subscriber {
  /** A notification arrived on the channel (or may have been missed): read new rows. */
  wake(): void;
}

interface ListenerLogger {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

const quote = (channel: string) => `"${channel.replaceAll('"', '""')}"`;

export class ChannelListener {
  readonly #connectionString: string;
  readonly #log: ListenerLogger;
  readonly #subs = new Map<string, Set<Subscriber>>();
  /** Bumped on every notification, reconnect and subscribe: a read started in this epoch has seen every notified commit (server/sse/event-streams.ts). */
  #epoch = 0;
  #client: pg.Client | null = null;
  #chain: Promise<unknown> = Promise.resolve();
  #stopped = false;
  #backoffMs = 100;
  #reconnectTimer: NodeJS.Timeout | null = null;
  /** How many times the connection has been (re)established; tests and /readyz read it. */
  connects = 0;

  constructor(connectionString: string, log: ListenerLogger) {
    this.#connectionString = connectionString;
    this.#log = log;
  }

  get epoch(): number {
    return this.#epoch;
  }

  get connected(): boolean {
    return this.#client !== null;
  }

  get channelCount(): number {
    return this.#subs.size;
  }

  get subscriberCount(): number {
    let n = 0;
    for (const set of this.#subs.values()) n += set.size;
    return n;
  }

  async start(): Promise<void> {
    await this.#connect().catch(() => this.#scheduleReconnect());
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#reconnectTimer) clearTimeout(this.#reconnectTimer);
    const client = this.#client;
    this.#client = null;
    await client?.end().catch(() => {});
  }

  /** Resolves once the channel is listened (or, while disconnected, once a reconnect will listen it). */
  async subscribe(channel: string, sub: Subscriber): Promise<() => void> {
    let set = this.#subs.get(channel);
    if (!set) {
      set = new Set();
      this.#subs.set(channel, set);
    }
    set.add(sub);
    this.#epoch++;
    await this.#enqueue(async (client) => {
      if (this.#subs.has(channel)) await client.query(`LISTEN ${quote(channel)}`);
    });
    return () => {
      const current = this.#subs.get(channel);
      if (!current?.delete(sub) || current.size > 0) return;
      this.#subs.delete(channel);
      void this.#enqueue(async (client) => {
        if (!this.#subs.has(channel)) await client.query(`UNLISTEN ${quote(channel)}`);
      });
    };
  }

  #enqueue(op: (client: pg.Client) => Promise<void>): Promise<void> {
    const next = this.#chain.then(async () => {
      const client = this.#client;
      // While disconnected there is nothing to do: the reconnect listens every channel in #subs.
      if (client) await op(client).catch((err: Error) => this.#log.warn({ err: err.message }, 'listen op failed'));
    });
    this.#chain = next;
    return next;
  }

  async #connect(): Promise<void> {
    const client = new pg.Client({
      connectionString: this.#connectionString,
      application_name: 'hourglass-web-listen',
      connectionTimeoutMillis: 3000,
      keepAlive: true,
    });
    client.on('notification', (msg) => {
      const set = this.#subs.get(msg.channel);
      if (!set) return;
      this.#epoch++;
      for (const sub of set) sub.wake();
    });
    const lost = () => {
      if (this.#client !== client) return;
      this.#client = null;
      this.#log.warn({}, 'listening connection lost; reconnecting');
      this.#scheduleReconnect();
    };
    client.on('error', lost);
    client.on('end', lost);
    // Listen every channel inside the chain, so ordering with pending (UN)LISTENs holds.
    const ready = this.#chain.then(async () => {
      await client.connect();
      const channels = [...this.#subs.keys()];
      if (channels.length > 0) await client.query(channels.map((c) => `LISTEN ${quote(c)}`).join(';'));
      this.#client = client;
    });
    this.#chain = ready.catch(() => {});
    try {
      await ready;
    } catch (err) {
      await client.end().catch(() => {});
      throw err;
    }
    this.connects++;
    this.#backoffMs = 100;
    if (this.connects > 1) this.#log.info({ channels: this.#subs.size }, 'listening connection restored');
    // Anything committed while we were away produced notifications nobody heard: re-read.
    this.#epoch++;
    for (const set of this.#subs.values()) for (const sub of set) sub.wake();
  }

  #scheduleReconnect(): void {
    if (this.#stopped || this.#reconnectTimer) return;
    const delay = this.#backoffMs;
    this.#backoffMs = Math.min(this.#backoffMs * 2, 5000);
    this.#reconnectTimer = setTimeout(() => {
      this.#reconnectTimer = null;
      this.#connect().catch(() => this.#scheduleReconnect());
    }, delay);
    this.#reconnectTimer.unref();
  }
}
