// The library's rows (sql/0012): files and hourly series of a workspace, stored once by their
// SHA-256, and the count of their users. Every function takes the workspace: another workspace's
// resource is answered exactly as one that does not exist.
import { sql } from 'kysely';
import type { Db } from './db.ts';
import { uuidv7 } from './ids.ts';
import { readResourceFile, readResourceSeries } from './resources.read.ts';
import { unscoped, type WorkspaceDb } from './workspace.ts';

export type ResourceKind = 'weather' | 'wind_resource' | 'hourly_series';

/** A resource as the library describes it, without its bytes. */
export interface ResourceRow {
  id: string;
  name: string;
  kind: ResourceKind;
  format: string;
  sha256: string;
  bytes: number;
  metadata: Record<string, unknown>;
  created_at: Date;
  used_by: { scenarios: number; sweeps: number; optimizations: number };
}

/** What an upload stores: the parsed file's description and its bytes. */
export interface NewResource {
  name: string;
  kind: ResourceKind;
  format: string;
  sha256: string;
  content: Buffer;
  metadata: Record<string, unknown>;
}

const COLUMNS = ['id', 'name', 'kind', 'format', 'sha256', 'bytes', 'metadata', 'created_at'] as const;

/** Counts by user kind of the resources given, in one query. */
async function usesOf(db: Db, ids: readonly string[]): Promise<Map<string, ResourceRow['used_by']>> {
  const out = new Map<string, ResourceRow['used_by']>();
  if (ids.length === 0) return out;
  const rows = await db
    .selectFrom('resource_uses')
    .select([
      'resource_id',
      sql<number>`count(scenario_id)::int`.as('scenarios'),
      sql<number>`count(sweep_id)::int`.as('sweeps'),
      sql<number>`count(optimization_id)::int`.as('optimizations'),
    ])
    .where('resource_id', 'in', ids)
    .groupBy('resource_id')
    .execute();
  for (const r of rows)
    out.set(r.resource_id, { scenarios: r.scenarios, sweeps: r.sweeps, optimizations: r.optimizations });
  return out;
}

const NO_USERS = { scenarios: 0, sweeps: 0, optimizations: 0 };

/**
 * Whether a row's metadata is of an earlier shape than resources.read.ts writes today: a wind rose
 * stored as 12 numbers (before the 16 sectors × speed bins), a series without its peak week.
 */
function staleMetadata(kind: string, metadata: Record<string, unknown>): boolean {
  const stats = (metadata.statistics ?? {}) as Record<string, unknown>;
  if (kind === 'wind_resource') return Array.isArray(stats.wind_rose);
  if (kind === 'hourly_series') return stats.peak_week === undefined;
  return false;
}

/**
 * Rows read with metadata of an earlier shape are described again from their bytes, once: the
 * new metadata is written back, so the next read finds it current.
 */
async function withCurrentMetadata<R extends { id: string; kind: string; metadata: Record<string, unknown> }>(
  db: Db,
  rows: R[],
): Promise<R[]> {
  const stale = rows.filter((r) => staleMetadata(r.kind, r.metadata));
  if (stale.length === 0) return rows;
  const fresh = new Map<string, Record<string, unknown>>();
  for (const r of stale) {
    const { content } = await db
      .selectFrom('resources')
      .select('content')
      .where('id', '=', r.id)
      .executeTakeFirstOrThrow();
    const metadata =
      r.kind === 'hourly_series'
        ? readResourceSeries(JSON.parse(content.toString('utf8')) as number[]).metadata
        : readResourceFile(content).metadata;
    await db
      .updateTable('resources')
      .set({ metadata: JSON.stringify(metadata) })
      .where('id', '=', r.id)
      .execute();
    fresh.set(r.id, metadata);
  }
  return rows.map((r) => (fresh.has(r.id) ? { ...r, metadata: fresh.get(r.id) as Record<string, unknown> } : r));
}

/**
 * Stores a resource in the workspace unless the same bytes are there already: `created` says
 * which, and the row is the one stored (the first name given to those bytes stays).
 */
export async function storeResource(
  ws: WorkspaceDb,
  r: NewResource,
  id: string = uuidv7(),
): Promise<{ created: boolean; row: ResourceRow }> {
  const db = unscoped(ws);
  const workspace = ws.workspace;
  const inserted = await db
    .insertInto('resources')
    .values({
      id,
      workspace,
      name: r.name,
      kind: r.kind,
      format: r.format,
      sha256: r.sha256,
      bytes: r.content.length,
      content: r.content,
      metadata: JSON.stringify(r.metadata),
    })
    .onConflict((oc) => oc.columns(['workspace', 'sha256']).doNothing())
    .returning('id')
    .executeTakeFirst();
  const existing = await db
    .selectFrom('resources')
    .select('id')
    .where('workspace', '=', workspace)
    .where('sha256', '=', r.sha256)
    .executeTakeFirstOrThrow();
  const row = await findResource(ws, existing.id);
  if (!row) throw new Error(`resource ${existing.id} vanished after its insert`);
  return { created: inserted !== undefined, row };
}

