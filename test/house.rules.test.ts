// Rules of the house that a reader relies on, checked on the source: no function over 100 lines in
// server/, worker/ or shared/ (a function a reader can hold), and the calendar's numbers written once.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import ts from 'typescript';

const ROOTS = ['server', 'worker', 'shared'];
const MAX_LINES = 100;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(path);
    return e.name.endsWith('.ts') && !e.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** Every function-like node's name and line count. */
function functionLengths(path: string): Array<{ name: string; lines: number; line: number }> {
  const source = ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.Latest, true);
  const out: Array<{ name: string; lines: number; line: number }> = [];
  const visit = (node: ts.Node) => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const start = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const end = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      const named = (node as ts.FunctionLikeDeclaration).name;
      const parent = node.parent;
      const name = named
        ? named.getText(source)
        : ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent)
          ? parent.name.getText(source)
          : '(anonymous)';
      out.push({ name, lines: end - start + 1, line: start + 1 });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return out;
}

t.test(`no function over ${MAX_LINES} lines in ${ROOTS.join(', ')}`, async (t) => {
  const long = ROOTS.flatMap(sourceFiles).flatMap((path) =>
    functionLengths(path)
      .filter((f) => f.lines > MAX_LINES)
      .map((f) => `${path}:${f.line} ${f.name} (${f.lines} lines)`),
  );
  t.same(long, [], 'every function fits on a screen or two');
});

t.test('the calendar (25 years of 8,760 hours) is defined once, in shared/calendar.ts', async (t) => {
  const places = ROOTS.flatMap(sourceFiles)
    .filter((path) => path !== join('shared', 'calendar.ts'))
    .flatMap((path) =>
      readFileSync(path, 'utf8')
        .split('\n')
        .map((text, i) => ({ text, at: `${path}:${i + 1}` }))
        .filter(({ text }) => /\b8_?760\b/.test(text.replace(/\/\/.*$|^\s*\*.*$|\/\*.*?\*\//g, ''))),
    )
    .map((p) => p.at);
  t.same(places, [], 'no other file spells 8760 in code');
});
