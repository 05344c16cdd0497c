// Bad market input through the real HTTP API: each a 400 problem+json naming the field by JSON
// Pointer, with nothing written (no scenario, no job); a 25-year merchant price forecast is accepted.
import t from 'tap';
import { HOURS_PER_YEAR } from '../shared/calendar.ts';
import { type BadInput, postRaw, rejectsEach, rowCounts } from './helpers/bad-input.ts';
import { DEFAULT_SCENARIO } from './helpers/http.ts';
import { startStack } from './helpers/stack.ts';

const stack = await startStack();
t.teardown(() => stack.stop());

const years = (n: number) => Array.from({ length: Math.round(n * HOURS_PER_YEAR) }, (_, h) => 30 + (h % 24));
const prices = (series: number[]) => ({ ...DEFAULT_SCENARIO, market: { merchant_hourly_prices: series } });

const cases: BadInput[] = [
  {
    name: 'a price forecast of 8,761 values',
    body: prices(years(1).concat([1])),
    path: '/market/merchant_hourly_prices',
    message: /8,760 × n/,
  },
  {
    name: 'a price forecast of 1.5 years',
    body: prices(years(1.5)),
    path: '/market/merchant_hourly_prices',
    message: /8,760 × n/,
  },
  { name: 'a price forecast of 8,759 values', body: prices(years(1).slice(1)), path: '/market/merchant_hourly_prices' },
  {
    name: 'a price forecast of 26 years',
    body: prices(years(26)),
    path: '/market/merchant_hourly_prices',
    message: /219000/,
  },
];

rejectsEach(t, stack, cases);

t.test('a 25-year merchant price forecast is accepted', async (t) => {
  const res = await postRaw(stack.web.baseUrl, prices(years(25)));
  t.equal(res.status, 201, 'created');
  t.same(await rowCounts(stack.pool), { scenarios: 1, jobs: 1 }, 'one scenario, one job');
});
