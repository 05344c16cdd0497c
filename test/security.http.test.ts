// HTTP hardening: response headers, CORS off and on, the cap on concurrent event streams, and a
// slow-loris client (headers sent a byte at a time) cut off while a legitimate SSE stream older
// than the headers timeout stays open.
import { connect } from 'node:net';
import t from 'tap';
import { createTestDatabase } from './helpers/db.ts';
import { killAll } from './helpers/faults.ts';
import { DEFAULT_SCENARIO, postScenario } from './helpers/http.ts';
import { type Proc, startWeb } from './helpers/processes.ts';
import { waitUntil } from './helpers/wait.ts';

const db = await createTestDatabase();
const procs: Proc[] = [];
const cleanups: Array<() => void> = [];
t.teardown(async () => {
  for (const c of cleanups) c();
  await killAll(procs);
  await db.drop();
});

async function web(env: Record<string, string> = {}) {
  const w = await startWeb(db.url, env);
  procs.push(w);
  return w;
}

/** An open event stream read by hand: counts bytes and `: ping` comments as they arrive. */
async function openStream(url: string) {
  const controller = new AbortController();
  cleanups.push(() => controller.abort());
  const res = await fetch(url, { signal: controller.signal });
  const state = { status: res.status, pings: 0, text: '', ended: false, close: () => controller.abort() };
  if (res.body) {
    void (async () => {
      const decoder = new TextDecoder();
      try {
        for await (const chunk of res.body as AsyncIterable<Uint8Array>) {
          const s = decoder.decode(chunk, { stream: true });
          state.text += s;
          state.pings += s.split(': ping').length - 1;
        }
      } catch {
        // aborted by the test
      }
      state.ended = true;
    })();
  }
  return state;
}

t.test('headers: no X-Powered-By, nosniff everywhere', async (t) => {
  const w = await web();
  const id = (await postScenario(w.baseUrl, DEFAULT_SCENARIO)).json.id as string;
  const paths = ['/healthz', '/readyz', '/openapi.json', '/docs/', '/api/scenarios', `/api/scenarios/${id}`, '/nope'];
  for (const path of paths) {
    const res = await fetch(`${w.baseUrl}${path}`);
    t.equal(res.headers.get('x-powered-by'), null, `${path}: no X-Powered-By`);
    t.equal(res.headers.get('x-content-type-options'), 'nosniff', `${path}: nosniff`);
    await res.arrayBuffer();
  }
  const stream = await openStream(`${w.baseUrl}/api/scenarios/${id}/events`);
  t.equal(stream.status, 200);
  stream.close();
});

t.test('CORS: off by default, exact origins when listed, * when asked', async (t) => {
  const off = await web();
  const plain = await fetch(`${off.baseUrl}/api/scenarios`, { headers: { origin: 'https://app.example' } });
  t.equal(plain.headers.get('access-control-allow-origin'), null, 'off: no CORS headers');
  await plain.arrayBuffer();
  const preflightOff = await fetch(`${off.baseUrl}/api/scenarios`, {
    method: 'OPTIONS',
    headers: { origin: 'https://app.example', 'access-control-request-method': 'POST' },
  });
  t.equal(preflightOff.headers.get('access-control-allow-origin'), null, 'off: a preflight gets no CORS either');
  await preflightOff.arrayBuffer();

  const on = await web({ CORS_ORIGINS: 'https://app.example, https://admin.example', API_KEYS: 'cors-test-key' });
  const allowed = await fetch(`${on.baseUrl}/healthz`, { headers: { origin: 'https://admin.example' } });
  t.equal(allowed.headers.get('access-control-allow-origin'), 'https://admin.example', 'a listed origin');
  t.match(allowed.headers.get('vary'), /Origin/);
  t.match(allowed.headers.get('access-control-expose-headers'), /Location/);
  await allowed.arrayBuffer();
  const denied = await fetch(`${on.baseUrl}/healthz`, { headers: { origin: 'https://evil.example' } });
  t.equal(denied.headers.get('access-control-allow-origin'), null, 'an unlisted origin gets nothing');
  await denied.arrayBuffer();
  const preflight = await fetch(`${on.baseUrl}/api/scenarios`, {
    method: 'OPTIONS',
    headers: {
      origin: 'https://app.example',
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'authorization, content-type, idempotency-key',
    },
  });
  t.equal(preflight.status, 204, 'a preflight needs no key (browsers send none)');
  t.equal(preflight.headers.get('access-control-allow-origin'), 'https://app.example');
  t.match(preflight.headers.get('access-control-allow-methods'), /POST/);
  t.match(preflight.headers.get('access-control-allow-headers'), /Authorization.*Idempotency-Key/);
  const evilPreflight = await fetch(`${on.baseUrl}/api/scenarios`, {
    method: 'OPTIONS',
    headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' },
  });
  t.equal(evilPreflight.headers.get('access-control-allow-origin'), null);
  t.equal(evilPreflight.status, 401, 'an unlisted origin is not let past the key check');
  await evilPreflight.arrayBuffer();

  const any = await web({ CORS_ORIGINS: '*' });
  const star = await fetch(`${any.baseUrl}/healthz`, { headers: { origin: 'https://whoever.example' } });
  t.equal(star.headers.get('access-control-allow-origin'), '*');
  await star.arrayBuffer();
});

