// The live pages' shared parts: a status badge, and following a parent's event stream (a sweep's,
// an optimization's) by re-reading the resource as its events arrive, at most every REFRESH_MS.
// Pages import this, never each other.
import { follow } from './api.ts';
import { h } from './dom.ts';

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
