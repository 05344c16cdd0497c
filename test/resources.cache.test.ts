// The worker's library caches: a resource is read from the database once per process (the same
// SharedArrayBuffer for every variant, any workspace's row by id), evicted by bytes past its bound
// and read again; an engine thread decodes a resource once (the same text object, which the
// engine's parse memo finds); a reference replaced by what it holds gives the inline inputs.
import { readFileSync } from 'node:fs';
import t from 'tap';
import { openDb } from '../shared/db.ts';
import { uuidv7 } from '../shared/ids.ts';
import { readResourceFile } from '../shared/resources.read.ts';
import { withContents } from '../shared/resources.refs.ts';
import type { StoredInputs } from '../shared/schemas/inputs.ts';
import { ResourceStore } from '../worker/resources.store.ts';
import { DecodedResources } from '../worker/resources.thread.ts';
import { resolvedInputs } from './fixtures/inputs.ts';
import { createTestDatabase } from './helpers/db.ts';

const database = await createTestDatabase();
const handle = openDb(database.url, { max: 2 });
t.teardown(async () => {
  await handle.close();
  await database.drop();
});

const reference = (name: string) => readFileSync(new URL(`./fixtures/reference/${name}`, import.meta.url));
const TMY = reference('phoenix_az_tmy2.csv');
const SRW = reference('az_eastern_rolling_hills.srw');

async function stored(workspace: string, content: Buffer): Promise<string> {
  const read = readResourceFile(content);
  const id = uuidv7();
  await database.pool.query(
    `INSERT INTO resources (id, workspace, name, kind, format, sha256, bytes, content, metadata)
     VALUES ($1, $2, 'f', $3, $4, $5, $6, $7, '{}')`,
    [id, workspace, read.kind, read.format, read.sha256, content.length, content],
  );
  return id;
}

const tmy = await stored('acme', TMY);
// Another workspace's file: the worker acts on rows by id, whoever's they are.
const srw = await stored('globex', SRW);
const inputs = (): StoredInputs =>
  ({
    ...resolvedInputs(),
    weather: { source: 'resource', id: tmy, shear_exponent: 0.14 },
    wind_resource: { source: 'resource', id: srw, shear_exponent: 0.14 },
  }) as StoredInputs;

t.test('read once per process, evicted past its bound by bytes', async (t) => {
  const store = new ResourceStore(handle, 4 * 2 ** 20);
  const first = await store.forInputs(inputs());
  const again = await store.forInputs(inputs());
  t.equal(store.reads, 1, 'one query for two calculations');
  t.equal(first[tmy].bytes, again[tmy].bytes, 'the same shared bytes');
  t.equal(first[srw].kind, 'wind_resource');
  t.equal(Buffer.from(first[tmy].bytes).toString('utf8'), TMY.toString('utf8'), 'the bytes as stored');
  t.equal(store.bytes, TMY.length + SRW.length);
  t.same(await store.forInputs(resolvedInputs() as StoredInputs), {}, 'inline inputs: nothing read');
  const small = new ResourceStore(handle, SRW.length + 1000);
  await small.forInputs(inputs());
  t.ok(small.bytes <= SRW.length + 1000, `bounded: ${small.bytes} bytes kept`);
  await small.forInputs(inputs());
  t.equal(small.reads, 2, 'what did not fit is read again');
  await t.rejects(
    new ResourceStore(handle, 2 ** 20).forInputs({
      ...inputs(),
      weather: { source: 'resource', id: uuidv7(), shear_exponent: 0.14 },
    } as StoredInputs),
    /is referenced but not stored/,
  );
});

t.test('decoded once per thread; the inputs as if inline', async (t) => {
  const shared = await new ResourceStore(handle, 8 * 2 ** 20).forInputs(inputs());
  const decoded = new DecodedResources(16 * 2 ** 20);
  const a = withContents(inputs(), (id) => decoded.content(id, shared[id]));
  const b = withContents(inputs(), (id) => decoded.content(id, shared[id]));
  t.equal(decoded.decoded, 2, 'two resources, each decoded once for two calculations');
  t.equal(a.weather.source, 'sam_csv', "the file's own format");
  t.equal((a.weather as { text: string }).text, (b.weather as { text: string }).text);
  t.same(
    a.wind_resource,
    { source: 'srw', text: SRW.toString('utf8'), shear_exponent: 0.14 },
    'an SRW reference made the inline SRW input',
  );
  t.same(inputs().weather, { source: 'resource', id: tmy, shear_exponent: 0.14 }, 'the stored inputs untouched');
});
