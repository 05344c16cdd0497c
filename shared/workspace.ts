// A workspace as a type: every read and write a route makes on a client's behalf is scoped to the
// request's workspace, and a repository function that serves routes takes a `Workspace`, never a
// plain or optional string. A `Workspace` is made only where one is known to be the right one: the
// API key middleware (from the key, server/app.ts) and the worker (from a row it already claimed).
// test/house.rules.test.ts checks that no other file makes one, and that server/ and shared/ take
// no optional or plain-string workspace parameter.

declare const scoped: unique symbol;

/** A workspace's name, known to be the one a request or a claimed job belongs to. */
export type Workspace = string & { readonly [scoped]: true };

/** Marks a name as a workspace: only for the files test/house.rules.test.ts names. */
export const asWorkspace = (name: string): Workspace => name as Workspace;
