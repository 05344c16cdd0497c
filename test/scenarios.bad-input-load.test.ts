// Bad load and generation-profile input: each a 400 problem+json naming the field by JSON Pointer,
// with nothing written (no scenario, no job); and a body of several MB (25 years of hourly load
// and of a solar profile) is accepted.
import t from 'tap';
import { HOURS_PER_YEAR } from '../shared/calendar.ts';
import { type BadInput, postRaw, rejectsEach, rowCounts } from './helpers/bad-input.ts';
import { DEFAULT_SCENARIO } from './helpers/http.ts';
import { startStack } from './helpers/stack.ts';

const stack = await startStack();
t.teardown(() => stack.stop());

const year = (mw: number) => Array(HOURS_PER_YEAR).fill(mw);
const profile = (hourly: unknown) => ({ capacity_mw_dc: 100, profile: { hourly_mw: hourly, for_capacity_mw_dc: 100 } });
const load = { flat_mw: 50 };

const cases: BadInput[] = [
  {
    name: 'a profile of 8,761 values',
    body: { ...DEFAULT_SCENARIO, solar: profile(year(1).concat([1])) },
    path: '/solar/profile/hourly_mw',
  },
  {
    name: 'a profile of 8,759 values',
    body: { ...DEFAULT_SCENARIO, solar: profile(year(1).slice(1)) },
    path: '/solar/profile/hourly_mw',
  },
  {
    name: 'a profile of 1.5 years',
    body: { ...DEFAULT_SCENARIO, solar: profile([...year(1), ...year(1).slice(0, 4380)]) },
    path: '/solar/profile/hourly_mw',
  },
  {
    name: 'a negative profile value',
    body: {
      ...DEFAULT_SCENARIO,
      wind: { profile: { hourly_mw: year(1).map((v, i) => (i === 5 ? -1 : v)), for_capacity_mw: 100 } },
    },
    path: '/wind/profile/hourly_mw/5',
  },
  {
    name: 'a profile value of 1e400 (Infinity once parsed)',
    body: JSON.stringify({ ...DEFAULT_SCENARIO, solar: profile(year(1)) }).replace(
      '"hourly_mw":[1,',
      '"hourly_mw":[1e400,',
    ),
    path: '/solar/profile/hourly_mw/0',
  },
  {
    name: 'a profile value that is not a number',
    body: { ...DEFAULT_SCENARIO, solar: profile(year(1).map((v, i) => (i === 7 ? 'x' : v))) },
    path: '/solar/profile/hourly_mw/7',
  },
  {
    name: 'for_capacity_mw_dc of 0',
    body: { ...DEFAULT_SCENARIO, solar: { profile: { hourly_mw: year(1), for_capacity_mw_dc: 0 } } },
    path: '/solar/profile/for_capacity_mw_dc',
  },
  {
    name: 'for_capacity_mw of 0',
    body: { ...DEFAULT_SCENARIO, wind: { profile: { hourly_mw: year(1), for_capacity_mw: 0 } } },
    path: '/wind/profile/for_capacity_mw',
  },
  {
    name: 'a load of 8,760 + 100 values',
    body: { ...DEFAULT_SCENARIO, load: { hourly_mw: year(5).concat(year(5).slice(0, 100)) } },
    path: '/load/hourly_mw',
  },
  {
    name: 'a negative load',
    body: { ...DEFAULT_SCENARIO, load: { hourly_mw: year(5).map((v, i) => (i === 9 ? -5 : v)) } },
    path: '/load/hourly_mw/9',
  },
  {
    name: 'a load value of -1e400',
    body: JSON.stringify({ ...DEFAULT_SCENARIO, load: { hourly_mw: year(5) } }).replace(
      '"hourly_mw":[5,',
      '"hourly_mw":[-1e400,',
    ),
    path: '/load/hourly_mw/0',
  },
  { name: 'a negative flat load', body: { ...DEFAULT_SCENARIO, load: { flat_mw: -1 } }, path: '/load/flat_mw' },
  {
    name: 'both flat_mw and hourly_mw',
    body: { ...DEFAULT_SCENARIO, load: { flat_mw: 5, hourly_mw: year(5) } },
    path: '/load',
  },
  { name: 'neither flat_mw nor hourly_mw', body: { ...DEFAULT_SCENARIO, load: {} }, path: '/load' },
  {
    name: 'a threshold above 100',
    body: {
      ...DEFAULT_SCENARIO,
      load: { ...load, contract: { availability: [{ period: 'year', min_percent: 101 }] } },
    },
    path: '/load/contract/availability/0/min_percent',
  },
  {
    name: 'a threshold below 0',
    body: {
      ...DEFAULT_SCENARIO,
      load: { ...load, contract: { availability: [{ period: 'month', min_percent: -1 }] } },
    },
    path: '/load/contract/availability/0/min_percent',
  },
  {
    name: 'an unknown period',
    body: { ...DEFAULT_SCENARIO, load: { ...load, contract: { availability: [{ period: 'week', min_percent: 50 }] } } },
    path: '/load/contract/availability/0/period',
  },
  {
    name: 'a period with two thresholds',
    body: {
      ...DEFAULT_SCENARIO,
      load: {
        ...load,
        contract: {
          availability: [
            { period: 'year', min_percent: 50 },
            { period: 'year', min_percent: 60 },
          ],
        },
      },
    },
    path: '/load/contract/availability/1/period',
  },
  {
    name: 'a peak hour of 24',
    body: { ...DEFAULT_SCENARIO, load: { ...load, contract: { peak_hours: [18, 24] } } },
    path: '/load/contract/peak_hours/1',
  },
  {
    name: 'a peak hour of -1',
    body: { ...DEFAULT_SCENARIO, load: { ...load, contract: { peak_hours: [-1] } } },
    path: '/load/contract/peak_hours/0',
  },
  {
    name: 'a peak hour of 18.5',
    body: { ...DEFAULT_SCENARIO, load: { ...load, contract: { peak_hours: [18.5] } } },
    path: '/load/contract/peak_hours/0',
  },
  {
    name: 'a peak hour repeated',
    body: { ...DEFAULT_SCENARIO, load: { ...load, contract: { peak_hours: [18, 19, 18] } } },
    path: '/load/contract/peak_hours',
  },
  {
    name: 'a clean share above 1',
    body: { ...DEFAULT_SCENARIO, load: { ...load, backup: { clean_share: 1.5 } } },
    path: '/load/backup/clean_share',
  },
  {
    name: 'a backup price of 100 hours',
    body: { ...DEFAULT_SCENARIO, load: { ...load, backup: { price_per_mwh: Array(100).fill(50) } } },
    path: '/load/backup/price_per_mwh',
  },
  {
    name: 'strategy load without a load',
    body: { ...DEFAULT_SCENARIO, storage: { power_mw: 10, energy_mwh: 40, dispatch: { strategy: 'load' } } },
    path: '/storage/dispatch/strategy',
  },
  {
    name: 'a PPA price to solve with a load',
    body: {
      ...DEFAULT_SCENARIO,
      load,
      market: { ppa_price_per_mwh: 'solve' },
      finance: { target_equity_irr_percent: 10 },
    },
    path: '/market/ppa_price_per_mwh',
  },
  {
    name: 'an unknown key in the load',
    body: { ...DEFAULT_SCENARIO, load: { ...load, shape: 'flat' } },
    path: '/load/shape',
  },
];

rejectsEach(t, stack, cases);

t.test('25 years of hourly load and of a solar profile (several MB) are accepted', async (t) => {
  const years = (f: (h: number) => number) => Array.from({ length: 25 * HOURS_PER_YEAR }, (_, h) => f(h));
  const body = JSON.stringify({
    ...DEFAULT_SCENARIO,
    solar: {
      capacity_mw_dc: 100,
      profile: {
        hourly_mw: years((h) => Math.round(Math.max(0, Math.sin((((h % 24) - 6) / 12) * Math.PI)) * 80_000) / 1000),
        for_capacity_mw_dc: 100,
      },
    },
    load: { hourly_mw: years((h) => Math.round((40 + ((h * 7919) % 2000) / 1000) * 1e4) / 1e4) },
    storage: { power_mw: 20, energy_mwh: 80, dispatch: { strategy: 'load' } },
  });
  t.ok(body.length > 2_000_000, `${(body.length / 1e6).toFixed(1)} MB`);
  const res = await postRaw(stack.web.baseUrl, body);
  t.equal(res.status, 201, 'created');
  t.same(await rowCounts(stack.pool), { scenarios: 1, jobs: 1 }, 'one scenario, one job');
});
