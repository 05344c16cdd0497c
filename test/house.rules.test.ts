// Rules of the house that a reader relies on, checked on the source: no function over 100 lines in
// server/, worker/ or shared/ (a function a reader can hold), the calendar's numbers written once,
// each hourly series' name spelled in at most two production files (shared/hourly.series.ts and
// one more), and the arrows of ARCHITECTURE.md's code map (who may import whom).
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import t from 'tap';
import ts from 'typescript';
import { HOURLY_NAMES } from '../shared/hourly.series.ts';

const ROOTS = ['server', 'worker', 'shared'];
const MAX_LINES = 100;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(path);
    return e.name.endsWith('.ts') && !e.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** The WebAssembly text files under `dir` (sources too: each is assembled into a committed binary). */
function watFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.wat'))
    .map((e) => join(e.parentPath, e.name));
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

/** Production code: what ships (not test/ or bench/). */
const PRODUCTION = ['server', 'worker', 'shared', 'scripts'];
const MAX_SPELLINGS = 2;

t.test(
  `each hourly series' name is spelled in at most ${MAX_SPELLINGS} production files (the registry and one more)`,
  async (t) => {
    const files = PRODUCTION.flatMap((root) => {
      try {
        return sourceFiles(root);
      } catch {
        return [];
      }
    }).map((path) => ({ path, text: readFileSync(path, 'utf8') }));
    t.ok(
      files.some((f) => f.path === join('shared', 'hourly.series.ts')),
      'the registry is among the files read',
    );
    const over = HOURLY_NAMES.flatMap((name) => {
      const spelled = new RegExp(`\\b${name}\\b`);
      const places = files.filter((f) => spelled.test(f.text)).map((f) => f.path);
      return places.length > MAX_SPELLINGS ? [`${name}: ${places.join(', ')}`] : [];
    });
    t.same(over, [], 'the engine, the result writer, the routes and the viewer reach each series through the registry');
  },
);

/** The folders each folder may import from (ARCHITECTURE.md, "Code map"), besides itself and packages. */
const ARROWS: Array<{ from: string; may: string[] }> = [
  {
    from: 'worker/engine',
    may: ['worker/engine', 'shared/schemas', 'shared/weather', 'shared/calendar.ts', 'shared/hourly.series.ts'],
  },
  { from: 'shared', may: ['shared'] },
  { from: 'server', may: ['server', 'shared'] },
  { from: 'worker', may: ['worker', 'shared'] },
];

/** The repository paths a file imports (relative imports only). */
function importsOf(path: string): string[] {
  const source = ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.Latest, true);
  const out: string[] = [];
  const visit = (node: ts.Node) => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier) {
      const spec = (node.moduleSpecifier as ts.StringLiteral).text;
      if (spec.startsWith('.')) out.push(normalize(join(dirname(path), spec)));
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return out;
}

t.test(
  'imports follow the arrows: shared/ imports neither server/ nor worker/; the engine only its inputs',
  async (t) => {
    const under = (path: string, folder: string) => path === folder || path.startsWith(`${folder}/`);
    const against = ROOTS.flatMap(sourceFiles)
      .filter((path) => !path.startsWith(join('server', 'viewer', 'client')))
      .flatMap((path) => {
        const rule = ARROWS.find((a) => under(path, a.from));
        if (!rule) return [];
        return importsOf(path)
          .filter((target) => !rule.may.some((m) => under(target, m)))
          .map((target) => `${path} → ${target}`);
      });
    t.same(against, [], 'no import against the arrows');
  },
);

/** The engine's composer: the one folder of worker/engine/ that may import the technology folders. */
const ENGINE = join('worker', 'engine');
const COMPOSER = 'plant';

/** The engine folder a file is in (`solar`, `plant`, …), or null for the engine's root. */
function engineFolder(path: string): string | null {
  const rest = path.slice(ENGINE.length + 1).split('/');
  return rest.length > 1 ? rest[0] : null;
}

t.test(
  "a technology folder of the engine imports only itself and the root's neutral modules; only plant/ composes them, index.ts runs plant/'s stages",
  async (t) => {
    const door = join(ENGINE, 'index.ts');
    const against = sourceFiles(ENGINE).flatMap((path) => {
      const from = engineFolder(path);
      if (from === COMPOSER) return [];
      return importsOf(path)
        .filter((target) => target.startsWith(`${ENGINE}/`))
        .filter((target) => {
          const to = engineFolder(target);
          // The door runs plant/'s stages; a root module (escalation, discounting, prices, errors,
          // angles) imports only the root; a technology imports itself and the root, never the door.
          if (path === door) return to !== null && to !== COMPOSER;
          return target === door || (to !== null && to !== from);
        })
        .map((target) => `${path} → ${target}`);
    });
    t.same(against, [], 'no technology folder imports another (what two share lives at the root or in plant/)');
  },
);

t.test(
  "the viewer's browser code imports itself, the KPI and hourly series registries and the calendar; no page imports another",
  async (t) => {
    const client = join('server', 'viewer', 'client');
    const pages = join(client, 'pages');
    const against = sourceFiles(client).flatMap((path) =>
      importsOf(path)
        .filter(
          (target) =>
            !(
              target.startsWith(`${client}/`) ||
              target === join('shared', 'kpis.ts') ||
              target === join('shared', 'hourly.series.ts') ||
              target === join('shared', 'calendar.ts')
            ) ||
            (path.startsWith(`${pages}/`) && target.startsWith(`${pages}/`)),
        )
        .map((target) => `${path} → ${target}`),
    );
    t.same(against, [], 'no import against the arrows');
  },
);

