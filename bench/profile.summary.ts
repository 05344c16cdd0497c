// Where a process's CPU time went, from the V8 CPU profiles `npm run bench -- --profile` writes:
// self time by function and by file, heaviest first.
// Usage: node bench/profile.summary.ts <file.cpuprofile | directory> [top=25]
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

const [target, topArg] = process.argv.slice(2);
if (!target) throw new Error('usage: node bench/profile.summary.ts <file.cpuprofile | directory> [top]');
const top = Number(topArg ?? 25);
const files = statSync(target).isDirectory()
  ? readdirSync(target, { recursive: true, encoding: 'utf8' })
      .filter((f) => f.endsWith('.cpuprofile'))
      .map((f) => join(target, f))
  : [target];

const shortUrl = (url: string) =>
  url
    .replace(/^file:\/\/.*?\/node_modules\//, '~/')
    .replace(/^file:\/\/.*?\/main\//, '')
    .replace(/^node:/, 'node:');

for (const file of files) {
  const p = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const selfUs = new Map<number, number>();
  for (const [i, id] of p.samples.entries()) selfUs.set(id, (selfUs.get(id) ?? 0) + (p.timeDeltas[i] ?? 0));
  const fn = new Map<string, number>();
  const byFile = new Map<string, number>();
  let total = 0;
  let idle = 0;
  for (const [id, us] of selfUs) {
    const n = byId.get(id);
    if (!n) continue;
    const name = n.callFrame.functionName || '(anonymous)';
    if (name === '(idle)') {
      idle += us;
      continue;
    }
    total += us;
    const where = shortUrl(n.callFrame.url) || '(native)';
    const key = `${name}  ${where}:${n.callFrame.lineNumber + 1}`;
    fn.set(key, (fn.get(key) ?? 0) + us);
    byFile.set(where, (byFile.get(where) ?? 0) + us);
  }
  const wall = (p.endTime - p.startTime) / 1000;
  console.log(
    `\n${file}\n  wall ${wall.toFixed(0)} ms, busy ${(total / 1000).toFixed(0)} ms, idle ${(idle / 1000).toFixed(0)} ms`,
  );
  const print = (title: string, m: Map<string, number>) => {
    console.log(`  ${title}`);
    for (const [k, us] of [...m].sort((a, b) => b[1] - a[1]).slice(0, top)) {
      console.log(`  ${(us / 1000).toFixed(0).padStart(8)} ms ${((100 * us) / total).toFixed(1).padStart(5)} %  ${k}`);
    }
  };
  print('self time by function', fn);
  print('self time by file', byFile);
}
