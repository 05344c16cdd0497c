// retryWithBackoff (shared/startup.backoff.ts): what is retried, how long it waits, what stops it.
import t from 'tap';
import { isConfigurationError, retryWithBackoff } from '../shared/startup.backoff.ts';

function recorder() {
  const warnings: Array<Record<string, unknown>> = [];
  const infos: Array<Record<string, unknown>> = [];
  return {
    warnings,
    infos,
    logger: {
      warn: (obj: object) => warnings.push(obj as Record<string, unknown>),
      info: (obj: object) => infos.push(obj as Record<string, unknown>),
    },
  };
}

const refused = () => Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });

t.test('retries until the attempt succeeds, doubling the delay up to the cap, logging each attempt', async (t) => {
  const log = recorder();
  let calls = 0;
  const value = await retryWithBackoff(
    'start',
    async () => {
      calls++;
      if (calls < 5) throw refused();
      return 'up';
    },
    log.logger,
    { firstDelayMs: 5, maxDelayMs: 12 },
  );
  t.equal(value, 'up', 'the attempt value');
  t.equal(calls, 5);
  t.same(
    log.warnings.map((w) => [w.attempt, w.retryInMs]),
    [
      [1, 5],
      [2, 10],
      [3, 12],
      [4, 12],
    ],
    'attempt numbers and delays: doubling, capped',
  );
  t.match(log.warnings[0], { err: /ECONNREFUSED/ }, 'the error is logged');
  t.match(log.infos, [{ attempt: 5 }], 'success after retries is logged');
});

t.test('a configuration error is thrown at once, without a retry', async (t) => {
  const log = recorder();
  let calls = 0;
  const auth = Object.assign(new Error('password authentication failed for user "x"'), { code: '28P01' });
  await t.rejects(
    retryWithBackoff(
      'start',
      async () => {
        calls++;
        throw auth;
      },
      log.logger,
      { firstDelayMs: 5, maxDelayMs: 10 },
    ),
    auth,
  );
  t.equal(calls, 1, 'one attempt');
  t.equal(log.warnings.length, 0, 'no retry logged');
});

t.test('which errors are configuration errors', async (t) => {
  t.ok(isConfigurationError(Object.assign(new Error('x'), { code: '28000' })), '28000: invalid authorization');
  t.ok(isConfigurationError(Object.assign(new Error('x'), { code: '28P01' })), '28P01: wrong password');
  t.ok(isConfigurationError(new TypeError('Invalid URL')), 'an unparseable URL');
  for (const code of ['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', '57P03', '3D000', '42P01']) {
    t.notOk(isConfigurationError(Object.assign(new Error('x'), { code })), `${code}: retried`);
  }
  t.notOk(isConfigurationError(new Error('pg-boss is not installed')), 'a schema not yet migrated: retried');
});
