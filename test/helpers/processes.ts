// Spawns the real web and worker processes, as the Procfile does, against a test database: for the
// tests (every log line kept) and for the bench (Node flags, a log file, only the lines it waits
// for parsed, so a busy web's request log costs the bench little).
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Arrivals } from './wait.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

type LogLine = Record<string, unknown>;

export interface Proc {
  child: ChildProcess;
  /** Every JSON log line the process printed (with `keepLines`, those that contain one of them). */
  logs: LogLine[];
  waitForLog(predicate: (line: LogLine) => boolean, timeoutMs?: number): Promise<LogLine>;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
  /** Resolves with the exit code once the process has exited. */
  exited: Promise<number | null>;
  /** Its stderr and last log lines, for a failure message. */
  output(lines?: number): string;
}

export interface SpawnOptions {
  env?: Record<string, string>;
  /** Arguments after the entry point. */
  args?: readonly string[];
  /** Node flags before the entry point (the Procfile's, a CPU profile's). */
  nodeFlags?: readonly string[];
  /** Also write everything the process prints (stdout and stderr) to this file. */
  logFile?: string;
  /** Parse and keep only the stdout lines that contain one of these substrings (default: every line). */
  keepLines?: readonly string[];
  /** The entry point instead of the usual one (e.g. the bench's web baseline). */
  entry?: string;
  /** Another command line than this Node with the entry (a worker with its npm script's flags, in a cgroup). */
  argv?: [string, string[]];
}

/** Complete lines out of a stream's chunks; with `keep`, only those containing one of its strings. */
function lineSplitter(keep: readonly string[] | undefined, onLine: (line: string) => void): (chunk: string) => void {
  let rest = '';
  const wanted = (text: string) => !keep || keep.some((k) => text.includes(k));
  return (chunk) => {
    rest += chunk;
    const end = rest.lastIndexOf('\n');
    if (end < 0) return;
    const complete = rest.slice(0, end);
    rest = rest.slice(end + 1);
    // One scan of the chunk decides for most of a busy log that nothing in it is wanted.
    if (!wanted(complete)) return;
    for (const line of complete.split('\n')) if (wanted(line)) onLine(line);
  };
}

const parseLine = (line: string): LogLine => {
  try {
    return JSON.parse(line) as LogLine;
  } catch {
    return { msg: line };
  }
};

export function spawnProc(entry: string, options: SpawnOptions = {}): Proc {
  const [command, args] = options.argv ?? [
    process.execPath,
    [...(options.nodeFlags ?? []), entry, ...(options.args ?? [])],
  ];
  const child = spawn(command, args, {
    cwd: ROOT,
    env: { ...process.env, LOG_LEVEL: 'info', ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines = new Arrivals<LogLine>();
  const log = options.logFile ? createWriteStream(options.logFile) : null;
  if (log) child.once('close', () => log.end());
  const split = lineSplitter(options.keepLines, (line) => lines.push(parseLine(line)));
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
    log?.write(chunk);
    split(chunk);
  });
  let stderr = '';
  child.stderr?.setEncoding('utf8').on('data', (c: string) => {
    log?.write(c);
    stderr = (stderr + c).slice(-10_000);
  });
  const exited = once(child, 'exit').then(([code]) => code as number | null);
  const logs = lines.items;
  // What a failure message shows: stderr and the last log lines (the processes log to stdout).
  const output = (n = 5) =>
    `stderr: ${stderr.slice(-2000)}; last log lines: ${logs
      .slice(-n)
      .map((l) => JSON.stringify(l).slice(0, 400))
      .join(' | ')}`;
  return {
    child,
    logs,
    exited,
    output,
    waitForLog(predicate, timeoutMs = 60_000) {
      return lines.until(predicate, {
        timeoutMs,
        timedOut: () => new Error(`${entry}: log line not seen in ${timeoutMs} ms; ${output()}`),
        ended: exited.then((code) => new Error(`${entry} exited (${code}) before the log line; ${output()}`)),
      });
    },
    async stop(signal = 'SIGTERM') {
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
      child.kill(signal);
      return exited;
    },
  };
}

export interface Web extends Proc {
  baseUrl: string;
  port: number;
}

/** The web's line once it listens (its port in it). */
export const webListens = (l: LogLine) => typeof l.port === 'number' && String(l.msg).startsWith('listening');

/** The quotas a test or a bench would otherwise run into (docs/configuration.md); 0 is none. */
export const QUOTAS_OFF = { QUOTA_REQUESTS_PER_MINUTE: '0', QUOTA_QUEUED_VARIANTS: '0' };

/** Spawns the web without waiting for it to listen (it may be waiting for its database). */
export function launchWeb(databaseUrl: string, env: Record<string, string> = {}, options: SpawnOptions = {}): Proc {
  // Tests: every JSON answer checked against its route's declared schema (a mismatch is a 500).
  // Tests and benches drive one workspace harder than a client may: the request and queue quotas
  // are off unless a test sets them (test/quotas.test.ts).
  return spawnProc(options.entry ?? 'test/helpers/web.checked.ts', {
    ...options,
    env: { DATABASE_URL: databaseUrl, PORT: '0', HOST: '127.0.0.1', ...QUOTAS_OFF, ...env },
  });
}

/** Waits for a launched web's "listening" line. */
export async function webListening(proc: Proc, timeoutMs = 60_000): Promise<Web> {
  const line = await proc.waitForLog(webListens, timeoutMs);
  const port = line.port as number;
  return { ...proc, port, baseUrl: `http://127.0.0.1:${port}` };
}

export async function startWeb(
  databaseUrl: string,
  env: Record<string, string> = {},
  options: SpawnOptions = {},
): Promise<Web> {
  return webListening(launchWeb(databaseUrl, env, options));
}

/** Spawns the worker without waiting for it to start (it may be waiting for its database). */
export function launchWorker(databaseUrl: string, env: Record<string, string> = {}, options: SpawnOptions = {}): Proc {
  return spawnProc(options.entry ?? 'worker/main.ts', { ...options, env: { DATABASE_URL: databaseUrl, ...env } });
}

export const workerStarted = (l: LogLine) => l.msg === 'worker started';

/**
 * A worker whose every calculation takes `delayMs` longer (test/helpers/worker.slow.ts), so a test
 * can act while one is under way: `startWorker(url, env, slowEngine(3000))`.
 */
export const slowEngine = (delayMs: number): SpawnOptions => ({
  entry: 'test/helpers/worker.slow.ts',
  args: [String(delayMs)],
});

export async function startWorker(
  databaseUrl: string,
  env: Record<string, string> = {},
  options: SpawnOptions = {},
): Promise<Proc> {
  const proc = launchWorker(databaseUrl, env, options);
  await proc.waitForLog(workerStarted);
  return proc;
}
