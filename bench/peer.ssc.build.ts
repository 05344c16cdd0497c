// SSC for the peer bench (`npm run bench -- --peer=ssc`): its source exported once, the `ssc` shared
// library built once with cmake (niced, 2 jobs), and the C driver compiled against it, all cached
// outside the repository in ~/.cache/hourglass-ssc/<commit>/. Whatever is missing (cmake, a
// compiler, the source) gives a reason, never a crash: the caller prints it as a skipped line.
//
// The source is `--ssc-source=<dir>`: a checkout of NREL/ssc, or a bare git directory (as the
// snapshot tools give it; HEAD is exported). A bare snapshot may lack its largest blobs. Three are
// in the library: for those the export takes the newest version the object store has
// (tcs/water_properties.cpp) or a stand-in from bench/peer.ssc.standins/ that fails loudly if used
// (the pvsamv1 shading database; the tcs steam tables). None is on the path of the modules this
// bench runs (pvwattsv5, pvwattsv8, windpower, battery, grid, singleowner); bench/README.md says so.
import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const CACHE = join(homedir(), '.cache', 'hourglass-ssc');
/** SSC's own options to build only the library: no sdktool/tcsconsole, no tests, not the PySAM layout. */
export const CMAKE_FLAGS = [
  '-DCMAKE_BUILD_TYPE=Release',
  '-DSAM_SKIP_TOOLS=1',
  '-DSAM_SKIP_TESTS=1',
  '-DSAMAPI_EXPORT=0',
] as const;
const DRIVER = fileURLToPath(new URL('./peer.ssc.driver.c', import.meta.url));
const STANDINS = fileURLToPath(new URL('./peer.ssc.standins/', import.meta.url));

export interface SscBuild {
  commit: string;
  /** `git describe --tags` of the source, e.g. 2025.4.16.r0.ssc.302-63-ge97a19f8e. */
  describe: string;
  library: string;
  driver: string;
  /** Files of the source that were absent and how each was filled in. */
  filled: string[];
  cmakeFlags: readonly string[];
  /** Seconds the library took to build in this run; 0 when it came from the cache. */
  builtSeconds: number;
}

export type Located = { ok: true; build: SscBuild } | { ok: false; reason: string };

