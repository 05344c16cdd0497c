// The processes the bench runs: the real web and worker (spawned by test/helpers/processes.ts, as
// the tests spawn them, with the Procfile's Node flags), the bare SSE server baseline, and the load
// process. Their output goes to a log file; only the lines the bench waits for or collects are
// parsed. And what the bench reads of them from /proc: memory and CPU time.
import { type ChildProcess, fork } from 'node:child_process';
import { once } from 'node:events';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { WEB_NODE_FLAGS, WORKER_NODE_FLAGS } from '../scripts/node.flags.ts';
import {
  launchWeb,
  launchWorker,
  type Proc,
  type SpawnOptions,
  spawnProc,
  webListens,
  workerStarted,
} from '../test/helpers/processes.ts';
import type { LoadCommands } from './load.protocol.ts';

const ROOT = fileURLToPath(new URL('../', import.meta.url));

/** `--profile`: each web and worker process writes V8 CPU profiles to <logDir>/profiles/<name>/ when it exits. */
export const profiling = { enabled: false };

/** Every service not yet stopped, so an interrupted bench can stop them all. */
export const liveServices = new Set<Service>();

export interface Service {
  name: string;
  pid: number;
  port: number;
  /** The log lines that matched `collect` at spawn. */
  readonly collected: Array<Record<string, unknown>>;
  stop(): Promise<void>;
}

type LogLine = Record<string, unknown>;

interface ServiceOptions {
  name: string;
  logDir: string;
  /** The line that says the process is ready, and a substring of it (only such lines are parsed). */
  ready: { line: (l: LogLine) => boolean; contains: string };
  /** Lines to keep for `collected`, and a substring of them. */
  collect?: { line: (l: LogLine) => boolean; contains: string };
  timeoutMs?: number;
}

/** The spawn options of a bench process: its log file, the lines parsed, a CPU profile if asked for. */
function spawnOptions(options: ServiceOptions, nodeFlags: readonly string[] = []): SpawnOptions {
  const profile = profiling.enabled
    ? ['--cpu-prof', `--cpu-prof-dir=${join(options.logDir, 'profiles', options.name)}`]
    : [];
  return {
    nodeFlags: [...profile, ...nodeFlags],
    logFile: join(options.logDir, `${options.name}.log`),
    keepLines: [options.ready.contains, ...(options.collect ? [options.collect.contains] : [])],
  };
}

/** Waits for a spawned process's ready line and registers it as a live service. */
async function serve(proc: Proc, options: ServiceOptions): Promise<Service> {
  let stopping = false;
  void proc.exited.then((code) => {
    if (!stopping) {
      const signal = proc.child.signalCode;
      console.error(
        `[bench] ${options.name} (pid ${proc.child.pid}) exited unexpectedly: code ${code}, signal ${signal}`,
      );
    }
  });
  const timeoutMs = options.timeoutMs ?? 30_000;
  let readyLine: LogLine;
  try {
    readyLine = await proc.waitForLog(options.ready.line, timeoutMs);
  } catch (err) {
    stopping = true;
    await proc.stop('SIGKILL');
    throw new Error(`${options.name} not ready: ${(err as Error).message.split(';')[0]}; see ${options.name}.log`);
  }
  const collect = options.collect?.line;
  const service: Service = {
    name: options.name,
    pid: proc.child.pid ?? 0,
    port: typeof readyLine.port === 'number' ? readyLine.port : 0,
    get collected() {
      return collect ? proc.logs.filter(collect) : [];
    },
    async stop() {
      stopping = true;
      liveServices.delete(service);
      await proc.stop('SIGTERM');
    },
  };
  liveServices.add(service);
  return service;
}

const LISTENING = { line: webListens, contains: '"msg":"listening' };

/** A bench-only server (the bare SSE baseline), ready when it logs that it listens. */
export function startServer(options: { name: string; entry: string; args: string[]; logDir: string }) {
  const service = { name: options.name, logDir: options.logDir, ready: LISTENING };
  return serve(spawnProc(options.entry, { ...spawnOptions(service), args: options.args }), service);
}

/**
 * A web or worker started by another command line (e.g. `npm run worker` inside a memory cgroup),
 * ready when it logs that it listens or has started.
 */
export function startCommand(options: {
  name: string;
  logDir: string;
  argv: [string, string[]];
  env: Record<string, string>;
  role: 'web' | 'worker';
}) {
  const ready = options.role === 'web' ? LISTENING : WORKER_READY;
  const service = { name: options.name, logDir: options.logDir, ready };
  return serve(spawnProc('', { ...spawnOptions(service), argv: options.argv, env: options.env }), service);
}

const WORKER_READY = { line: workerStarted, contains: '"msg":"worker started"' };

export function startWeb(
  databaseUrl: string,
  logDir: string,
  name: string,
  env: Record<string, string> = {},
  entry = 'server/main.ts',
) {
  const service = { name, logDir, ready: LISTENING };
  return serve(launchWeb(databaseUrl, env, { ...spawnOptions(service, WEB_NODE_FLAGS), entry }), service);
}

/** `spawn`: another entry point and its arguments (bench #30's worker with a replayed engine). */
export function startWorker(
  databaseUrl: string,
  logDir: string,
  name: string,
  env: Record<string, string> = {},
  spawn: { entry: string; args: string[] } | null = null,
) {
  const service = {
    name,
    logDir,
    ready: WORKER_READY,
    collect: { line: (l: LogLine) => l.msg === 'calculated', contains: '"msg":"calculated"' },
    // Many workers starting together on a small host take longer than one.
    timeoutMs: spawn ? 120_000 : undefined,
  };
  // The figures in the README were taken with one prefetched job per worker (not yet the default).
  const options = { ...spawnOptions(service, WORKER_NODE_FLAGS), ...spawn };
  const proc = launchWorker(databaseUrl, { WORKER_PREFETCH: '1', ...env }, options);
  return serve(proc, service);
}

