// A kernel memory cgroup with a hard limit and no swap, the way a dyno's memory is enforced: what
// exceeds it is killed by the kernel (exit 137), not swapped. Made as a child of this process's
// own memory cgroup (cgroup v1 `memory` controller, or cgroup v2 with `memory` delegated), so it
// stays inside whatever limits the machine already puts on us; needs root (or a delegated cgroup).
// `memoryCgroup` returns the reason instead when the machine offers none, so a caller can say so.
import { existsSync, mkdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface MemoryCgroup {
  /** v1 or v2, and the directory. */
  describe: string;
  limitBytes: number;
  /**
   * The argv that runs `command` inside the cgroup: a shell writes its own pid into cgroup.procs,
   * then execs the command, so every byte the command and its children ever touch is charged here.
   */
  wrap(command: string, args: readonly string[]): [string, string[]];
  /** The processes in it now. */
  pids(): number[];
  /** The most it was charged (anonymous memory and page cache), bytes. */
  peakBytes(): number;
  /** Resident anonymous memory charged now (what cannot be reclaimed without swap), bytes. */
  anonBytes(): number;
  /** Processes the kernel killed for exceeding the limit. */
  oomKills(): number;
  /** Removes the cgroup (its processes must have exited). */
  remove(): void;
}

const MB = 1024 * 1024;
const read = (path: string) => readFileSync(path, 'utf8');

/** This process's cgroup directory for the memory controller, v1 or v2; null if there is none. */
function ownDirectory(): { version: 1 | 2; dir: string } | null {
  if (process.platform !== 'linux') return null;
  const lines = read('/proc/self/cgroup').trim().split('\n');
  const v1 = lines.map((l) => l.split(':')).find(([, controllers]) => controllers.split(',').includes('memory'));
  if (v1 && existsSync('/sys/fs/cgroup/memory')) return { version: 1, dir: join('/sys/fs/cgroup/memory', v1[2]) };
  const v2 = lines.find((l) => l.startsWith('0::'));
  if (v2 && existsSync('/sys/fs/cgroup/cgroup.controllers')) {
    const dir = join('/sys/fs/cgroup', v2.slice(3));
    if (read('/sys/fs/cgroup/cgroup.controllers').split(/\s+/).includes('memory')) return { version: 2, dir };
  }
  return null;
}

/** Field `name` of a "key value" file (memory.stat, memory.oom_control, memory.events). */
function field(path: string, name: string): number {
  const m = new RegExp(`^${name} (\\d+)$`, 'm').exec(read(path));
  return m ? Number(m[1]) : 0;
}

/** A memory cgroup `name` limited to `limitMb` without swap, or why there can be none here. */
export function memoryCgroup(name: string, limitMb: number): MemoryCgroup | { unavailable: string } {
  const own = ownDirectory();
  if (!own) return { unavailable: 'no memory cgroup controller on this machine' };
  const dir = join(own.dir, `${name}-${process.pid}`);
  const limit = String(limitMb * MB);
  try {
    mkdirSync(dir);
    if (own.version === 1) {
      writeFileSync(join(dir, 'memory.limit_in_bytes'), limit);
      // memsw (memory + swap) exists only with swap accounting; at the same limit, nothing swaps.
      if (existsSync(join(dir, 'memory.memsw.limit_in_bytes')))
        writeFileSync(join(dir, 'memory.memsw.limit_in_bytes'), limit);
    } else {
      writeFileSync(join(dir, 'memory.max'), limit);
      if (existsSync(join(dir, 'memory.swap.max'))) writeFileSync(join(dir, 'memory.swap.max'), '0');
    }
  } catch (err) {
    try {
      rmdirSync(dir);
    } catch {}
    return { unavailable: `cannot make a memory cgroup in ${own.dir}: ${(err as Error).message}` };
  }
  const file = (f: string) => join(dir, f);
  return {
    describe: `cgroup v${own.version} ${dir}`,
    limitBytes: limitMb * MB,
    wrap: (command, args) => ['/bin/sh', ['-c', 'echo $$ > "$0" && exec "$@"', file('cgroup.procs'), command, ...args]],
    pids: () =>
      read(file('cgroup.procs'))
        .split('\n')
        .filter((l) => l !== '')
        .map(Number),
    peakBytes: () =>
      own.version === 1
        ? Number(read(file('memory.max_usage_in_bytes')))
        : existsSync(file('memory.peak'))
          ? Number(read(file('memory.peak')))
          : Number.NaN,
    anonBytes: () => (own.version === 1 ? field(file('memory.stat'), 'total_rss') : field(file('memory.stat'), 'anon')),
    oomKills: () =>
      own.version === 1 ? field(file('memory.oom_control'), 'oom_kill') : field(file('memory.events'), 'oom_kill'),
    remove: () => rmdirSync(dir),
  };
}

/** Resident memory of a process now, and its peak since it started, MB (NaN once it has exited). */
export function processRss(pid: number): { rssMb: number; peakMb: number } {
  try {
    const status = read(`/proc/${pid}/status`);
    const kb = (f: string) => Number(new RegExp(`^${f}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? Number.NaN);
    return { rssMb: kb('VmRSS') / 1024, peakMb: kb('VmHWM') / 1024 };
  } catch {
    return { rssMb: Number.NaN, peakMb: Number.NaN };
  }
}

/** The command line of a process, '' once it has exited. */
export function commandLine(pid: number): string {
  try {
    return read(`/proc/${pid}/cmdline`).split('\0').join(' ').trim();
  } catch {
    return '';
  }
}
