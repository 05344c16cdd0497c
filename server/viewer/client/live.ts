// The live pages' shared parts: a status badge, and following a parent's event stream (a sweep's,
// an optimization's) by re-reading the resource as its events arrive, at most every REFRESH_MS.
// Pages import this, never each other.
import { follow, getJson, pageResource } from './api.ts';
import { h, main } from './dom.ts';

/** Variants can finish hundreds a second: a page re-reads at most this often while they do. */
const REFRESH_MS = 300;

/** A status as a coloured badge. */
export function statusBadge(status: string, testid = 'status'): HTMLElement {
  return h('span', { class: `badge ${status}`, 'data-testid': testid }, status);
}

/** `task` run at most once at a time; a call while it runs asks for one more run after it. */
export function oneAtATime(task: () => Promise<void>): () => Promise<void> {
  let running: Promise<void> | null = null;
  let again = false;
  return () => {
    if (running) {
      again = true;
      return running;
    }
    running = (async () => {
      do {
        again = false;
        await task();
      } while (again);
    })().finally(() => {
      running = null;
    });
    return running;
  };
}

/** Refreshes on a stream's `ticks` events (at most every REFRESH_MS), and once more when it finishes. */
export function followRefreshing(
  path: string,
  ticks: ReadonlySet<string>,
  refresh: () => Promise<void>,
  stop: AbortSignal,
): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | null = null;
  return follow(
    path,
    (e) => {
      if (ticks.has(e.event) && timer === null) {
        timer = setTimeout(() => {
          timer = null;
          void refresh();
        }, REFRESH_MS);
      }
      if (e.event === 'finished') {
        void refresh();
        return true;
      }
      return false;
    },
    { stop },
  );
}

/**
 * A parent's live page (a sweep's, an optimization's): its resource read (or the page's own 404),
 * laid out by `mount`, then read again with its table (`stream.table`, whose rows are under
 * `stream.rows`) and drawn on every tick of its event stream until it finishes.
 */
export async function liveParentPage<Item extends { name: string; finished_at: string | null }, Row>(
  kind: 'sweep' | 'optimization',
  id: string,
  stop: AbortSignal,
  stream: { table: string; rows: string; ticks: readonly string[] },
  mount: (m: HTMLElement, first: Item) => (item: Item, rows: Row[]) => void,
): Promise<void> {
  const m = main();
  const first = await pageResource<Item>(m, kind, id);
  if (!first) return;
  let item = first;
  const draw = mount(m, first);
  const path = `/api/${kind}s/${id}`;
  const refresh = oneAtATime(async () => {
    const [s, t] = await Promise.all([getJson<Item>(path), getJson<Record<string, Row[]>>(`${path}/${stream.table}`)]);
    item = s.json;
    draw(item, t.json[stream.rows]);
  });
  await refresh();
  if (item.finished_at) return;
  await followRefreshing(`${path}/events`, new Set(stream.ticks), refresh, stop);
}
