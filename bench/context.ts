// What every figure group gets from bench/run.ts: the sizes of this run, the load process, the
// cluster, a pool per database for the orchestrator's own queries, and where rows and notes go.
import type pg from 'pg';
import { quietPool } from '../test/helpers/db.ts';
import type { Cluster } from './cluster.ts';
import type { EngineFigures } from './figures.engine.ts';
import type { LoadProcess } from './procs.ts';
import type { Row } from './table.ts';

export interface Sizes {
  engineWarmup: number;
  engineRuns: number;
  notifySamples: number;
  pickupSamples: number;
  endToEndSamples: number;
  createConnections: number;
  createWarmupMs: number;
  createMs: number;
  backlog: number;
  /** The most one backlog drain may take; the rate is then over what finished. */
  drainLimitMs: number;
  sseStreams: number;
  sseBroadcasts: number;
  statementSamples: number;
  statementClients: number;
  statementLoadMs: number;
  notModifiedSamples: number;
  listRows: number;
  listRuns: number;
}

export const FULL: Sizes = {
  engineWarmup: 10,
  engineRuns: 40,
  notifySamples: 300,
  pickupSamples: 300,
  endToEndSamples: 30,
  createConnections: 50,
  createWarmupMs: 2_000,
  createMs: 10_000,
  backlog: 1_000,
  drainLimitMs: 170_000,
  sseStreams: 5_000,
  sseBroadcasts: 7,
  statementSamples: 50,
  statementClients: 10,
  statementLoadMs: 5_000,
  notModifiedSamples: 500,
  listRows: 100_000,
  listRuns: 3,
};

/** `--quick`: the same steps with small counts, to see that everything runs. */
export const QUICK: Sizes = {
  engineWarmup: 3,
  engineRuns: 10,
  notifySamples: 50,
  pickupSamples: 20,
  endToEndSamples: 5,
  createConnections: 50,
  createWarmupMs: 500,
  createMs: 2_000,
  backlog: 40,
  drainLimitMs: 30_000,
  sseStreams: 500,
  sseBroadcasts: 1,
  statementSamples: 10,
  statementClients: 10,
  statementLoadMs: 1_000,
  notModifiedSamples: 100,
  listRows: 10_000,
  listRuns: 1,
};

export interface Bench {
  quick: boolean;
  sizes: Sizes;
  logDir: string;
  load: LoadProcess;
  cluster: Cluster;
  engine: EngineFigures;
  rows: Row[];
  /** Context lines printed under the table: what the figures are made of. */
  notes: string[];
  /** Groups left out of this run, and why (e.g. no Chromium for #13): listed in bench/results.json. */
  skipped: string[];
  /** A pool on `url` for the orchestrator's own queries (polling, seeding, sizes). */
  pool(url: string): pg.Pool;
}

export function poolCache(): { pool(url: string): pg.Pool; end(): Promise<void> } {
  const pools = new Map<string, pg.Pool>();
  return {
    pool(url) {
      let p = pools.get(url);
      if (!p) {
        p = quietPool(url, { max: 2, applicationName: 'hourglass-bench' });
        pools.set(url, p);
      }
      return p;
    },
    async end() {
      await Promise.all([...pools.values()].map((p) => p.end().catch(() => {})));
      pools.clear();
    },
  };
}

export const count = (n: number): string => n.toLocaleString('en-US');
