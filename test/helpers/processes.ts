// Spawns the real web and worker processes, as the Procfile does, against a test database.
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface Proc {
  child: ChildProcess;
  /** Every JSON log line the process printed. */
  logs: Array<Record<string, unknown>>;
  waitForLog(
    predicate: (line: Record<string, unknown>) => boolean,
    timeoutMs?: number,
  ): Promise<Record<string, unknown>>;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
  /** Resolves with the exit code once the process has exited. */
  exited: Promise<number | null>;
  /** Its stderr and last log lines, for a failure message. */
  output(lines?: number): string;
}

/** `argv`: another command line than this Node with `entry` (a worker with its npm script's flags, in a cgroup). */
function spawnProc(entry: string, env: Record<string, string>, argv?: [string, string[]]): Proc {
  const [command, args] = argv ?? [process.execPath, [entry]];
  const child = spawn(command, args, {
    cwd: ROOT,
    env: { ...process.env, LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const logs: Array<Record<string, unknown>> = [];
  const waiters = new Set<() => void>();
  let buffer = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
    buffer += chunk;
    let nl = buffer.indexOf('\n');
    while (nl >= 0) {
      const line = buffer.slice(0, nl);
      buffer = buffer.slice(nl + 1);
      try {
        logs.push(JSON.parse(line) as Record<string, unknown>);
      } catch {
        logs.push({ msg: line });
      }
      nl = buffer.indexOf('\n');
    }
    for (const w of waiters) w();
  });
  let stderr = '';
  child.stderr?.setEncoding('utf8').on('data', (c: string) => {
    stderr += c;
  });
  const exited = once(child, 'exit').then(([code]) => code as number | null);
  // What a failure message shows: stderr and the last log lines (the processes log to stdout).
  const output = (lines = 5) =>
    `stderr: ${stderr.slice(-2000)}; last log lines: ${logs
      .slice(-lines)
      .map((l) => JSON.stringify(l).slice(0, 400))
      .join(' | ')}`;
  return {
    child,
    logs,
    exited,
    output,
    waitForLog(predicate, timeoutMs = 20_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const hit = logs.find(predicate);
          if (hit) {
            waiters.delete(check);
            clearTimeout(timer);
            resolve(hit);
          }
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`${entry}: log line not seen in ${timeoutMs} ms; ${output()}`));
        }, timeoutMs);
        waiters.add(check);
        void exited.then((code) => {
          if (waiters.has(check)) {
            waiters.delete(check);
            clearTimeout(timer);
            reject(new Error(`${entry} exited (${code}) before the log line; ${output()}`));
          }
        });
        check();
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

/** Spawns the web without waiting for it to listen (it may be waiting for its database). */
export function launchWeb(databaseUrl: string, env: Record<string, string> = {}): Proc {
  return spawnProc('server/main.ts', { DATABASE_URL: databaseUrl, PORT: '0', HOST: '127.0.0.1', ...env });
}

/** Waits for a launched web's "listening" line. */
export async function webListening(proc: Proc, timeoutMs = 20_000): Promise<Web> {
  const line = await proc.waitForLog(
    (l) => typeof l.port === 'number' && String(l.msg).startsWith('listening'),
    timeoutMs,
  );
  const port = line.port as number;
  return { ...proc, port, baseUrl: `http://127.0.0.1:${port}` };
}

export async function startWeb(databaseUrl: string, env: Record<string, string> = {}): Promise<Web> {
  return webListening(launchWeb(databaseUrl, env));
}

/** Spawns the worker without waiting for it to start (it may be waiting for its database). */
export function launchWorker(databaseUrl: string, env: Record<string, string> = {}, argv?: [string, string[]]): Proc {
  return spawnProc('worker/main.ts', { DATABASE_URL: databaseUrl, ...env }, argv);
}

export const workerStarted = (l: Record<string, unknown>) => l.msg === 'worker started';

export async function startWorker(databaseUrl: string, env: Record<string, string> = {}): Promise<Proc> {
  const proc = launchWorker(databaseUrl, env);
  await proc.waitForLog(workerStarted);
  return proc;
}
