// The web's cache of built full answers (server/answer.cache.ts) on its own: kept by bytes within
// its budget, least recently used out; one build for every reader that asks while it is made; a
// build every reader left keeps nothing; a budget of 0 keeps nothing.
import t from 'tap';
import { AnswerCache, type Lookup } from '../server/answer.cache.ts';

/** An answer of `n` pieces of `size` bytes each (filled with `fill`), counting how often it is made. */
function maker(n: number, size: number, fill: number) {
  const made = { count: 0 };
  const pieces = function* () {
    made.count++;
    for (let i = 0; i < n; i++) yield Buffer.alloc(size, fill + i);
  };
  return { made, pieces };
}

/** Everything a lookup gives, as a reader of it would send it (registered as a reader meanwhile). */
async function drain(found: Lookup): Promise<Buffer> {
  if ('bytes' in found) return found.bytes;
  const build = found.build;
  build.readers++;
  try {
    for (;;) {
      if (build.done) return Buffer.concat(build.pieces);
      if (build.stopped) throw new Error('stopped');
      await build.next();
    }
  } finally {
    build.readers--;
  }
}

const expected = (n: number, size: number, fill: number) =>
  Buffer.concat(Array.from({ length: n }, (_, i) => Buffer.alloc(size, fill + i)));

t.test('a kept answer is the bytes built, and is not built again', async (t) => {
  const cache = new AnswerCache(1024 * 1024);
  const a = maker(3, 20_000, 1);
  const first = await drain(cache.obtain('s1/e1', a.pieces));
  t.ok(first.equals(expected(3, 20_000, 1)), 'the build is the pieces in order');
  const again = cache.find('s1/e1');
  t.ok(again && 'bytes' in again, 'then kept');
  t.ok(again && 'bytes' in again && again.bytes.equals(first), 'the same bytes');
  const third = await drain(cache.obtain('s1/e1', a.pieces));
  t.ok(third.equals(first));
  t.equal(a.made.count, 1, 'built once');
  t.equal(cache.builds, 1);
  t.equal(cache.usedBytes, 60_000);
  t.equal(cache.find('s1/e2'), undefined, 'another ETag of the same scenario is another answer');
});

t.test('readers at the same time share one build', async (t) => {
  const cache = new AnswerCache(1024 * 1024);
  const a = maker(6, 30_000, 7);
  const reads = Array.from({ length: 8 }, () => drain(cache.obtain('s/e', a.pieces)));
  const bodies = await Promise.all(reads);
  t.equal(a.made.count, 1, 'one build for eight readers');
  t.equal(cache.builds, 1);
  for (const b of bodies) t.ok(b.equals(expected(6, 30_000, 7)));
  // A reader that joins a build under way still gets every piece.
  const b = maker(6, 30_000, 9);
  const early = cache.obtain('s/f', b.pieces);
  const late = (async () => {
    await new Promise(setImmediate);
    await new Promise(setImmediate);
    return drain(cache.obtain('s/f', b.pieces));
  })();
  const [x, y] = await Promise.all([drain(early), late]);
  t.ok(x.equals(y) && x.equals(expected(6, 30_000, 9)), 'a late reader gets the whole answer');
  t.equal(b.made.count, 1);
});

t.test('the budget is kept: least recently used out, a too large answer never kept', async (t) => {
  const cache = new AnswerCache(100_000);
  for (const k of ['a', 'b', 'c']) await drain(cache.obtain(k, maker(1, 30_000, 1).pieces));
  t.equal(cache.usedBytes, 90_000);
  cache.find('a'); // a is now the most recently used: b goes first
  await drain(cache.obtain('d', maker(1, 30_000, 2).pieces));
  t.ok(cache.usedBytes <= 100_000, `${cache.usedBytes} bytes kept within 100,000`);
  t.equal(cache.find('b'), undefined, 'the least recently used was dropped');
  for (const k of ['a', 'c', 'd']) t.ok(cache.find(k), `${k} kept`);
  const big = maker(4, 30_000, 3);
  const body = await drain(cache.obtain('big', big.pieces));
  t.equal(body.length, 120_000, 'an answer larger than the budget is still sent');
  t.equal(cache.find('big'), undefined, 'but not kept');
  t.equal(cache.usedBytes, 90_000, 'and dropped nothing');
});

t.test('a build every reader left keeps nothing', async (t) => {
  const cache = new AnswerCache(1024 * 1024);
  const a = maker(10, 20_000, 1);
  const found = cache.obtain('s/e', a.pieces);
  t.ok('build' in found);
  if (!('build' in found)) return;
  const build = found.build;
  build.readers++;
  await build.next();
  t.equal(build.pieces.length, 1, 'one piece made');
  build.readers--; // the client went away
  while (!build.stopped && !build.done) await new Promise(setImmediate);
  t.ok(build.stopped && !build.done, 'the build stopped');
  t.ok(build.pieces.length < 10, `after ${build.pieces.length} of 10 pieces`);
  t.equal(cache.find('s/e'), undefined, 'nothing kept, no build left');
  t.equal(cache.usedBytes, 0);
  const again = await drain(cache.obtain('s/e', a.pieces));
  t.ok(again.equals(expected(10, 20_000, 1)), 'the next read builds it whole');
  t.equal(a.made.count, 2);
});

t.test('a failed build keeps nothing and tells its readers', async (t) => {
  const cache = new AnswerCache(1024 * 1024);
  const failing = function* () {
    yield Buffer.alloc(20_000);
    throw new Error('bad stored form');
  };
  await t.rejects(drain(cache.obtain('s/e', failing)), /stopped/);
  t.equal(cache.find('s/e'), undefined);
});

t.test('a budget of 0 is off', async (t) => {
  const cache = new AnswerCache(0);
  t.equal(cache.enabled, false);
  const a = maker(2, 20_000, 1);
  await drain(cache.obtain('s/e', a.pieces));
  t.equal(cache.find('s/e'), undefined, 'nothing kept');
  t.equal(cache.usedBytes, 0);
});
