// The bench's side of bench/peer.ssc.driver.c: one driver process, scripts written to its stdin,
// its answers read back line by line. One run at a time.
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { createInterface, type Interface } from 'node:readline';

export interface SscRun {
  /** The driver's wall clock from `data` to `end`: setting the inputs and every module, ms. */
  ms: number;
  /** The driver process's CPU time over the same interval (every thread, user + system), ms. */
  cpuMs: number;
  /** Each module's own wall time, ms. */
  modules: Record<string, number>;
  /** Each module's own CPU time, ms. */
  moduleCpu: Record<string, number>;
  numbers: Record<string, number>;
  sums: Record<string, number>;
}

/** A CPU time the driver printed; a driver compiled before it printed them is an error, not a NaN row. */
function cpuField(value: string | undefined, line: string): number {
  const ms = Number(value);
  if (value === undefined || !Number.isFinite(ms)) throw new Error(`the SSC driver printed no CPU time: ${line}`);
  return ms;
}

export class SscDriver {
  private readonly child: ChildProcessWithoutNullStreams;
  private readonly lines: Interface;
  private readonly queue: string[] = [];
  private waiting: ((line: string | null) => void) | null = null;
  private closed = false;
  /** The first line: `ssc_version()` and `ssc_build_info()`. */
  version = '';

  constructor(path: string) {
    this.child = spawn(path, [], { stdio: ['pipe', 'pipe', 'pipe'] });
    this.lines = createInterface({ input: this.child.stdout });
    this.lines.on('line', (line) => {
      if (this.waiting) {
        const w = this.waiting;
        this.waiting = null;
        w(line);
      } else this.queue.push(line);
    });
    this.lines.on('close', () => {
      this.closed = true;
      this.waiting?.(null);
    });
  }

  private next(): Promise<string | null> {
    const line = this.queue.shift();
    if (line !== undefined) return Promise.resolve(line);
    if (this.closed) return Promise.resolve(null);
    return new Promise((resolve) => {
      this.waiting = resolve;
    });
  }

  async start(): Promise<string> {
    const first = await this.next();
    if (!first?.startsWith('version ')) throw new Error(`the SSC driver did not start: ${first}`);
    this.version = first.slice('version '.length);
    return this.version;
  }

  /** Runs one script (ending in `end`); a module's failure is thrown with SSC's own message. */
  async run(script: readonly string[]): Promise<SscRun> {
    this.child.stdin.write(`${script.join('\n')}\n`);
    const out: SscRun = { ms: Number.NaN, cpuMs: Number.NaN, modules: {}, moduleCpu: {}, numbers: {}, sums: {} };
    for (;;) {
      const line = await this.next();
      if (line === null) throw new Error('the SSC driver exited');
      const [kind, name, value, cpu] = line.split(' ');
      if (kind === 'fail') throw new Error(`SSC: ${line.slice(5)}`);
      if (kind === 'exec') {
        out.modules[name] = Number(value);
        out.moduleCpu[name] = cpuField(cpu, line);
      } else if (kind === 'num') out.numbers[name] = Number(value);
      else if (kind === 'sum') out.sums[name] = Number(value);
      else if (kind === 'none') throw new Error(`SSC gave no output ${name}`);
      else if (kind === 'run') {
        out.ms = Number(name);
        out.cpuMs = cpuField(value, line);
        return out;
      }
    }
  }

  async stop(): Promise<void> {
    this.child.stdin.end();
    if (this.child.exitCode === null) await new Promise((resolve) => this.child.once('exit', resolve));
  }
}
