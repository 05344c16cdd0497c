// The engine's WebAssembly kernel is committed as a binary (storage.dispatch.wasm.ts) beside its
// hand-written text (storage.dispatch.wat): the binary must be the text's, assembled by the pinned
// `wabt`, so that a change to the text without `node scripts/wasm.build.ts` fails here.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { assemble, OUT, source } from '../scripts/wasm.build.ts';

const WAT = new URL('../worker/engine/storage/storage.dispatch.wat', import.meta.url);

t.test('the committed kernel binary is its text assembled', async (t) => {
  const bytes = await assemble();
  t.ok(bytes.length > 1000, `assembled ${bytes.length} bytes`);
  t.equal(readFileSync(OUT, 'utf8'), source(bytes), 'storage.dispatch.wasm.ts matches storage.dispatch.wat');
});

t.test('a changed text gives a different binary (the check can fail)', async (t) => {
  const text = readFileSync(WAT, 'utf8');
  const changed = text.replace(/f64\.const 1e-9/, 'f64.const 2e-9');
  t.not(changed, text, 'the text has a tolerance to change');
  const file = join(mkdtempSync(join(tmpdir(), 'wat-')), 'changed.wat');
  writeFileSync(file, changed);
  t.not(source(await assemble(file)), readFileSync(OUT, 'utf8'));
});
