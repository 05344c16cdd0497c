// The engine's WebAssembly is committed as binaries (storage.dispatch.wasm.ts: the battery DP's
// kernel; storage.reserves.primal.wasm.ts: the reserve certificate's primal part) beside their
// hand-written texts: each binary must be its text's, assembled by the pinned `wabt`, so that a
// change to a text without `node scripts/wasm.build.ts` fails here.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import t from 'tap';
import { assemble, MODULES, source } from '../scripts/wasm.build.ts';

for (const module of MODULES) {
  t.test(`${basename(module.out)} is ${basename(module.wat)} assembled`, async (t) => {
    const bytes = await assemble(module.wat);
    t.ok(bytes.length > 200, `assembled ${bytes.length} bytes`);
    t.equal(readFileSync(module.out, 'utf8'), source(bytes, module), `${basename(module.out)} matches its text`);
  });

  t.test(`a changed ${basename(module.wat)} gives a different binary (the check can fail)`, async (t) => {
    const text = readFileSync(module.wat, 'utf8');
    const changed = text.replace(/f64\.const 1e-9/, 'f64.const 2e-9');
    t.not(changed, text, 'the text has a tolerance to change');
    const file = join(mkdtempSync(join(tmpdir(), 'wat-')), 'changed.wat');
    writeFileSync(file, changed);
    t.not(source(await assemble(file), module), readFileSync(module.out, 'utf8'));
  });
}
