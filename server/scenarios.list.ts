// GET /api/scenarios: every scenario streamed (no `limit`), or one page of them (`limit`, `cursor`),
// newest first, with the filters `status`, `sweep_id` and `q`. Both read the same list items
// (scenario_list_json, sql/0011) in the same order, the id's: ids are UUIDv7, so newest first;
// the list query itself is server/scenarios.repository.ts's.
//
// Pages are keyset pages on the id. The cursor is the last id sent, so a page starts strictly after
// it whatever was created or finished meanwhile: new scenarios sort before the first page and are
// never met, and no row moves across a cursor, so pages neither skip nor repeat a row.
import type { Response } from 'express';
import type { CopyRun } from '../shared/pg.copy.ts';
import type { WorkspaceDb } from '../shared/workspace.ts';
import { keysetPage } from './route.common.ts';
import { copyListItems, type ListQuery, listPage } from './scenarios.repository.ts';

export type { ListQuery };

/** Bytes per write of the list. */
const LIST_CHUNK = 64 * 1024;
/** Bytes the list may queue for a slow client before the COPY is paused. */
const LIST_BUFFER_LIMIT = 1024 * 1024;
/** The longest a list may take, for clients that read slowly. */
const LIST_TIMEOUT_MS = 5 * 60 * 1000;
export const MAX_PAGE = 1000;

/** One page: `{items, next_cursor}`, and a `Link: <…>; rel="next"` header when there is more. */
export async function sendPage(
  ws: WorkspaceDb,
  res: Response,
  query: ListQuery & { limit: number },
  filters: { status?: string; sweep_id?: string; q?: string },
): Promise<void> {
  const rows = await listPage(ws, query);
  const { page, next } = keysetPage(res, rows, {
    path: '/api/scenarios',
    limit: query.limit,
    params: { status: filters.status, sweep_id: filters.sweep_id, q: filters.q },
  });
  res
    .status(200)
    .type('application/json')
    .send(`{"items":[${page.map((r) => r.item).join(',')}],"next_cursor":${next ? JSON.stringify(next) : 'null'}}`);
}

/**
 * Streams every matching scenario, newest first, from one binary COPY (one snapshot): row bytes are
 * copied into 64 kB chunks and written as they come, and the COPY pauses while the client is behind,
 * so memory stays flat whatever the number of scenarios.
 */
export async function streamAll(ws: WorkspaceDb, res: Response, query: ListQuery): Promise<void> {
  // Chunks are reused once the socket has taken them, so a list allocates a bounded few.
  const spare: Buffer[] = [];
  const take = () => spare.pop() ?? Buffer.allocUnsafe(LIST_CHUNK);
  let chunk = take();
  chunk.write('{"items":[');
  let used = 10;
  let total = 0;
  let dropped = false;
  let copy: CopyRun | null = null;
  const flush = () => {
    if (used === 0 || dropped) return;
    const written = chunk;
    res.write(written.subarray(0, used), () => {
      if (written.length === LIST_CHUNK) spare.push(written);
    });
    chunk = take();
    used = 0;
    // Pausing at every full 16 kB socket buffer would stall Postgres on each chunk: allow a little more.
    if (res.writableLength >= LIST_BUFFER_LIMIT) {
      copy?.pause();
      res.once('drain', () => copy?.resume());
    }
  };
  // A client that went away: read the rest of the COPY and drop it (the connection stays usable).
  res.once('close', () => {
    if (!res.writableFinished) {
      dropped = true;
      copy?.resume();
    }
  });
  const onItem = ([json]: Array<Buffer | null>) => {
    if (dropped || !json) return;
    const need = json.length + 1;
    if (used + need > chunk.length) flush();
    if (need > chunk.length) chunk = Buffer.allocUnsafe(need);
    if (total++ > 0) chunk[used++] = 0x2c; // ','
    used += json.copy(chunk, used);
  };
  try {
    // A slow client holds the COPY open: it gets LIST_TIMEOUT_MS, not the pool's statement timeout.
    await copyListItems(
      ws,
      query,
      LIST_TIMEOUT_MS,
      (started) => {
        copy = started;
        res.status(200).type('application/json');
      },
      onItem,
    );
  } catch (err) {
    // Once the body has started, a failure can only cut the response short.
    if (res.headersSent) res.destroy(err as Error);
    else throw err;
    return;
  }
  if (dropped) return;
  flush();
  res.end(`],"total":${total}}`);
}
