// Bad ancillary-service input through the real HTTP API (docs/markets.md, "Ancillary services"):
// each a 400 problem+json naming the field by JSON Pointer, with nothing written (no scenario, no
// job); a battery with two products is accepted.
import t from 'tap';
import { HOURS_PER_YEAR } from '../shared/calendar.ts';
import { type BadInput, postRaw, rejectsEach, rowCounts } from './helpers/bad-input.ts';
import { DEFAULT_SCENARIO } from './helpers/http.ts';
import { startStack } from './helpers/stack.ts';

const stack = await startStack();
t.teardown(() => stack.stop());

const battery = { power_mw: 20, energy_mwh: 80 };
const product = { name: 'reg_up', direction: 'up', price_per_mw_hour: 10, duration_hours: 1, deployed_share: 0.1 };
const withProducts = (products: unknown[], storage: unknown = battery) => ({
  ...DEFAULT_SCENARIO,
  ...(storage ? { storage } : {}),
  market: { ancillary: products },
});

const cases: BadInput[] = [
  {
    name: 'a product without a battery',
    body: withProducts([product], null),
    path: '/market/ancillary',
    message: /need a battery/,
  },
  {
    name: 'a product with a battery of power 0',
    body: withProducts([product], { power_mw: 0, energy_mwh: 0 }),
    path: '/market/ancillary',
    message: /need a battery/,
  },
  {
    name: 'a duration of 0',
    body: withProducts([{ ...product, duration_hours: 0 }]),
    path: '/market/ancillary/0/duration_hours',
  },
  {
    name: 'a price series of 8,759 values',
    body: withProducts([
      product,
      { ...product, name: 'reg_down', price_per_mw_hour: new Array(HOURS_PER_YEAR - 1).fill(5) },
    ]),
    path: '/market/ancillary/1/price_per_mw_hour',
  },
  {
    name: 'a deployed share above 1',
    body: withProducts([{ ...product, deployed_share: 1.2 }]),
    path: '/market/ancillary/0/deployed_share',
  },
  {
    name: 'a product on a battery that serves a load',
    body: {
      ...withProducts([product], { ...battery, dispatch: { strategy: 'load' } }),
      load: { flat_mw: 10 },
    },
    path: '/market/ancillary',
    message: /arbitrage or capture/,
  },
  {
    name: 'two products of one name',
    body: withProducts([product, { ...product, direction: 'down' }]),
    path: '/market/ancillary/1/name',
  },
];

rejectsEach(t, stack, cases);

t.test('a battery with an up and a down product, prices hourly and flat, is accepted', async (t) => {
  const hourly = Array.from({ length: HOURS_PER_YEAR }, (_, h) => 5 + (h % 24));
  const res = await postRaw(
    stack.web.baseUrl,
    withProducts([product, { ...product, name: 'reg_down', direction: 'down', price_per_mw_hour: hourly }]),
  );
  t.equal(res.status, 201, 'created');
  t.same(await rowCounts(stack.pool), { scenarios: 1, jobs: 1 }, 'one scenario, one job');
});
