// The binary COPY reader (shared/pg.copy.ts) against a real Postgres: every byte value, NULLs,
// text that plain COPY would escape, rows split anywhere, big rows, pausing, errors.
import { randomBytes } from 'node:crypto';
import t from 'tap';
import { BinaryCopyParser, copyOut, copyRows, uuidLiteral } from '../shared/pg.copy.ts';
import { createTestDatabase } from './helpers/db.ts';

const db = await createTestDatabase();
t.teardown(() => db.drop());

t.test('bytea, text, NULL and integers come back byte for byte', async (t) => {
  const all = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
  const text = 'a\\b\tc\nd"e\'f — ☀️ \u{1F32C} \r end';
  const rows = await copyRows(
    db.pool,
    `SELECT decode('${all.toString('hex')}', 'hex'), ${pgText(text)}, NULL::text, 42::int::text, ''::text`,
  );
  t.equal(rows.length, 1);
  const [bytes, str, nul, n, empty] = rows[0];
  t.same(bytes, all, 'every byte value');
  t.equal(str?.toString('utf8'), text, 'backslashes, tabs, newlines and emoji are not escaped');
  t.equal(nul, null, 'NULL');
  t.equal(n?.toString(), '42');
  t.same(empty, Buffer.alloc(0), 'an empty string is not NULL');
});

t.test('many rows in order, and a 5 MB row', async (t) => {
  const rows = await copyRows(db.pool, 'SELECT n::text AS v FROM generate_series(1, 20000) AS s(n) ORDER BY s.n');
  t.equal(rows.length, 20000);
  t.ok(
    rows.every((r, i) => r[0]?.toString() === String(i + 1)),
    'every row, in order',
  );
  const big = await copyRows(db.pool, `SELECT decode(repeat('ab01', 5 * 1024 * 1024 / 2), 'hex')`);
  t.equal(big[0][0]?.length, 5 * 1024 * 1024);
  t.ok(big[0][0]?.every((b, i) => b === (i % 2 === 0 ? 0xab : 0x01)));
});

t.test('an empty result and a query error; the connection stays usable', async (t) => {
  t.same(await copyRows(db.pool, 'SELECT 1::text WHERE false'), []);
  await t.rejects(copyRows(db.pool, 'SELECT no_such_column'), /no_such_column/);
  await t.rejects(copyRows(db.pool, 'SELECT 1/0'), /division by zero/);
  const client = await db.pool.connect();
  try {
    await t.rejects(copyOut(client, 'SELECT nope', () => {}).done);
    const { rows } = await client.query('SELECT 7 AS n');
    t.equal(rows[0].n, 7, 'the same client answers the next query');
  } finally {
    client.release();
  }
});

t.test('settings hold for one COPY only: its statement timeout, read-only', async (t) => {
  const client = await db.pool.connect();
  try {
    const rows: string[] = [];
    const settings = { statementTimeoutMs: 5000, readOnly: true };
    await copyOut(client, `SELECT current_setting('statement_timeout')`, ([v]) => rows.push(`${v}`), settings).done;
    t.same(rows, ['5s'], 'the COPY ran under its own timeout');
    await t.rejects(copyOut(client, 'SELECT pg_sleep(2)::text', () => {}, { statementTimeoutMs: 100 }).done, {
      code: '57014',
    });
    await client.query('CREATE SEQUENCE copy_probe');
    await t.rejects(copyOut(client, `SELECT nextval('copy_probe')::text`, () => {}, { readOnly: true }).done, {
      code: '25006',
    });
    const after = await client.query<{ t: string; ro: string }>(
      `SELECT current_setting('statement_timeout') AS t, current_setting('transaction_read_only') AS ro`,
    );
    t.same(after.rows[0], { t: '0', ro: 'off' }, 'the connection keeps its own settings afterwards');
  } finally {
    client.release();
  }
});

t.test('pause holds the rows back until resume', async (t) => {
  const client = await db.pool.connect();
  try {
    let seen = 0;
    const run = copyOut(client, `SELECT repeat('x', 1000) FROM generate_series(1, 5000)`, () => {
      seen++;
      if (seen === 10) {
        run.pause();
        setTimeout(() => {
          t.ok(seen < 5000, `paused after ${seen} rows`);
          run.resume();
        }, 50);
      }
    });
    await run.done;
    t.equal(seen, 5000);
  } finally {
    client.release();
  }
});

t.test('the parser takes a stream split at any byte', async (t) => {
  const rows = [[Buffer.from('one')], [null], [Buffer.alloc(0)], [randomBytes(300)]];
  const stream = encode(rows);
  for (let size = 1; size <= 40; size++) {
    const got: Array<Array<Buffer | null>> = [];
    const parser = new BinaryCopyParser((fields) => got.push(fields.map((f) => (f ? Buffer.from(f) : null))));
    for (let i = 0; i < stream.length; i += size) parser.push(stream.subarray(i, i + size));
    parser.finish();
    t.same(got, rows, `chunks of ${size} bytes`);
  }
  const truncated = new BinaryCopyParser(() => {});
  truncated.push(stream.subarray(0, stream.length - 5));
  t.throws(() => truncated.finish(), /ended inside a row/);
  t.throws(() => new BinaryCopyParser(() => {}).push(Buffer.from('not a copy stream at all')), /not a binary COPY/);
});

t.test('uuidLiteral accepts only canonical uuids', async (t) => {
  t.equal(uuidLiteral('0190a6b2-7c1d-7e3f-8a4b-123456789abc'), "'0190a6b2-7c1d-7e3f-8a4b-123456789abc'::uuid");
  for (const bad of ["x'; DROP TABLE scenarios; --", '0190A6B2-7C1D-7E3F-8A4B-123456789ABC', '', '1234']) {
    t.throws(() => uuidLiteral(bad), /not a canonical uuid/);
  }
});

/** A text value as an SQL literal (standard_conforming_strings: only quotes are doubled). */
function pgText(s: string): string {
  return `'${s.replaceAll("'", "''")}'::text`;
}

/** The binary COPY format, written independently of the parser under test. */
function encode(rows: Array<Array<Buffer | null>>): Buffer {
  const parts: Buffer[] = [Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1'), Buffer.alloc(8)];
  for (const row of rows) {
    const count = Buffer.alloc(2);
    count.writeInt16BE(row.length);
    parts.push(count);
    for (const field of row) {
      const length = Buffer.alloc(4);
      length.writeInt32BE(field ? field.length : -1);
      parts.push(length);
      if (field) parts.push(field);
    }
  }
  parts.push(Buffer.from([0xff, 0xff]));
  return Buffer.concat(parts);
}
