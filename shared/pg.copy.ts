// `COPY (query) TO STDOUT (FORMAT binary)` on a node-pg client, without pg-copy-streams.
//
// Why: node-pg receives a bytea column as hex text twice its size and decodes it, and every text
// column becomes a JavaScript string. A binary COPY hands over each field's raw bytes, so a stored
// gzip result reaches the socket as it is stored, and a 100,000-row list is copied into a few
// reused-size buffers instead of 100,000 strings.
//
// The query is run as a node-pg "submittable" (the interface pg-cursor uses): node-pg queues it,
// calls submit(), then forwards the protocol messages of this query to it. COPY stays raw SQL on a
// raw connection: kysely (like node-pg's query()) has no COPY protocol and no binary results.
import type pg from 'pg';
import { type PgConnection, submit } from './pg.internals.ts';

const SIGNATURE = Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1');
/** Signature, flags (int32), header extension length (int32). */
const HEADER_BYTES = SIGNATURE.length + 8;

/** One row's fields; a field is null for SQL NULL. The buffers are views valid only during the call. */
export type RowHandler = (fields: Array<Buffer | null>) => void;

/** Incremental parser of the binary COPY format; CopyData messages may split rows anywhere. */
export class BinaryCopyParser {
  #pending: Buffer | null = null;
  #headerDone = false;
  #ended = false;
  readonly #onRow: RowHandler;

  constructor(onRow: RowHandler) {
    this.#onRow = onRow;
  }