/** The files ARCHITECTURE.md's code map lists: `- \`file\` —` lines under `### \`folder/\`` headings. */
function mappedFiles(): string[] {
  const text = readFileSync('ARCHITECTURE.md', 'utf8');
  const map = text.slice(text.indexOf('## Code map'), text.indexOf('\n## ', text.indexOf('## Code map') + 1));
  let folder = '';
  const out: string[] = [];
  for (const line of map.split('\n')) {
    const heading = /^### `([^`]+)`/.exec(line);
    if (heading) folder = heading[1];
    const entry = /^- `([^`]+)` —/.exec(line);
    if (entry && folder) out.push(join(folder, entry[1]));
  }
  return out;
}

t.test("every source file has its line in ARCHITECTURE.md's code map, and every line its file", async (t) => {
  // The TypeScript, and the hand-written WebAssembly text the engine's kernel is built from.
  const files = [...[...ROOTS, 'scripts'].flatMap(sourceFiles), ...watFiles('worker')].sort();
  const mapped = mappedFiles().sort();
  t.same(
    files.filter((f) => !mapped.includes(f)),
    [],
    'no source file is missing from the map',
  );
  t.same(
    mapped.filter((f) => !files.includes(f)),
    [],
    'no line of the map names a file that is gone',
  );
});

/** Every node of a source file, depth first. */
function nodesOf(path: string): ts.Node[] {
  const source = ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.Latest, true);
  const out: ts.Node[] = [];
  const visit = (node: ts.Node) => {
    out.push(node);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return out;
}

const named = (node: ts.Node, name: string) =>
  'name' in node && ts.isIdentifier(node.name as ts.Node) && (node.name as ts.Identifier).text === name;
const where = (node: ts.Node) => {
  const source = node.getSourceFile();
  return `${source.fileName}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}`;
};

t.test(
  'no workspace is optional in server/, shared/ or worker/: a read that forgets it does not compile',
  async (t) => {
    const optional = ROOTS.flatMap(sourceFiles).flatMap((path) =>
      nodesOf(path)
        .filter(
          (n) =>
            (ts.isParameter(n) || ts.isPropertySignature(n) || ts.isPropertyDeclaration(n)) &&
            named(n, 'workspace') &&
            (n.questionToken !== undefined || (ts.isParameter(n) && n.initializer !== undefined)),
        )
        .map(where),
    );
    t.same(optional, [], 'no optional `workspace` parameter or field');
  },
);

t.test('routes reach the database only through their workspace-scoped handle (shared/workspace.ts)', async (t) => {
  const routes = join('server', 'routes');
  // /healthz and /readyz ping the database itself: nobody's data.
  const exempt = new Set([join(routes, 'health.route.ts')]);
  const raw = sourceFiles(routes)
    .filter((path) => !exempt.has(path))
    .flatMap((path) => [
      ...importsOf(path)
        .filter((target) => target === join('shared', 'db.ts'))
        .map((target) => `${path} imports ${target}`),
      ...nodesOf(path)
        .filter(
          (n) =>
            (ts.isPropertyAccessExpression(n) && n.name.text === 'db') ||
            (ts.isBindingElement(n) && named(n, 'db')) ||
            (ts.isIdentifier(n) && (n.text === 'unscoped' || n.text === 'withinWorkspace')),
        )
        .map((n) => `${where(n)} ${n.getText()}`),
    ]);
  t.same(raw, [], 'no route file reads the unscoped handle');
  // The scoped handle is made from a request's workspace (server/route.ts) and, by retention, from a
  // row's own; it is opened only by repository functions.
  const makers = new Set([join('server', 'route.ts'), join('shared', 'deletion.repository.ts')]);
  const openers = (path: string) => path.endsWith('.repository.ts') || path === join('server', 'scenarios.create.ts');
  const misuse = ROOTS.flatMap(sourceFiles)
    .filter((path) => path !== join('shared', 'workspace.ts'))
    .flatMap((path) =>
      nodesOf(path)
        .filter(
          (n) =>
            ts.isCallExpression(n) &&
            ts.isIdentifier(n.expression) &&
            ((n.expression.text === 'withinWorkspace' && !makers.has(path)) ||
              (n.expression.text === 'unscoped' && !openers(path))),
        )
        .map((n) => `${where(n)} ${(n as ts.CallExpression).expression.getText()}`),
    );
  t.same(misuse, [], 'withinWorkspace only where a workspace is known; unscoped only in repositories');
});

t.test("ARCHITECTURE.md states each process folder's invariants beside its file list", async (t) => {
  const text = readFileSync('ARCHITECTURE.md', 'utf8');
  for (const folder of ROOTS) {
    const heading = text.indexOf(`### \`${folder}/\``);
    t.ok(heading >= 0, `${folder}/ has its heading`);
    const firstLine = text.slice(heading).split('\n')[1] ?? '';
    t.match(firstLine, /^\*Invariants:\*/, `${folder}/'s list opens with its invariants`);
  }
  t.match(text, /\*\*workspace\*\*/, 'the overview names workspaces');
  t.match(text, /\*\*battery\*\*/, 'the overview names the battery');
  t.match(text, /\*\*load\*\*/, 'the overview names the load');
});
