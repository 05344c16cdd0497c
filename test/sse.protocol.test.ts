// The event stream's wire format, read with a raw HTTP client: headers, retry, ids, pings, and a
// client that leaves frees its subscription.
import http from 'node:http';
import t from 'tap';
import { DEFAULT_SCENARIO, getJson, postScenario } from './helpers/http.ts';
import { startStack } from './helpers/stack.ts';
import { waitUntil } from './helpers/wait.ts';

const stack = await startStack({ web: { SSE_HEARTBEAT_MS: '200' } });
const { web } = stack;
t.teardown(() => stack.stop());

t.test('headers, retry, the first event, pings; leaving frees the subscription', async (t) => {
  const id = (await postScenario(web.baseUrl, DEFAULT_SCENARIO)).json.id as string;
  const { res, text, req } = await new Promise<{
    res: http.IncomingMessage;
    text: () => string;
    req: http.ClientRequest;
  }>((resolve, reject) => {
    const req = http.get(
      `${web.baseUrl}/api/scenarios/${id}/events`,
      { headers: { 'accept-encoding': 'gzip' } },
      (res) => {
        let body = '';
        res.setEncoding('utf8').on('data', (c: string) => {
          body += c;
        });
        resolve({ res, text: () => body, req });
      },
    );
    req.on('error', reject);
  });
  t.equal(res.statusCode, 200);
  t.match(res.headers['content-type'], /^text\/event-stream/);
  t.equal(res.headers['cache-control'], 'no-cache');
  t.equal(res.headers['x-accel-buffering'], 'no');
  t.equal(res.headers['content-encoding'], undefined, 'never compressed, even when gzip is accepted');
  await waitUntil(async () => text().includes(': ping'), { timeoutMs: 5000, what: 'a ping' });
  const body = text();
  t.ok(body.startsWith('retry: 3000\n\n'), 'opens with retry: 3000');
  t.match(body, /id: 1\nevent: queued\ndata: \{\}\n\n/, 'id, event and one-line data');
  const during = await getJson(`${web.baseUrl}/readyz`);
  t.same((during.json.sse as Record<string, unknown>).streams, 1);
  req.destroy();
  const after = await waitUntil(
    async () => {
      const r = await getJson(`${web.baseUrl}/readyz`);
      const sse = r.json.sse as { streams: number; channels: number };
      return sse.streams === 0 && sse.channels === 0 ? sse : null;
    },
    { timeoutMs: 5000, what: 'the subscription to be freed' },
  );
  t.same(after, { streams: 0, channels: 0, listening: true });
});
