// Sustained load with a crashing worker. 20 concurrent clients create scenarios at a steady rate,
// each retrying on network errors (some of them provoked: the client gives up on a request after a
// few ms, not knowing whether it was committed) with the same Idempotency-Key. Two workers
// calculate; one is killed (SIGKILL) and restarted twice during the run. Afterwards: exactly the
// number of scenarios asked for, all succeeded, one result each, every event log gapless from 1.
//
// CI creates 300 scenarios over 10 s. HOURGLASS_SOAK=1 creates 5,000 over 60 s (about 10 minutes
// on two cores); HOURGLASS_SOAK_COUNT and HOURGLASS_SOAK_SECONDS set any other size.
import t from 'tap';
import {
  alive,
  auditScenarios,
  problemsOf,
  statusCounts,
  waitForAllFinished,
  waitForJobsSettled,
} from './helpers/faults.ts';
import { DEFAULT_SCENARIO } from './helpers/http.ts';
import { slowEngine } from './helpers/processes.ts';
import { startStack } from './helpers/stack.ts';
import { waitUntil } from './helpers/wait.ts';

const soak = process.env.HOURGLASS_SOAK === '1';
const COUNT = Number(process.env.HOURGLASS_SOAK_COUNT) || (soak ? 5000 : 300);
const CREATE_SECONDS = Number(process.env.HOURGLASS_SOAK_SECONDS) || (soak ? 60 : 10);
const CLIENTS = 20;
/** Share of requests the client abandons after a few ms, as a dropped connection would. */
const ABANDON = 0.03;
// Generous: two workers on two cores do ~10 scenarios a second, and each kill costs one heartbeat.
const DRAIN_MS = 120_000 + COUNT * 400;

const HEARTBEAT = { JOB_HEARTBEAT_SECONDS: '10', SUPERVISE_INTERVAL_SECONDS: '1' };
// The worker that is killed takes ~half a second a calculation, so a kill lands inside one: at
// ~70 ms a calculation, a kill could fall between a result's commit and the next claim, costing
// nothing to retry (both kills did, once in CI).
const CRASHING = slowEngine(500);
// The runner's default per-file timeout (300 s) is too short for the soak; this tells it.
t.setTimeout(CREATE_SECONDS * 1000 + DRAIN_MS + 120_000);

const stack = await startStack({ web: false });
t.teardown(() => stack.stop());

interface Outcome {
  key: string;
  id: string;
  tries: number;
  replayed: boolean;
}

interface ClientStats {
  networkErrors: number;
  abandoned: number;
  unavailable: number;
  unexpected: string[];
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** One create, retried with the same key until it gets its 201. */
async function createOnce(baseUrl: string, i: number, stats: ClientStats): Promise<Outcome> {
  const key = `load-${i}`;
  const body = JSON.stringify({
    ...DEFAULT_SCENARIO,
    name: `load ${i}`,
    solar: { capacity_mw_dc: 50 + (i % 100) },
  });
  for (let tries = 1; ; tries++) {
    const abandon = Math.random() < ABANDON;
    try {
      const res = await fetch(`${baseUrl}/api/scenarios`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'idempotency-key': key },
        body,
        signal: AbortSignal.timeout(abandon ? 1 + Math.floor(Math.random() * 20) : 30_000),
      });
      const text = await res.text();
      if (res.status === 201) {
        const id = (JSON.parse(text) as { id: string }).id;
        return { key, id, tries, replayed: res.headers.get('idempotent-replayed') === 'true' };
      }
      if (res.status === 503) stats.unavailable++;
      else {
        stats.unexpected.push(`${key}: ${res.status} ${text.slice(0, 200)}`);
        throw new Error(`unexpected ${res.status}`);
      }
    } catch (err) {
      if ((err as Error).message.startsWith('unexpected')) throw err;
      if (abandon) stats.abandoned++;
      else stats.networkErrors++;
    }
    await sleep(Math.min(1000, 20 * tries));
  }
}

