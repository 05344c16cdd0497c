// Every use of node-pg's undocumented internals, in one place, each behind a name that says what it
// is for. They hold for the pinned `pg` version (package.json); test/pg.internals.test.ts fails
// if an upgrade moves any of them.
import type { Socket } from 'node:net';
import type pg from 'pg';

/** What node-pg hands a submittable's submit(): its protocol writer and the socket under it. */
export interface PgConnection {
  /** Sends a simple-protocol Query message. */
  query(text: string): void;
  stream: Socket;
}

/** A query object node-pg drives message by message (the protocol pg-cursor uses). */
interface Submittable {
  submit(connection: PgConnection): void;
}

type ClientInternals = { _activeQuery?: unknown; connection: PgConnection; query(q: Submittable): void };

const internals = (client: pg.ClientBase) => client as unknown as ClientInternals;

/** Is a query still in flight on this client (sent, its ReadyForQuery not yet received)? */
export function hasQueryInFlight(client: pg.ClientBase): boolean {
  return Boolean(internals(client)._activeQuery);
}

/** The client's socket, to cork several queries into one write. */
export function socketOf(client: pg.ClientBase): Socket {
  return internals(client).connection.stream;
}

/** Queues a submittable on the client; node-pg calls its submit() and handle*() methods. */
export function submit(client: pg.ClientBase, query: Submittable): void {
  internals(client).query(query);
}
