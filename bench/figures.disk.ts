// #11: disk per scenario, over every scenario the main database holds once the queue figures have
// run: our three tables (heap, TOAST and indexes) plus pg-boss's job rows, divided by the count.
import type { Bench } from './context.ts';
import { count } from './context.ts';

export async function diskPerScenario(b: Bench, url: string): Promise<void> {
  const { rows } = await b.pool(url).query<{
    scenarios: number;
    ours: number;
    results: number;
    events: number;
    jobs: number;
  }>(
    `SELECT (SELECT count(*) FROM scenarios)::float8 AS scenarios,
            (pg_total_relation_size('scenarios') + pg_total_relation_size('scenario_events')
              + pg_total_relation_size('scenario_results'))::float8 AS ours,
            pg_total_relation_size('scenario_results')::float8 AS results,
            pg_total_relation_size('scenario_events')::float8 AS events,
            (SELECT coalesce(sum(pg_total_relation_size(relid)), 0) FROM pg_partition_tree('pgboss.job'))::float8 AS jobs`,
  );
  const r = rows[0];
  const mb = (bytes: number) => bytes / r.scenarios / 1024 / 1024;
  const perScenario = mb(r.ours + r.jobs);
  b.rows.push(
    {
      n: '11',
      figure: `Disk per scenario (${count(r.scenarios)} scenarios, tables + pg-boss jobs)`,
      value: perScenario,
      unit: 'MB',
      target: '≤ 2 MB',
      met: perScenario <= 2,
    },
    {
      n: '11',
      figure: 'of which scenario_results',
      value: mb(r.results),
      unit: 'MB',
      target: 'context',
      met: null,
    },
  );
  b.notes.push(
    `#11: per scenario: results ${(mb(r.results) * 1024).toFixed(0)} kB, events ${(mb(r.events) * 1024).toFixed(1)} kB, scenarios ${(mb(r.ours - r.results - r.events) * 1024).toFixed(1)} kB, pg-boss jobs ${(mb(r.jobs) * 1024).toFixed(1)} kB`,
  );
}
