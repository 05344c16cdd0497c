// The docs hold together: every relative link in a Markdown file names a file of the repository
// (and, with #anchor, one of its headings), and no file points outside the repository — neither a
// `../` path that climbs out of it nor a `.md` file that is not in it. Reads files only; no server.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, extname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const SKIP_DIRS = new Set(['node_modules', '.git', '.data', 'coverage', '.tap']);
const TEXT = new Set(['.md', '.ts', '.sql', '.css', '.html', '.json']);
const SKIP_FILES = new Set(['package-lock.json']);

function walk(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    if (SKIP_DIRS.has(name) || name.startsWith('.')) continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) walk(path, out);
    else if (TEXT.has(extname(name)) && !SKIP_FILES.has(name)) out.push(path);
  }
  return out;
}

const files = walk(ROOT);
const markdown = files.filter((f) => f.endsWith('.md'));
const mdBasenames = new Set(markdown.map((f) => basename(f)));
const rel = (f: string) => relative(ROOT, f);
const inside = (path: string) => path === ROOT || path.startsWith(ROOT + sep);

const FENCED = /^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm;
const withoutComments = (text: string) => text.replace(/<!--[\s\S]*?-->/g, '');
const withoutCode = (text: string) => text.replace(FENCED, '').replace(/`[^`\n]*`/g, '');

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens, repeats numbered. */
function anchorsOf(file: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  const text = readFileSync(file, 'utf8').replace(FENCED, '');
  for (const match of text.matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const slug = match[1]
      .replace(/`/g, '')
      .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    anchors.add(n === 0 ? slug : `${slug}-${n}`);
  }
  return anchors;
}

/** The relative link targets of a Markdown text: inline links and images, and reference definitions. */
function linkTargets(text: string): string[] {
  const body = withoutCode(withoutComments(text));
  const inline = [...body.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1]);
  const defined = [...body.matchAll(/^\s*\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+"[^"]*")?\s*$/gm)].map((m) => m[1]);
  return [...inline, ...defined].filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target));
}

t.test('every relative link in the Markdown files resolves to a file (and heading) in the repository', async (t) => {
  const broken: string[] = [];
  for (const file of markdown) {
    for (const target of linkTargets(readFileSync(file, 'utf8'))) {
      const [pathPart, anchor] = target.split('#', 2) as [string, string | undefined];
      const path = decodeURIComponent(pathPart.split('?')[0]);
      const resolved = path === '' ? file : resolve(path.startsWith('/') ? ROOT : dirname(file), `.${sep}${path}`);
      if (!inside(resolved)) broken.push(`${rel(file)}: ${target} points outside the repository`);
      else if (!existsSync(resolved)) broken.push(`${rel(file)}: ${target} names no file`);
      else if (anchor && resolved.endsWith('.md') && !anchorsOf(resolved).has(anchor)) {
        broken.push(`${rel(file)}: ${target} names no heading of ${rel(resolved)}`);
      }
    }
  }
  t.same(broken, [], broken.join('\n'));
  t.ok(markdown.length >= 5, `${markdown.length} Markdown files read`);
});

t.test('no file points outside the repository', async (t) => {
  const outside: string[] = [];
  for (const file of files) {
    let text = readFileSync(file, 'utf8').replace(/\b[a-z][a-z0-9+.-]*:\/\/\S+/gi, '');
    if (file.endsWith('.md')) text = withoutComments(text);
    // A `../` path that climbs out of the repository from where it is written.
    for (const match of text.matchAll(/(?<![\w.])(?:\.\.\/)+[\w.-]*/g)) {
      if (!inside(resolve(dirname(file), match[0]))) outside.push(`${rel(file)}: ${match[0]}`);
    }
    // A Markdown file named that the repository does not have (a path from the file, from the
    // root, or a bare name that some Markdown file here has).
    for (const match of text.matchAll(/(?<![\w./-])[\w./-]*[\w-]\.md\b/g)) {
      const name = match[0];
      const found =
        existsSync(resolve(dirname(file), name)) ||
        existsSync(resolve(ROOT, name)) ||
        (!name.includes('/') && mdBasenames.has(name));
      if (!found) outside.push(`${rel(file)}: ${name}`);
    }
  }
  t.same(outside, [], outside.join('\n'));
});