/** The load process: runs LoadCommands sent over IPC, one at a time. */
export class LoadProcess {
  readonly #child: ChildProcess;
  #seq = 0;
  readonly #waiting = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();

  constructor() {
    this.#child = fork(join(ROOT, 'bench/load.ts'), [], { cwd: ROOT, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    this.#child.on('message', (msg: { seq: number; ok: boolean; result?: unknown; error?: string }) => {
      const w = this.#waiting.get(msg.seq);
      this.#waiting.delete(msg.seq);
      if (msg.ok) w?.resolve(msg.result);
      else w?.reject(new Error(`load process: ${msg.error}`));
    });
    this.#child.on('exit', (code) => {
      for (const w of this.#waiting.values()) w.reject(new Error(`the load process exited (${code})`));
      this.#waiting.clear();
    });
  }

  get pid(): number {
    return this.#child.pid ?? 0;
  }

  call<C extends keyof LoadCommands>(cmd: C, args: LoadCommands[C]['args']): Promise<LoadCommands[C]['result']> {
    const seq = ++this.#seq;
    return new Promise((resolve, reject) => {
      this.#waiting.set(seq, { resolve: (v) => resolve(v as LoadCommands[C]['result']), reject });
      this.#child.send({ seq, cmd, args });
    });
  }

  async stop(): Promise<void> {
    if (this.#child.exitCode !== null) return;
    this.#child.kill('SIGTERM');
    await once(this.#child, 'exit');
  }
}

function statusKb(pid: number, field: string): number {
  const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) : Number.NaN;
}

/** Resident set size of a process, MB. */
export const rssMb = (pid: number): number => statusKb(pid, 'VmRSS') / 1024;
/** Peak resident set size since start or since resetPeakRss, MB. */
export const peakRssMb = (pid: number): number => statusKb(pid, 'VmHWM') / 1024;

/** Resets VmHWM to the current RSS (Linux ≥ 4.0, our own child). False if the kernel refuses. */
export function resetPeakRss(pid: number): boolean {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

const CLK_TCK = 100;
const PROC_STAT = /^(\d+) \((.*)\) \S (\d+)((?: -?\d+)+)$/s;

interface Stat {
  pid: number;
  comm: string;
  ppid: number;
  /** utime + stime, ms: every thread's CPU time. */
  cpuMs: number;
  /** cutime + cstime, ms: CPU time of children already reaped. */
  reapedMs: number;
}

function readStat(pid: number): Stat | null {
  try {
    const m = PROC_STAT.exec(readFileSync(`/proc/${pid}/stat`, 'utf8').trim());
    if (!m) return null;
    // Fields after ppid start at field 5 (pgrp); utime..cstime are fields 14..17.
    const f = m[4].trim().split(' ').map(Number);
    const tick = 1000 / CLK_TCK;
    return { pid, comm: m[2], ppid: Number(m[3]), cpuMs: (f[9] + f[10]) * tick, reapedMs: (f[11] + f[12]) * tick };
  } catch {
    return null;
  }
}

/**
 * CPU time used so far (ms) by each named process, and by `postgres`: every postgres process
 * descended from this one (the embedded server's postmaster and backends, including backends that
 * already exited). NaN for postgres when it is not ours (DATABASE_URL).
 */
export function cpuSnapshot(named: Record<string, number>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [name, pid] of Object.entries(named)) out[name] = readStat(pid)?.cpuMs ?? Number.NaN;
  const stats = readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .map((d) => readStat(Number(d)))
    .filter((s): s is Stat => s !== null);
  const children = new Map<number, Stat[]>();
  for (const s of stats) children.set(s.ppid, [...(children.get(s.ppid) ?? []), s]);
  let pg = 0;
  let found = false;
  const walk = (pid: number) => {
    for (const c of children.get(pid) ?? []) {
      if (c.comm === 'postgres') {
        found = true;
        pg += c.cpuMs + (readStat(c.ppid)?.comm === 'postgres' ? 0 : c.reapedMs);
      }
      walk(c.pid);
    }
  };
  walk(process.pid);
  out.postgres = found ? pg : Number.NaN;
  return out;
}

/** CPU ms per process between two snapshots. */
export function cpuSince(before: Record<string, number>, after: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.keys(after).map((k) => [k, after[k] - before[k]]));
}

/** CPU ms the whole machine has spent busy (all cores, everything but idle and iowait), from /proc/stat. */
export function machineBusyMs(): number {
  const f = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
  const [user, nice, system, , , irq, softirq, steal] = f;
  return (user + nice + system + irq + softirq + steal) * (1000 / CLK_TCK);
}

/** CPU ms used by this process and every child it has reaped (after cleanup: all of the bench's processes). */
export function ownCpuMs(): number {
  const s = readStat(process.pid);
  return s ? s.cpuMs + s.reapedMs : Number.NaN;
}

/** CPU ms by thread name within one process (MainThread, WorkerThread = engine threads, V8Worker = GC helpers, …). */
export function threadCpuMs(pid: number): Record<string, number> {
  const out: Record<string, number> = {};
  try {
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      const m = PROC_STAT.exec(readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8').trim());
      if (!m) continue;
      const f = m[4].trim().split(' ').map(Number);
      out[m[2]] = (out[m[2]] ?? 0) + (f[9] + f[10]) * (1000 / CLK_TCK);
    }
  } catch {
    // the process is gone
  }
  return out;
}
