// Baseline for the SSE fan-out figure: a bare node:http SSE server. Every GET becomes a stream;
// one LISTEN connection; each notification is written, as is, to every open stream. What the real
// web process does beyond this (Express, per-stream reads of the event rows) is what #7 measures.
// Usage: node bench/sse-baseline.server.ts <database url> <channel>
import { createServer, type ServerResponse } from 'node:http';
import pg from 'pg';

const [databaseUrl, channel] = process.argv.slice(2);
if (!databaseUrl || !/^\w+$/.test(channel ?? '')) throw new Error('usage: sse-baseline.server.ts <url> <channel>');

const streams = new Set<ServerResponse>();
const server = createServer((req, res) => {
  res.writeHead(200, {
    'Content-Type': 'text/event-stream; charset=utf-8',
    'Cache-Control': 'no-cache',
    Connection: 'keep-alive',
  });
  res.write('retry: 3000\n\n');
  req.socket.setNoDelay(true);
  streams.add(res);
  req.on('close', () => streams.delete(res));
});

const client = new pg.Client({ connectionString: databaseUrl, application_name: 'hourglass-bench-sse-baseline' });
await client.connect();
client.on('notification', (msg) => {
  const event = `id: ${msg.payload}\nevent: progress\ndata: {"progress":0.5,"stage":"generation","message":"bench broadcast"}\n\n`;
  for (const res of streams) res.write(event);
});
await client.query(`LISTEN ${channel}`);

server.listen(0, '127.0.0.1', () => {
  const addr = server.address();
  console.log(JSON.stringify({ msg: 'listening', port: typeof addr === 'object' && addr ? addr.port : 0 }));
});
process.on('SIGTERM', () => {
  server.closeAllConnections();
  server.close();
  void client.end().finally(() => process.exit(0));
});
