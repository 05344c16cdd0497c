// The load process: started by bench/run.ts with an IPC channel, it runs one command at a time
// (see load.protocol.ts) against the web process and Postgres, and answers with raw samples.
// Keeping the clients here keeps their CPU off the orchestrator that watches the processes.
import { get } from 'node:http';
import { SseStream } from '../test/helpers/sse.ts';
import { epochMs } from '../test/helpers/wait.ts';
import { Connection, type Connection as ConnectionType, closedLoop } from './http.client.ts';
import { closeDbs, commitBroadcast, dbFor, jobDone, notifyLatency, pickup, selectResult } from './load.db.ts';
import { type Command, DEFAULT_SCENARIO, type LoadCommands, type LoadRequest } from './load.protocol.ts';
import { mapLimit, sleep } from './stats.ts';

type Handlers = { [C in Command]: (args: LoadCommands[C]['args']) => Promise<LoadCommands[C]['result']> };

const POST_SCENARIO = {
  method: 'POST',
  path: '/api/scenarios',
  headers: { 'Content-Type': 'application/json' },
  body: DEFAULT_SCENARIO,
};

let streams: SseStream[] = [];

async function post(conn: ConnectionType): Promise<string> {
  const res = await conn.request(POST_SCENARIO);
  if (res.status !== 201) throw new Error(`POST /api/scenarios: ${res.status} ${res.body.toString('utf8', 0, 300)}`);
  return (JSON.parse(res.body.toString('utf8')) as { id: string }).id;
}

const handlers: Handlers = {
  notifyLatency,
  pickup,
  selectResult,
  closedLoop,

  async endToEnd({ port, databaseUrl, samples }) {
    const { pool } = dbFor(databaseUrl);
    const conn = await Connection.open(port);
    const latencyMs: number[] = [];
    const stages: Record<string, number[]> = {
      toRunning: [],
      calculating: [],
      serializing: [],
      storingAndDelivering: [],
    };
    try {
      for (let i = 0; i < samples; i++) {
        const t0 = epochMs();
        const id = await post(conn);
        const stream = await SseStream.open(port, `/api/scenarios/${id}/events`);
        const at = await stream.waitFor('event: succeeded');
        latencyMs.push(at - t0);
        stream.close();
        if (stream.text.includes('event: failed')) throw new Error(`scenario ${id} failed`);
        await jobDone(pool, id);
        // Where the time went, from the event rows' created_at (each its transaction's start).
        const { rows } = await pool.query<{ name: string; at: number }>(
          `SELECT name, extract(epoch FROM created_at)::float8 * 1000 AS at
             FROM scenario_events WHERE scenario_id = $1 ORDER BY seq`,
          [id],
        );
        const running = rows.find((r) => r.name === 'running')?.at ?? Number.NaN;
        const lastProgress = rows.filter((r) => r.name === 'progress').at(-1)?.at ?? Number.NaN;
        const succeeded = rows.find((r) => r.name === 'succeeded')?.at ?? Number.NaN;
        stages.toRunning.push(running - t0);
        stages.calculating.push(lastProgress - running);
        stages.serializing.push(succeeded - lastProgress);
        stages.storingAndDelivering.push(at - succeeded);
        await sleep(10);
      }
    } finally {
      conn.close();
    }
    return { latencyMs, stages };
  },

  async createMany({ port, count, connections }) {
    const conns = await Promise.all(Array.from({ length: connections }, () => Connection.open(port)));
    const free = [...conns];
    const ids = await mapLimit(Array.from({ length: count }), connections, async () => {
      const conn = free.pop() as ConnectionType;
      try {
        return await post(conn);
      } finally {
        free.push(conn);
      }
    });
    for (const c of conns) c.close();
    return { ids };
  },

  async sequential({ port, request, samples, warmup, expect }) {
    const conn = await Connection.open(port);
    const latencyMs: number[] = [];
    let headers: Record<string, string> = {};
    let bytes = 0;
    try {
      for (let i = 0; i < warmup + samples; i++) {
        const t0 = performance.now();
        const res = await conn.request(request);
        const ms = performance.now() - t0;
        if (res.status !== expect) throw new Error(`${request.path}: ${res.status}, expected ${expect}`);
        if (i >= warmup) latencyMs.push(ms);
        headers = res.headers;
        bytes = res.body.length;
      }
    } finally {
      conn.close();
    }
    return { latencyMs, headers, bytes };
  },

  async sseOpen({ port, path, count, concurrency, ready }) {
    const t0 = performance.now();
    const opened = await mapLimit(Array.from({ length: count }), concurrency, async () => {
      const stream = await SseStream.open(port, path);
      streams.push(stream);
      await stream.waitFor(ready);
      return stream;
    });
    return { opened: opened.length, seconds: (performance.now() - t0) / 1000 };
  },

  async sseBroadcast({ databaseUrl, broadcast, marker, timeoutMs }) {
    const received: number[] = [];
    // A stream that fails simply never receives: it counts as missing.
    const all = Promise.all(
      streams.map((s) =>
        s.waitFor(marker).then(
          (at) => void received.push(at),
          () => {},
        ),
      ),
    );
    const committedAt = await commitBroadcast(databaseUrl, broadcast);
    await Promise.race([all, sleep(timeoutMs)]);
    return { latencyMs: received.map((at) => at - committedAt), missing: streams.length - received.length };
  },

  async sseClose() {
    const closed = streams.length;
    for (const s of streams) s.close();
    streams = [];
    await sleep(500);
    return { closed };
  },

  list({ port, path }) {
    return new Promise((resolve, reject) => {
      const t0 = performance.now();
      const req = get({ host: '127.0.0.1', port, path, agent: false }, (res) => {
        const ttfbMs = performance.now() - t0;
        if (res.statusCode !== 200) reject(new Error(`${path}: ${res.statusCode}`));
        let bytes = 0;
        // Only the last bytes are kept (for the total): the client must not be what is measured.
        let tail = Buffer.alloc(0);
        res.on('data', (chunk: Buffer) => {
          bytes += chunk.length;
          tail = Buffer.concat([tail, chunk.subarray(-64)]).subarray(-64);
        });
        res.on('end', () => {
          const totalMs = performance.now() - t0;
          const m = /"total":(\d+)\}\s*$/.exec(tail.toString('latin1'));
          if (!m) reject(new Error(`${path}: the body does not end with a total: …${tail}`));
          else resolve({ ttfbMs, totalMs, bytes, total: Number(m[1]) });
        });
        res.on('error', reject);
      });
      req.on('error', reject);
    });
  },
};

process.on('message', (msg: LoadRequest) => {
  const handler = handlers[msg.cmd] as (args: unknown) => Promise<unknown>;
  handler(msg.args).then(
    (result) => process.send?.({ seq: msg.seq, ok: true, result }),
    (err: unknown) =>
      process.send?.({
        seq: msg.seq,
        ok: false,
        error: err instanceof Error ? (err.stack ?? err.message) : String(err),
      }),
  );
});
process.on('SIGTERM', () => {
  for (const s of streams) s.close();
  void closeDbs().finally(() => process.exit(0));
});
process.on('disconnect', () => process.exit(0));
