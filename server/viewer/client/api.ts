// The API, from the browser: fetch with the API key (asked for once when the server wants one,
// kept in sessionStorage, sent as a header and never put in a URL), JSON helpers, and server-sent
// events read from a fetch stream (EventSource cannot send the key) with Last-Event-ID resume.
import { h } from './dom.ts';

const KEY = 'hourglass.apiKey';

export interface Problem {
  status: number;
  title?: string;
  detail?: string;
  errors?: Array<{ path: string; message: string }>;
  [k: string]: unknown;
}

function headers(extra: Record<string, string> = {}): Record<string, string> {
  const key = sessionStorage.getItem(KEY);
  return key ? { ...extra, authorization: `Bearer ${key}` } : extra;
}

let asking: Promise<void> | null = null;

/** A dialog that asks for the API key once; resolves when one is entered. */
function askKey(): Promise<void> {
  asking ??= new Promise<void>((resolve) => {
    const input = h('input', { type: 'password', id: 'api-key', autocomplete: 'off', required: true });
    const form = h(
      'form',
      { class: 'card key', 'data-testid': 'api-key-form' },
      h('h2', {}, 'API key'),
      h('p', {}, 'This server needs an API key. It is kept for this browser tab only.'),
      h('label', { for: 'api-key' }, 'Key'),
      input,
      h('button', { type: 'submit' }, 'Use this key'),
    );
    const dialog = h('dialog', { 'aria-label': 'API key' }, form);
    form.addEventListener('submit', (e) => {
      e.preventDefault();
      sessionStorage.setItem(KEY, input.value.trim());
      dialog.close();
      dialog.remove();
      asking = null;
      resolve();
    });
    document.body.append(dialog);
    dialog.showModal();
    input.focus();
  });
  return asking;
}

/** fetch on this origin with the key; a 401 asks for a key (again) and retries. */
async function request(path: string, init: RequestInit = {}): Promise<Response> {
  for (;;) {
    const res = await fetch(path, { ...init, headers: headers((init.headers as Record<string, string>) ?? {}) });
    if (res.status !== 401) return res;
    sessionStorage.removeItem(KEY);
    await askKey();
  }
}

export async function getJson<T>(path: string): Promise<{ status: number; json: T }> {
  const res = await request(path, { headers: { accept: 'application/json' } });
  return { status: res.status, json: (await res.json()) as T };
}

/** A page's resource, read first: the resource (the tab titled with its name), or null once the page says it was not found. */
export async function pageResource<T extends { name: string }>(
  m: HTMLElement,
  noun: 'scenario' | 'sweep' | 'optimization',
  id: string,
): Promise<T | null> {
  const { status, json } = await getJson<T>(`/api/${noun}s/${id}`);
  if (status !== 200) {
    const title = `${noun[0].toUpperCase()}${noun.slice(1)} not found`;
    m.replaceChildren(h('h1', {}, title), h('p', {}, `No ${noun} has the id ${id}.`));
    return null;
  }
  document.title = `${json.name} · Hourglass`;
  return json;
}

export async function postJson<T>(path: string, body: unknown): Promise<{ status: number; json: T | Problem }> {
  const res = await request(path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : {} };
}

/** A request with a body of any type (a file as text) or none (a DELETE): its status and JSON answer, if any. */
export async function send<T>(
  method: 'POST' | 'DELETE',
  path: string,
  body?: { type: string; text: string },
): Promise<{ status: number; json: T | Problem }> {
  const res = await request(path, {
    method,
    headers: { accept: 'application/json', ...(body ? { 'content-type': body.type } : {}) },
    body: body?.text,
  });
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : {} };
}

/** A download of an API resource through fetch (so the key stays in a header). */
export async function download(path: string, filename: string): Promise<void> {
  const res = await request(path);
  const url = URL.createObjectURL(await res.blob());
  const a = h('a', { href: url, download: filename });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

interface StreamEvent {
  id: number | null;
  event: string;
  data: unknown;
}

interface FollowOptions {
  /** Aborted when the page is left: the stream stops. */
  stop: AbortSignal;
  /** Told when the connection opens and when it is lost (a reconnect follows). */
  onConnection?: (state: 'open' | 'lost') => void;
}

/**
 * Follows an event stream until `stop` is aborted or `onEvent` returns true (done). A dropped
 * connection is resumed from the last event id after a short wait, as EventSource would.
 */
export async function follow(
  path: string,
  onEvent: (e: StreamEvent) => boolean | undefined,
  { stop, onConnection }: FollowOptions,
): Promise<void> {
  let lastId: number | null = null;
  let delay = 500;
  while (!stop.aborted) {
    try {
      const extra: Record<string, string> = { accept: 'text/event-stream' };
      if (lastId !== null) extra['last-event-id'] = String(lastId);
      const res = await request(path, { headers: extra, signal: stop });
      // 204: finished, and nothing after the last event seen.
      if (res.status === 204) return;
      if (!res.ok || !res.body) throw new Error(`stream ${res.status}`);
      onConnection?.('open');
      delay = 500;
      const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
      let buffer = '';
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += value;
        let end = buffer.indexOf('\n\n');
        while (end >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          end = buffer.indexOf('\n\n');
          let event = 'message';
          let data = '';
          let id: number | null = null;
          for (const line of block.split('\n')) {
            if (line.startsWith('event:')) event = line.slice(6).trim();
            else if (line.startsWith('data:')) data += line.slice(5).trim();
            else if (line.startsWith('id:')) id = Number(line.slice(3).trim());
          }
          if (!data) continue;
          if (id !== null) lastId = id;
          if (onEvent({ id, event, data: JSON.parse(data) })) {
            await reader.cancel().catch(() => {});
            return;
          }
        }
      }
    } catch {
      if (stop.aborted) return;
    }
    onConnection?.('lost');
    await new Promise((r) => setTimeout(r, delay));
    delay = Math.min(delay * 2, 5000);
  }
}