t.test('MAX_SSE_STREAMS: beyond the cap a 503 problem with Retry-After; a freed slot is reused', async (t) => {
  const w = await web({ MAX_SSE_STREAMS: '3' });
  const id = (await postScenario(w.baseUrl, DEFAULT_SCENARIO)).json.id as string;
  const url = `${w.baseUrl}/api/scenarios/${id}/events`;
  const open = [await openStream(url), await openStream(url), await openStream(url)];
  t.same(
    open.map((s) => s.status),
    [200, 200, 200],
    'three streams open',
  );
  const over = await fetch(url);
  t.equal(over.status, 503, 'the fourth is refused');
  t.ok(Number(over.headers.get('retry-after')) > 0, 'with Retry-After');
  t.match(over.headers.get('content-type'), /^application\/problem\+json/);
  await over.arrayBuffer();
  const other = await fetch(`${w.baseUrl}/api/scenarios/${id}`);
  t.equal(other.status, 200, 'the rest of the API is unaffected');
  await other.arrayBuffer();

  open[0].close();
  const reopened = await waitUntil(
    async () => {
      const s = await openStream(url);
      if (s.status === 200) return s;
      s.close();
      return null;
    },
    { timeoutMs: 10_000, what: 'a freed slot' },
  );
  t.equal(reopened.status, 200, 'after one closes, a new stream is accepted');
});

t.test('slow loris: headers sent too slowly are cut off; an SSE stream older than that stays open', async (t) => {
  const w = await web({ HEADERS_TIMEOUT_MS: '1000', SSE_HEARTBEAT_MS: '200' });
  const id = (await postScenario(w.baseUrl, DEFAULT_SCENARIO)).json.id as string;
  const stream = await openStream(`${w.baseUrl}/api/scenarios/${id}/events`);
  t.equal(stream.status, 200);

  const socket = connect(w.port, '127.0.0.1');
  cleanups.push(() => socket.destroy());
  let answer = '';
  socket.setEncoding('utf8').on('data', (d: string) => {
    answer += d;
  });
  const closed = new Promise<number>((resolve) => socket.on('close', () => resolve(Date.now())));
  socket.on('error', () => {});
  const started = Date.now();
  socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n');
  // One more header line every 100 ms, forever: the request never completes.
  const drip = setInterval(() => socket.writable && socket.write(`X-Drip-${Date.now()}: 1\r\n`), 100);
  cleanups.push(() => clearInterval(drip));
  const cutAfter = (await closed) - started;
  clearInterval(drip);
  t.ok(cutAfter >= 1000 && cutAfter < 4000, `the slow client was cut off after ${cutAfter} ms (timeout 1 s)`);
  t.match(answer, /^HTTP\/1\.1 408|^$/, 'with a 408 or a bare close');

  // The stream was opened before the slow client and is now well past the headers timeout.
  const pingsBefore = stream.pings;
  await waitUntil(async () => stream.pings >= pingsBefore + 3, {
    timeoutMs: 5_000,
    what: 'more pings on the old stream',
  });
  t.notOk(stream.ended, 'the legitimate stream is still open');
  t.ok(Date.now() - started > 1500, 'and older than the headers timeout');
  t.match(stream.text, /^retry: 3000\n\nid: 1\nevent: queued\n/, 'it delivered its events');
  stream.close();
});
