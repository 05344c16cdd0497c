// What the bad-input tests of scenario creation share: posting a body as it is, the count of
// scenarios and calculate jobs (nothing may be written for a rejected body), and the check that a
// body is rejected as a 400 problem+json naming the field.
import type pg from 'pg';
import type { Test } from 'tap';
import type { Stack } from './stack.ts';

/** POST /api/scenarios with `body` as JSON, or as it is when it is a string (what JSON.stringify cannot write). */
export const postRaw = (baseUrl: string, body: unknown): Promise<Response> =>
  fetch(`${baseUrl}/api/scenarios`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });

/** How many scenarios and calculate jobs the database holds. */
export async function rowCounts(pool: pg.Pool): Promise<{ scenarios: number; jobs: number }> {
  const { rows } = await pool.query<{ scenarios: number; jobs: number }>(
    `SELECT (SELECT count(*)::int FROM scenarios) AS scenarios, (SELECT count(*)::int FROM pgboss.job WHERE name = 'calculate') AS jobs`,
  );
  return rows[0];
}

export interface BadInput {
  name: string;
  /** A body, or its JSON text. */
  body: unknown;
  /** The JSON Pointer the problem must name, with a message. */
  path: string;
  /** What that message must say. */
  message?: RegExp;
}

/** A subtest per case: a 400 problem+json whose errors name the case's path (and say its message), and no row written. */
export function rejectsEach(t: Test, stack: Stack, cases: readonly BadInput[]): void {
  for (const c of cases) {
    t.test(c.name, async (t) => {
      const res = await postRaw(stack.web.baseUrl, c.body);
      t.equal(res.status, 400, 'status');
      t.match(res.headers.get('content-type'), /^application\/problem\+json/);
      const problem = (await res.json()) as { errors?: Array<{ path: string; message: string }> };
      const named = problem.errors?.find((e) => e.path === c.path && e.message.length > 0);
      t.ok(named, `names ${c.path}: ${JSON.stringify(problem.errors).slice(0, 300)}`);
      if (c.message) t.match(named?.message ?? '', c.message, 'says what and where');
      t.same(await rowCounts(stack.pool), { scenarios: 0, jobs: 0 }, 'no row created');
    });
  }
}