/** The workspace's resource, or null (unknown, or another workspace's). */
export async function findResource(ws: WorkspaceDb, id: string): Promise<ResourceRow | null> {
  const db = unscoped(ws);
  const workspace = ws.workspace;
  const row = await db
    .selectFrom('resources')
    .select(COLUMNS)
    .where('workspace', '=', workspace)
    .where('id', '=', id)
    .executeTakeFirst();
  if (!row) return null;
  const [current] = await withCurrentMetadata(db, [row]);
  const uses = await usesOf(db, [row.id]);
  return { ...current, used_by: uses.get(row.id) ?? NO_USERS };
}

/** The bytes as uploaded, or null. */
export async function resourceContent(
  ws: WorkspaceDb,
  id: string,
): Promise<{ content: Buffer; kind: ResourceKind; format: string; name: string } | null> {
  const db = unscoped(ws);
  const workspace = ws.workspace;
  const row = await db
    .selectFrom('resources')
    .select(['content', 'kind', 'format', 'name'])
    .where('workspace', '=', workspace)
    .where('id', '=', id)
    .executeTakeFirst();
  return row ?? null;
}

/** A page of the workspace's resources, newest first, after the cursor id when one is given. */
export async function listResources(ws: WorkspaceDb, page: { limit: number; after?: string }): Promise<ResourceRow[]> {
  const db = unscoped(ws);
  const workspace = ws.workspace;
  let q = db.selectFrom('resources').select(COLUMNS).where('workspace', '=', workspace);
  if (page.after) q = q.where('id', '<', page.after);
  const rows = await withCurrentMetadata(db, await q.orderBy('id', 'desc').limit(page.limit).execute());
  const uses = await usesOf(
    db,
    rows.map((r) => r.id),
  );
  return rows.map((r) => ({ ...r, used_by: uses.get(r.id) ?? NO_USERS }));
}

/** One user of a resource: the scenario, sweep or optimization whose inputs reference it. */
export interface NamedUser {
  kind: 'scenario' | 'sweep' | 'optimization';
  id: string;
}

/** How many users a refused DELETE names (the count is always whole). */
const USERS_NAMED = 10;

export type ResourceDelete = { deleted: true } | { deleted: false; users: number; named: NamedUser[] } | null;

/**
 * Deletes the workspace's resource unless something uses it (`users` then says how many); null
 * when there is no such resource. The row lock keeps a new use from slipping in between the count
 * and the delete; the foreign key (RESTRICT) refuses it in any case.
 */
export async function deleteResource(ws: WorkspaceDb, id: string): Promise<ResourceDelete> {
  const db = unscoped(ws);
  const workspace = ws.workspace;
  return db.transaction().execute(async (trx) => {
    const row = await trx
      .selectFrom('resources')
      .select('id')
      .where('workspace', '=', workspace)
      .where('id', '=', id)
      .forUpdate()
      .executeTakeFirst();
    if (!row) return null;
    const uses = await trx
      .selectFrom('resource_uses')
      .select(['scenario_id', 'sweep_id', 'optimization_id', sql<number>`count(*) OVER ()::int`.as('users')])
      .where('resource_id', '=', id)
      .orderBy(sql`coalesce(scenario_id, sweep_id, optimization_id)`)
      .limit(USERS_NAMED)
      .execute();
    if (uses.length > 0) {
      const named = uses.map(
        (u): NamedUser =>
          u.scenario_id
            ? { kind: 'scenario', id: u.scenario_id }
            : u.sweep_id
              ? { kind: 'sweep', id: u.sweep_id }
              : { kind: 'optimization', id: u.optimization_id as string },
      );
      return { deleted: false, users: uses[0].users, named };
    }
    await trx.deleteFrom('resources').where('id', '=', id).execute();
    return { deleted: true };
  });
}

/** The workspace's resources with these SHA-256s: id by digest. */
export async function idsBySha256(ws: WorkspaceDb, digests: readonly string[]): Promise<Map<string, string>> {
  if (digests.length === 0) return new Map();
  const rows = await unscoped(ws)
    .selectFrom('resources')
    .select(['id', 'sha256'])
    .where('workspace', '=', ws.workspace)
    .where('sha256', 'in', digests)
    .execute();
  return new Map(rows.map((r) => [r.sha256, r.id]));
}

/** The workspace's resources of these ids with their bytes; another workspace's are not among them. */
export async function resourcesWithContent(
  ws: WorkspaceDb,
  ids: readonly string[],
): Promise<Array<{ id: string; name: string; kind: ResourceKind; format: string; content: Buffer }>> {
  if (ids.length === 0) return [];
  return unscoped(ws)
    .selectFrom('resources')
    .select(['id', 'name', 'kind', 'format', 'content'])
    .where('workspace', '=', ws.workspace)
    .where('id', 'in', ids)
    .execute();
}

export type ResourceUser = { scenario_id: string } | { sweep_id: string } | { optimization_id: string };

/** The rows that say a scenario, sweep or optimization uses these resources (run in its create's transaction). */
export const insertResourceUses = (db: Db, ids: readonly string[], user: ResourceUser) =>
  db
    .insertInto('resource_uses')
    .values(ids.map((resource_id) => ({ resource_id, ...user })))
    .onConflict((oc) => oc.doNothing())
    .compile();