  push(chunk: Buffer): void {
    let buf = this.#pending ? Buffer.concat([this.#pending, chunk]) : chunk;
    this.#pending = null;
    let offset = 0;
    if (!this.#headerDone) {
      if (buf.length < HEADER_BYTES) {
        this.#pending = Buffer.from(buf);
        return;
      }
      if (!buf.subarray(0, SIGNATURE.length).equals(SIGNATURE)) throw new Error('COPY: not a binary COPY stream');
      const extension = buf.readUInt32BE(SIGNATURE.length + 4);
      if (buf.length < HEADER_BYTES + extension) {
        this.#pending = Buffer.from(buf);
        return;
      }
      offset = HEADER_BYTES + extension;
      this.#headerDone = true;
    }
    const fields: Array<Buffer | null> = [];
    while (!this.#ended && offset + 2 <= buf.length) {
      const count = buf.readInt16BE(offset);
      if (count === -1) {
        this.#ended = true;
        offset += 2;
        break;
      }
      // Walk the row first: only a complete row is handed over.
      let at = offset + 2;
      fields.length = 0;
      for (let i = 0; i < count; i++) {
        if (at + 4 > buf.length) break;
        const length = buf.readInt32BE(at);
        at += 4;
        if (length === -1) {
          fields.push(null);
          continue;
        }
        if (at + length > buf.length) break;
        fields.push(buf.subarray(at, at + length));
        at += length;
      }
      if (fields.length < count) break;
      this.#onRow(fields);
      offset = at;
    }
    if (offset < buf.length) {
      if (this.#ended) throw new Error('COPY: data after the trailer');
      // Keep our own copy: node-pg reuses the buffer a message was parsed from.
      buf = buf.subarray(offset);
      this.#pending = Buffer.from(buf);
    }
  }

  finish(): void {
    if (this.#pending || !this.#ended) throw new Error('COPY: the stream ended inside a row');
  }
}

/** A node-pg submittable for one binary COPY TO STDOUT. */
class CopyOut {
  readonly text: string;
  /** node-pg's client-side read timeout for this query, when set. */
  query_timeout?: number;
  callback?: (err: Error | null) => void;
  #parser: BinaryCopyParser;
  #connection: PgConnection | null = null;
  #failed: Error | null = null;
  #done = false;

  constructor(query: string, onRow: RowHandler, settings: CopySettings) {
    // SET LOCAL and SET TRANSACTION in the same simple-protocol message: the statements of one
    // message are one implicit transaction, so the settings hold for this COPY only, with no
    // BEGIN/COMMIT round trips around it.
    const set = [
      settings.statementTimeoutMs !== undefined
        ? `SET LOCAL statement_timeout = ${Math.round(settings.statementTimeoutMs)}; `
        : '',
      settings.readOnly ? 'SET TRANSACTION READ ONLY; ' : '',
    ].join('');
    this.text = `${set}COPY (${query}) TO STDOUT (FORMAT binary)`;
    this.#parser = new BinaryCopyParser(onRow);
  }

  submit(connection: PgConnection): void {
    this.#connection = connection;
    connection.query(this.text);
  }

  /** Stops reading from the server until resume(): the server then waits on its socket. */
  pause(): void {
    this.#connection?.stream.pause();
  }

  resume(): void {
    this.#connection?.stream.resume();
  }

  handleCopyData(msg: { chunk: Buffer }): void {
    if (this.#failed) return;
    try {
      this.#parser.push(msg.chunk);
    } catch (err) {
      // The rest of the stream is read and dropped; the error is reported at ReadyForQuery.
      this.#failed = err as Error;
    }
  }

  handleCommandComplete(msg: { text?: string }): void {
    // The settings' own completions (SET) come before the COPY's.
    if (this.#failed || msg.text === 'SET') return;
    try {
      this.#parser.finish();
    } catch (err) {
      this.#failed = err as Error;
    }
  }

  handleReadyForQuery(): void {
    this.#end(this.#failed);
  }

  handleError(err: Error): void {
    this.resume();
    this.#end(err);
  }

  // COPY TO never sends these; present because node-pg may call them on any active query.
  handleRowDescription(): void {}
  handleDataRow(): void {}
  handleEmptyQuery(): void {}
  handlePortalSuspended(): void {}
  handleCopyInResponse(): void {}

  #end(err: Error | null): void {
    if (this.#done) return;
    this.#done = true;
    this.callback?.(err);
  }
}

/** What a COPY runs under, instead of the connection's settings. */
export interface CopySettings {
  /** This COPY's statement_timeout (a COPY paused for a slow client is still running). */
  statementTimeoutMs?: number;
  /** Run it in a read-only transaction. */
  readOnly?: boolean;
}

export interface CopyRun {
  /** Settles when the server finished the COPY (or failed it). */
  done: Promise<void>;
  pause(): void;
  resume(): void;
}

/**
 * Runs `COPY (query) TO STDOUT (FORMAT binary)` on `client`, calling onRow per row as bytes arrive.
 * COPY takes no bind parameters: `query` must carry its values as literals (see uuidLiteral).
 */
export function copyOut(
  client: pg.ClientBase,
  query: string,
  onRow: RowHandler,
  options: { timeoutMs?: number } & CopySettings = {},
): CopyRun {
  const copy = new CopyOut(query, onRow, options);
  if (options.timeoutMs) copy.query_timeout = options.timeoutMs;
  const done = new Promise<void>((resolve, reject) => {
    copy.callback = (err) => (err ? reject(err) : resolve());
  });
  submit(client, copy);
  return { done, pause: () => copy.pause(), resume: () => copy.resume() };
}

const UUID_LITERAL = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** A uuid as an SQL literal; refuses anything that is not a canonical lower-case UUID. */
export function uuidLiteral(id: string): string {
  if (!UUID_LITERAL.test(id)) throw new Error(`not a canonical uuid: ${JSON.stringify(id)}`);
  return `'${id}'::uuid`;
}

/** Runs a binary COPY on a pooled connection and returns every row (copied out of node-pg's buffers). */
export async function copyRows(pool: pg.Pool, query: string): Promise<Array<Array<Buffer | null>>> {
  const client = await pool.connect();
  const rows: Array<Array<Buffer | null>> = [];
  try {
    await copyOut(client, query, (fields) => {
      rows.push(fields.map((f) => (f ? Buffer.from(f) : null)));
    }).done;
  } finally {
    client.release();
  }
  return rows;
}