function has(tool: string): boolean {
  try {
    execFileSync('sh', ['-c', `command -v ${tool}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

const git = (gitDir: string, args: string[]) =>
  execFileSync('git', [`--git-dir=${gitDir}`, ...args], { encoding: 'utf8', maxBuffer: 64 << 20 }).trim();

const isBareGit = (dir: string) => existsSync(join(dir, 'HEAD')) && existsSync(join(dir, 'objects'));

/** Paths at HEAD whose blobs the object store lacks (a partial snapshot). */
function missingBlobs(gitDir: string): string[] {
  const tree = git(gitDir, ['ls-tree', '-r', 'HEAD'])
    .split('\n')
    .map((l) => {
      const [meta, path] = l.split('\t');
      return { sha: meta.split(' ')[2], path };
    });
  const answer = execFileSync('git', [`--git-dir=${gitDir}`, 'cat-file', '--batch-check'], {
    input: tree.map((t) => t.sha).join('\n'),
    encoding: 'utf8',
    maxBuffer: 64 << 20,
  }).split('\n');
  return tree.filter((_, i) => answer[i]?.endsWith(' missing')).map((t) => t.path);
}

/** The newest version of `path` in the history whose blob is present, or null. */
function newestPresent(gitDir: string, path: string): string | null {
  for (const commit of git(gitDir, ['log', '--format=%H', '--', path]).split('\n')) {
    try {
      const sha = git(gitDir, ['rev-parse', `${commit}:${path}`]);
      git(gitDir, ['cat-file', '-e', sha]);
      return commit;
    } catch {}
  }
  return null;
}

interface Fill {
  path: string;
  /** A stand-in of bench/peer.ssc.standins/ copied over this path of the source. */
  standin?: string;
  /** The commit whose version of the path is taken. */
  commit?: string;
}

/** How each file the library needs and the snapshot lacks is filled in; throws if one cannot be. */
function fillPlan(gitDir: string, missing: readonly string[]): Fill[] {
  return missing
    .filter((p) => !p.startsWith('test/') && !p.startsWith('open_source/')) // neither is built
    .map((path) => {
      // The steam tables' data is only read by tcs/waterprop.cpp: its stand-in replaces that file.
      if (path === 'tcs/waterprop_critical.dat') return { path, standin: 'tcs/waterprop.cpp' };
      if (path === 'shared/DB8_vmpp_impp_uint8_bin.h') return { path, standin: path };
      if (path === 'tcs/water_properties.cpp') {
        const commit = newestPresent(gitDir, path);
        if (!commit) throw new Error(`${path} is absent from the source and from its history`);
        return { path, commit };
      }
      throw new Error(`${path} is absent from the source snapshot`);
    });
}

/** What exporting `gitDir` fills in, as exportSource records it (for an export made before). */
export const plannedFills = (gitDir: string): string[] => fillPlan(gitDir, missingBlobs(gitDir)).map(describeFill);

const describeFill = (f: Fill) =>
  f.standin
    ? `${f.path}: absent; stand-in bench/peer.ssc.standins/${f.standin}`
    : `${f.path}: absent at HEAD; its newest version present, from commit ${f.commit?.slice(0, 9)}`;

/** HEAD of a bare git dir exported to `dest` (test/ left out), absent blobs filled; what was filled. */
function exportSource(gitDir: string, dest: string): string[] {
  const missing = missingBlobs(gitDir);
  const plan = fillPlan(gitDir, missing);
  const excludes = missing.filter((p) => !p.startsWith('test/')).map((p) => `:(exclude)${p}`);
  mkdirSync(dest, { recursive: true });
  const archive = execFileSync(
    'git',
    [`--git-dir=${gitDir}`, 'archive', 'HEAD', '--', '.', ':(exclude)test', ...excludes],
    {
      maxBuffer: 1 << 30,
    },
  );
  execFileSync('tar', ['-x', '-C', dest], { input: archive });
  for (const f of plan) {
    if (f.standin) copyFileSync(join(STANDINS, f.standin), join(dest, f.standin));
    else
      writeFileSync(
        join(dest, f.path),
        execFileSync('git', [`--git-dir=${gitDir}`, 'show', `${f.commit}:${f.path}`], { maxBuffer: 1 << 30 }),
      );
  }
  return plan.map(describeFill);
}

/** A build step, its output appended to `log`, run in the log's directory (some of SSC's steps write there). */
function run(cmd: string, args: string[], log: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const out = join(log);
    const child = spawn('sh', ['-c', `"$0" "$@" >> '${out}' 2>&1`, cmd, ...args], {
      stdio: 'ignore',
      cwd: dirname(out),
    });
    child.on('error', reject);
    child.on('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`${cmd} ${args.join(' ')} failed (${code}); see ${out}`)),
    );
  });
}

interface Stamp {
  commit: string;
  describe: string;
  filled: string[];
  cmakeFlags: readonly string[];
}

/** The library of `source`, built if it is not in the cache yet, and the driver compiled against it. */
export async function locateSsc(source: string | undefined, log: (line: string) => void): Promise<Located> {
  for (const tool of ['cmake', 'make', 'gcc', 'g++', 'git'])
    if (!has(tool)) return { ok: false, reason: `no ${tool} (apt-get install -y cmake g++)` };
  if (!source) return { ok: false, reason: 'no SSC source: give --ssc-source=<NREL/ssc checkout or bare git dir>' };
  if (!existsSync(source)) return { ok: false, reason: `no SSC source at ${source}` };
  try {
    const bare = isBareGit(source);
    const gitDir = bare ? source : join(source, '.git');
    const commit = git(gitDir, ['rev-parse', 'HEAD']);
    const describe = git(gitDir, ['describe', '--tags', '--always']);
    const home = join(CACHE, commit.slice(0, 12));
    const library = join(home, 'build', 'ssc', 'ssc.so');
    const stampPath = join(home, 'ssc.json');
    let builtSeconds = 0;
    if (!existsSync(stampPath) || !existsSync(library)) {
      const t0 = performance.now();
      const src = bare ? join(home, 'src') : source;
      let filled: string[] = [];
      const exported = join(home, 'exported.json');
      if (bare && existsSync(exported)) filled = JSON.parse(readFileSync(exported, 'utf8'));
      else if (bare) {
        rmSync(src, { recursive: true, force: true });
        filled = exportSource(source, src);
        writeFileSync(exported, `${JSON.stringify(filled, null, 2)}\n`);
      }
      const buildLog = join(home, 'build.log');
      mkdirSync(home, { recursive: true });
      log(`building SSC ${describe} in ${home} (nice 19, 2 jobs; tens of minutes on 2 cores; log: ${buildLog})`);
      await run('cmake', ['-S', src, '-B', join(home, 'build'), ...CMAKE_FLAGS], buildLog);
      await run('nice', ['-n', '19', 'cmake', '--build', join(home, 'build'), '--target', 'ssc', '-j2'], buildLog);
      const stamp: Stamp = { commit, describe, filled, cmakeFlags: CMAKE_FLAGS };
      writeFileSync(`${stampPath}.tmp`, `${JSON.stringify({ ...stamp, source: src }, null, 2)}\n`);
      renameSync(`${stampPath}.tmp`, stampPath);
      builtSeconds = (performance.now() - t0) / 1000;
    }
    const stamp = JSON.parse(readFileSync(stampPath, 'utf8')) as Stamp & { source: string };
    const driver = compileDriver(home, join(stamp.source, 'ssc'), library);
    return { ok: true, build: { ...stamp, library, driver, builtSeconds } };
  } catch (err) {
    return { ok: false, reason: `SSC could not be built: ${err instanceof Error ? err.message : String(err)}` };
  }
}

/** The driver, compiled once per version of its source (cached by its hash). */
function compileDriver(home: string, include: string, library: string): string {
  const code = readFileSync(DRIVER);
  const out = join(home, `driver-${createHash('sha256').update(code).digest('hex').slice(0, 12)}`);
  if (!existsSync(out)) {
    execFileSync('gcc', [
      '-O2',
      '-Wall',
      DRIVER,
      `-I${include}`,
      library,
      `-Wl,-rpath,${join(library, '..')}`,
      '-lm',
      '-o',
      `${out}.tmp`,
    ]);
    renameSync(`${out}.tmp`, out);
  }
  return out;
}