t.test(`${COUNT} scenarios from ${CLIENTS} clients, a worker killed twice`, async (t) => {
  const web = await stack.startWeb(HEARTBEAT);
  const steady = await stack.startWorker(HEARTBEAT);
  let crashing = await stack.startWorker(HEARTBEAT, CRASHING);

  const stats: ClientStats = { networkErrors: 0, abandoned: 0, unavailable: 0, unexpected: [] };
  const outcomes: Outcome[] = [];
  const started = Date.now();
  const interval = (CREATE_SECONDS * 1000) / COUNT;
  const clients = Array.from({ length: CLIENTS }, async (_, c) => {
    for (let i = c; i < COUNT; i += CLIENTS) {
      const due = started + i * interval;
      if (due > Date.now()) await sleep(due - Date.now());
      outcomes.push(await createOnce(web.baseUrl, i, stats));
    }
  });

  // Kill the second worker twice while there is a backlog (so it is mid-calculation), restarting it
  // each time; the steady worker and the restarted one take the lost jobs over.
  const kills = (async () => {
    for (const share of [0.3, 0.6]) {
      await waitUntil(
        async () =>
          (await stack.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM scenarios')).rows[0].n >=
          COUNT * share,
        { timeoutMs: DRAIN_MS, what: `${share * 100} % created` },
      );
      await waitUntil(async () => (await statusCounts(stack.pool)).running >= 2, {
        timeoutMs: 30_000,
        what: 'both workers busy',
      });
      await crashing.stop('SIGKILL');
      crashing = await stack.startWorker(HEARTBEAT, CRASHING);
    }
  })();
  kills.catch(() => {}); // awaited below; a failure must not surface as an unhandled rejection first

  await Promise.all(clients);
  const createdIn = (Date.now() - started) / 1000;
  await kills;
  await waitForAllFinished(stack.pool, DRAIN_MS);
  const drainedIn = (Date.now() - started) / 1000;

  t.same(stats.unexpected, [], 'no create was answered with anything but 201 or 503');
  t.equal(outcomes.length, COUNT, 'every client create got its 201');
  const ids = new Set(outcomes.map((o) => o.id));
  t.equal(ids.size, COUNT, 'one distinct scenario per Idempotency-Key');
  const { rows } = await stack.pool.query<{ n: number; keys: number }>(
    'SELECT count(*)::int AS n, count(DISTINCT idempotency_key)::int AS keys FROM scenarios',
  );
  t.same(rows[0], { n: COUNT, keys: COUNT }, `exactly ${COUNT} scenarios in the database, one per key`);

  await waitForJobsSettled(stack.pool);
  const audits = await auditScenarios(stack.pool);
  t.ok(
    audits.every((a) => ids.has(a.id)),
    'every stored scenario is one a client was told about',
  );
  const problems = audits.flatMap((a) => problemsOf(a));
  t.same(problems.slice(0, 20), [], 'all succeeded, exactly one result each, event seqs 1..last_seq without gaps');
  t.equal(problems.length, 0);
  t.ok(
    audits.every((a) => a.job_state === 'completed'),
    'every job completed',
  );
  const retried = audits.filter((a) => a.attempt > 1).length;
  t.ok(retried >= 1, `the kills cost running calculations, which were retried (${retried})`);
  t.ok(alive(web) && alive(steady) && alive(crashing), 'the web, the steady worker and the restarted one are up');

  const replays = outcomes.filter((o) => o.replayed).length;
  const retriedCreates = outcomes.filter((o) => o.tries > 1).length;
  t.comment(
    `${COUNT} created in ${createdIn.toFixed(1)} s, all succeeded after ${drainedIn.toFixed(1)} s; ` +
      `${retriedCreates} creates retried (${stats.abandoned} abandoned, ${stats.networkErrors} network errors, ` +
      `${stats.unavailable} 503s), ${replays} answered as replays; ${retried} calculations retried after the kills`,
  );
});
