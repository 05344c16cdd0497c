// #7 SSE fan-out: N streams on one scenario's channel of one web process, one progress event
// committed as the worker commits it, delivery measured from the commit to each client's receipt.
// Baseline: a bare node:http SSE server (bench/sse-baseline.server.ts) holding the same number of
// streams from the same client, woken by a NOTIFY on the same database.
import type { Bench } from './context.ts';
import { count } from './context.ts';
import type { Broadcast } from './load.protocol.ts';
import { rssMb, startServer, startWeb } from './procs.ts';
import { median, quantile, sleep } from './stats.ts';

interface Fanout {
  p50: number;
  p99: number;
  missing: number;
  openSeconds: number;
}

/** Opens the streams, then `broadcasts` times commits one event; the median p50 and p99 over broadcasts. */
async function fanout(
  b: Bench,
  url: string,
  port: number,
  path: string,
  ready: string,
  broadcast: (seq: number) => Broadcast,
): Promise<Fanout> {
  const opened = await b.load.call('sseOpen', { port, path, count: b.sizes.sseStreams, concurrency: 100, ready });
  const p50s: number[] = [];
  const p99s: number[] = [];
  let missing = 0;
  for (let i = 0; i < b.sizes.sseBroadcasts; i++) {
    await sleep(1000);
    // seq 1 is the scenario's `queued` event; each broadcast appends the next.
    const seq = i + 2;
    const r = await b.load.call('sseBroadcast', {
      databaseUrl: url,
      broadcast: broadcast(seq),
      marker: `id: ${seq}\nevent: progress`,
      timeoutMs: 30_000,
    });
    p50s.push(median(r.latencyMs));
    p99s.push(quantile(r.latencyMs, 0.99));
    missing = Math.max(missing, r.missing);
  }
  return { p50: median(p50s), p99: median(p99s), missing, openSeconds: opened.seconds };
}

export async function sseFanout(b: Bench, url: string): Promise<void> {
  const n = b.sizes.sseStreams;
  const bare = await startServer({
    name: 'sse-baseline',
    entry: 'bench/sse-baseline.server.ts',
    args: [url, 'bench_broadcast'],
    logDir: b.logDir,
  });
  let base: Fanout;
  let bareRss: number;
  const bareIdleRss = rssMb(bare.pid);
  try {
    // The bare server sends `id: <payload>`: the payload is the seq, as pg_notify's is for the web.
    base = await fanout(b, url, bare.port, '/stream', 'retry: 3000', (seq) => ({
      kind: 'notify',
      channel: 'bench_broadcast',
      seq,
    }));
    bareRss = rssMb(bare.pid);
    await b.load.call('sseClose', {});
  } finally {
    await bare.stop();
  }
  const web = await startWeb(url, b.logDir, 'web-sse', { MAX_SSE_STREAMS: String(Math.max(10_000, n + 100)) });
  try {
    const { ids } = await b.load.call('createMany', { port: web.port, count: 1, connections: 1 });
    const id = ids[0];
    const rssBefore = rssMb(web.pid);
    const real = await fanout(b, url, web.port, `/api/scenarios/${id}/events`, 'event: queued', () => ({
      kind: 'event',
      scenarioId: id,
    }));
    const rss = rssMb(web.pid);
    const { rows } = await b.pool(url).query<{ n: number }>(
      `SELECT count(*)::int AS n FROM pg_stat_activity
          WHERE application_name = 'hourglass-web-listen' AND datname = current_database()`,
    );
    await b.load.call('sseClose', {});
    const streams = `${count(n)} streams`;
    b.rows.push(
      {
        n: '7',
        figure: `SSE fan-out, ${streams}, one event: delivery p50`,
        value: real.p50,
        unit: 'ms',
        baseline: { label: 'bare Node SSE p50', value: base.p50 },
        ratio: real.p50 / base.p50,
        target: 'context',
        met: null,
      },
      {
        n: '7',
        figure: `SSE fan-out, ${streams}: delivery p99`,
        value: real.p99,
        unit: 'ms',
        baseline: { label: 'bare Node SSE p99', value: base.p99 },
        ratio: real.p99 / base.p99,
        target: '≤ 1.3 × baseline',
        met: real.p99 <= 1.3 * base.p99 && real.missing === 0,
      },
      {
        n: '7',
        figure: "SSE fan-out: the web process's listening connections",
        value: rows[0].n,
        unit: 'count',
        target: 'exactly 1',
        met: rows[0].n === 1,
      },
      {
        n: '7',
        figure: `SSE fan-out: web RSS with ${streams}`,
        value: rss,
        unit: 'MB',
        baseline: { label: 'bare Node SSE RSS', value: bareRss },
        target: '≤ 300 MB',
        met: rss <= 300,
      },
    );
    const perStream = (mb: number) => ((mb * 1024) / n).toFixed(0);
    b.notes.push(
      `#7: RSS per stream: web ${perStream(rss - rssBefore)} kB (idle web ${rssBefore.toFixed(0)} MB), bare server ${perStream(bareRss - bareIdleRss)} kB (idle ${bareIdleRss.toFixed(0)} MB)`,
      `#7: opening ${streams} took ${real.openSeconds.toFixed(1)} s (bare: ${base.openSeconds.toFixed(1)} s); ${b.sizes.sseBroadcasts} broadcast(s), median of their p50/p99; missed deliveries: ${real.missing} (bare: ${base.missing})`,
    );
  } finally {
    await web.stop();
  }
}
