// The load's accounting on exact plants (solar and wind `profile` inputs, no degradation, no limit),
// each figure worked out by hand: a constant plant against a flat load; excess in alternate hours,
// which must not serve the hours between; a load that changes within the day (the match is
// energy-weighted); a battery moving noon solar to the evening (energy conserved to the MWh); a
// battery charged from a cheap grid (the buyer's cost falls, the clean match stays 0).
import t from 'tap';
import { HOURS_PER_YEAR, YEARS } from '../shared/calendar.ts';
import { seriesByRole } from '../shared/hourly.series.ts';
import type { ScenarioInputs } from '../shared/schemas/inputs.ts';
import { calculate, type EngineResult } from '../worker/engine/index.ts';
import { type DeepPartial, resolvedInputs } from './fixtures/inputs.ts';
import {
  alternateHours,
  backupOnly,
  CHANGING_LOAD_MEAN_OF_RATIOS_PERCENT,
  changingLoad,
  close,
  constantPlant,
  EXPECTED_KPIS,
  exact,
  expectKpis,
  gridChargedBattery,
  hours,
  noonSolarToEvening,
  sum,
} from './helpers/load.inputs.ts';

const run = (i: DeepPartial<ScenarioInputs>): EngineResult => calculate(resolvedInputs(i));

t.test('a constant plant against a flat load', async (t) => {
  const short = run(constantPlant(30));
  const k = short.kpis;
  expectKpis(t, k, EXPECTED_KPIS.short);
  const y1 = short.annual[0];
  close(t, y1.load_mwh, 50 * HOURS_PER_YEAR, 'the year’s load');
  close(t, y1.delivered_to_load_mwh, 30 * HOURS_PER_YEAR, 'delivered');
  // Revenue: the contract's price (60) × delivered; no excess.
  close(t, short.income_statement[0].revenue.load_contract, 60 * 30 * HOURS_PER_YEAR, 'contract revenue');
  close(t, short.income_statement[0].revenue.total, 60 * 30 * HOURS_PER_YEAR, 'revenue total');
  t.ok((k.lcod_nominal ?? 0) > (k.lcoe_nominal ?? 0) - 1e-9, 'LCOD ≥ LCOE (all energy goes to the load here: equal)');
  close(t, k.lcod_nominal, k.lcoe_nominal as number, 'LCOD = LCOE when every MWh is delivered to the load');

  const long = run(constantPlant(70));
  expectKpis(t, long.kpis, EXPECTED_KPIS.long);
  // Excess sells at the merchant price (45, escalated 2 %/yr): year 1's line.
  close(t, long.income_statement[0].revenue.load_excess, 45 * 20 * HOURS_PER_YEAR, 'excess revenue, year 1');
  close(t, long.income_statement[1].revenue.load_excess, 45 * 1.02 * 20 * HOURS_PER_YEAR, 'excess revenue, year 2');
  t.equal(long.income_statement[0].revenue.ppa_wind, 0, 'no PPA revenue with a load');
});

t.test('excess in alternate hours never serves the hours between', async (t) => {
  const r = run(alternateHours());
  expectKpis(t, r.kpis, EXPECTED_KPIS.alternateHours);
  const delivered = r.delivered_hourly as Float64Array;
  t.equal(delivered[1], 0, 'hour 1 gets nothing');
  t.equal(delivered[2], 50, 'hour 2 gets its load');
});

t.test('a load that changes within the day: the match is energy-weighted', async (t) => {
  // 10 MW from 0:00 to 12:00, 90 MW after; a constant 50 MW plant.
  const r = run(changingLoad());
  expectKpis(t, r.kpis, EXPECTED_KPIS.changingLoad);
  t.ok(
    Math.abs((r.kpis.hourly_match_percent as number) - CHANGING_LOAD_MEAN_OF_RATIOS_PERCENT) > 10,
    'not the mean of hourly ratios (77.8 %)',
  );
});

t.test('a battery moves noon solar to the evening, energy conserved to the MWh', async (t) => {
  // Solar of 100 MW from 10:00 to 14:00; a load of 40 MW from 18:00 to 22:00 and none otherwise.
  const inputs = noonSolarToEvening();
  const r = run(inputs);
  const without = run({ ...inputs, storage: undefined });
  close(t, without.kpis.hourly_match_percent, 0, 'without the battery, nothing reaches the evening');
  close(t, r.kpis.hourly_match_percent, 100, 'with it, the evening load is served');
  close(t, r.kpis.cfe_percent, 100, 'and it is all clean (charged from the plant)');
  close(t, r.kpis.unmet_mwh_year1, 0, 'nothing unmet in year 1', 1e-9);
  // Each year: plant + discharge − charge = delivered + excess; η·charge − discharge/η = ΔSOC.
  const charge = r.storage_charge_hourly as Float64Array;
  const discharge = r.storage_discharge_hourly as Float64Array;
  const soc = r.storage_soc_hourly as Float64Array;
  let before = 0;
  for (let y = 0; y < YEARS; y++) {
    const a = y * HOURS_PER_YEAR;
    const b = a + HOURS_PER_YEAR;
    const row = r.annual[y];
    const produced = row.solar_mwh + row.wind_mwh;
    const balance =
      produced + sum(discharge, a, b) - sum(charge, a, b) - (row.delivered_to_load_mwh ?? 0) - (row.excess_mwh ?? 0);
    const stored = 0.9 * sum(charge, a, b) - sum(discharge, a, b) / 0.9 - (soc[b - 1] - before);
    before = soc[b - 1];
    if (Math.abs(balance) > 1e-3 || Math.abs(stored) > 1e-3) {
      t.fail(`year ${y + 1}: energy balance ${balance} MWh, storage balance ${stored} MWh`);
      return;
    }
  }
  t.pass('every year balances to 0.001 MWh (plant, battery, load, excess; the battery’s losses)');
  // 160 MWh delivered each evening, all of it through the battery: 160 / 0.9² ≈ 197.5 MWh charged a
  // day, and what the year ends with stored (ties between days are broken toward charging early).
  const socEnd = soc[HOURS_PER_YEAR - 1];
  const charged = (160 * 365) / 0.81 + socEnd / 0.9;
  t.ok(socEnd < 200 * 0.9, `the store at year end: ${socEnd.toFixed(3)} MWh`);
  close(t, r.annual[0].storage_discharge_mwh, 160 * 365, 'discharge = the evening load', 1e-6);
  close(
    t,
    r.annual[0].storage_charge_from_plant_mwh,
    charged,
    'charge = load ÷ round trip + the store at year end',
    1e-6,
  );
  close(t, r.annual[0].excess_mwh, 400 * 365 - charged, 'the rest of the noon output is excess', 1e-6);
  const year1 = (r.delivered_hourly as Float64Array).subarray(0, 24);
  t.same([...year1.subarray(18, 22)], [40, 40, 40, 40], 'day 1: the evening is served hour by hour');
});

t.test('a battery charged from a cheap grid: the buyer pays less, the clean match stays 0', async (t) => {
  // No plant: a battery that charges from the grid, a 40 MW evening load, backup dear in the evening.
  const r = run(gridChargedBattery());
  const k = r.kpis;
  expectKpis(t, k, EXPECTED_KPIS.gridChargedBattery);
  const socEnd = (r.storage_soc_hourly as Float64Array)[HOURS_PER_YEAR - 1];
  const charged = (160 * 365) / 0.81 + socEnd / 0.9;
  close(
    t,
    r.annual[0].storage_charge_from_grid_mwh,
    charged,
    'charged from the grid: 160 / 0.81 a day (+ the store at year end)',
  );
  // The battery charges in the cheapest hours (the night, 20 + the dispatch's floor of the merchant price).
  const chargeHours = new Set<number>();
  const charge = r.storage_charge_hourly as Float64Array;
  for (let h = 0; h < HOURS_PER_YEAR; h++) if (charge[h] > 1e-9) chargeHours.add(h % 24);
  t.ok(
    [...chargeHours].every((hd) => hd < 6),
    `charges only at night (hours ${[...chargeHours].sort((a, b) => a - b)})`,
  );
  // The grid energy bought: 160/0.81 MWh a day at 20.
  close(t, r.income_statement[0].operating_expenses.load_grid_energy, charged * 20, 'grid energy cost, year 1');
  expectKpis(t, run(backupOnly()).kpis, EXPECTED_KPIS.backupOnly);
});

t.test('excess curtailed: taken off solar and wind, and no excess revenue', async (t) => {
  const r = run(
    exact(
      hours(() => 70),
      { load: { flat_mw: 50, excess: 'curtail' } },
    ),
  );
  close(t, r.annual[0].wind_mwh, 50 * HOURS_PER_YEAR, 'wind keeps only what the load took');
  close(t, r.annual[0].curtailed_mwh, 20 * HOURS_PER_YEAR, 'the excess is curtailed');
  close(t, r.annual[0].excess_sold_mwh, 0, 'none sold', 1e-9);
  t.equal(r.income_statement[0].revenue.load_excess, 0, 'no excess revenue');
});

t.test('shortfall penalties: an operating expense of the year they fall due', async (t) => {
  // 30 of 50 MW delivered: 60 %. A yearly threshold of 80 % misses 20 % of 438,000 MWh = 87,600 MWh.
  const r = run(
    exact(
      hours(() => 30),
      {
        load: {
          flat_mw: 50,
          contract: {
            price_per_mwh: 60,
            escalation_percent: 2,
            availability: [{ period: 'year', min_percent: 80 }],
            shortfall_penalty_multiple: 1.5,
          },
        },
      },
    ),
  );
  close(t, r.annual[0].shortfall_mwh, 0.2 * 50 * HOURS_PER_YEAR, 'shortfall, year 1');
  close(
    t,
    r.income_statement[0].operating_expenses.load_shortfall_penalty,
    0.2 * 50 * HOURS_PER_YEAR * 1.5 * 60,
    'penalty, year 1',
  );
  close(
    t,
    r.income_statement[1].operating_expenses.load_shortfall_penalty,
    0.2 * 50 * HOURS_PER_YEAR * 1.5 * 60 * 1.02,
    'year 2: at the escalated price',
  );
  const monthly = run(
    exact(
      hours(() => 30),
      { load: { flat_mw: 50, contract: { availability: [{ period: 'month', min_percent: 50 }] } } },
    ),
  );
  close(t, monthly.annual[0].shortfall_mwh, 0, 'a threshold met in every month costs nothing', 1e-9);
});

t.test('several years of a profile are used in turn, and growth applies to the load', async (t) => {
  const two = [...hours(() => 30), ...hours(() => 60)];
  const r = run(exact(two, { load: { flat_mw: 50, growth_percent_per_year: 10 } }));
  close(t, r.annual[0].wind_mwh, 30 * HOURS_PER_YEAR, 'year 1: the first profile year');
  close(t, r.annual[1].wind_mwh, 60 * HOURS_PER_YEAR, 'year 2: the second');
  close(t, r.annual[2].wind_mwh, 30 * HOURS_PER_YEAR, 'year 3: the first again');
  close(t, r.annual[1].load_mwh, 55 * HOURS_PER_YEAR, 'the load grows 10 % a year');
  // Scaling: a profile made for 200 MW at 100 MW of capacity is halved.
  const half = run({
    ...exact(hours(() => 30)),
    wind: {
      capacity_mw: 100,
      degradation_percent_per_year: 0,
      profile: { hourly_mw: hours(() => 30), for_capacity_mw: 200 },
    },
  });
  close(t, half.annual[0].wind_mwh, 15 * HOURS_PER_YEAR, 'output scales with capacity ÷ for_capacity');
  const degraded = run({
    ...exact(hours(() => 30)),
    wind: {
      capacity_mw: 100,
      degradation_percent_per_year: 1,
      profile: { hourly_mw: hours(() => 30), for_capacity_mw: 100 },
    },
  });
  close(t, degraded.annual[1].wind_mwh, 30 * 0.99 * HOURS_PER_YEAR, 'degradation applies as for modelled output');
  const limited = run({ ...exact(hours(() => 30)), grid: { export_limit_mw: 20 } });
  close(t, limited.annual[0].wind_mwh, 20 * HOURS_PER_YEAR, 'and the export limit');
});

t.test('a profile is part of the profile cache key; the load is not', async (t) => {
  const { profileKeys } = await import('../worker/engine/plant/profiles.ts');
  const a = profileKeys(resolvedInputs(exact(hours(() => 30))));
  const b = profileKeys(resolvedInputs(exact(hours((hd) => (hd === 3 ? 31 : 30)))));
  const c = profileKeys(
    resolvedInputs(
      exact(
        hours(() => 30),
        { load: { flat_mw: 10 } },
      ),
    ),
  );
  const d = profileKeys(
    resolvedInputs({
      ...exact(hours(() => 30)),
      wind: { capacity_mw: 100, profile: { hourly_mw: hours(() => 30), for_capacity_mw: 50 } },
    }),
  );
  const modelled = profileKeys(resolvedInputs({ solar: { capacity_mw_dc: 0 } }));
  t.not(a.wind, b.wind, 'another hour of the profile: another key');
  t.not(a.wind, d.wind, 'another for_capacity: another key');
  t.not(a.wind, modelled.wind, 'a profile and the model never share a key');
  t.equal(a.wind, c.wind, 'a load changes no generation profile');
  t.ok((a.wind as string).length < 200, 'the key is short (the profile is hashed)');
});

t.test(
  "the load's split of each hour is published: served directly, from the battery, unmet, excess sold",
  async (t) => {
    const split = (r: EngineResult) => {
      const s = seriesByRole('load', r);
      if (!s) throw new Error('no load series');
      return s;
    };
    // Hand-worked: a 30 MW plant against 50 MW serves 30 directly and leaves 20 unmet; a 70 MW plant
    // serves the 50 and sells 20; neither has a battery.
    const short = split(run(constantPlant(30)));
    const long = split(run(constantPlant(70)));
    t.same(
      [short.direct[5], short.battery[5], short.unmet[5], short.excess[5]],
      [30, 0, 20, 0],
      'short plant, an hour',
    );
    t.same([long.direct[5], long.battery[5], long.unmet[5], long.excess[5]], [50, 0, 0, 20], 'long plant, an hour');
    const curtailed = split(
      run(
        exact(
          hours(() => 70),
          { load: { flat_mw: 50, excess: 'curtail' } },
        ),
      ),
    );
    t.same([curtailed.direct[5], curtailed.excess[5]], [50, 0], 'excess curtailed: none sold');
    // With a battery (noon solar served in the evening; charged from a cheap grid): every hour adds
    // up, and each year's sums are its annual figures.
    for (const [name, inputs] of [
      ['noon solar to the evening', noonSolarToEvening()],
      ['grid-charged battery', gridChargedBattery()],
    ] as const) {
      const r = run(inputs);
      const s = split(r);
      let bad = 0;
      for (let k = 0; k < YEARS * HOURS_PER_YEAR; k++) {
        const parts = [s.direct[k], s.battery[k], s.unmet[k], s.excess[k]];
        if (parts.some((v) => !(v >= 0))) bad++;
        if (Math.abs(s.direct[k] + s.battery[k] - s.delivered[k]) > 1e-9) bad++;
        if (Math.abs(s.delivered[k] + s.unmet[k] - s.load[k]) > 1e-9) bad++;
      }
      t.equal(bad, 0, `${name}: every hour, direct + battery = delivered, delivered + unmet = load, none negative`);
      for (const i of [0, YEARS - 1]) {
        const year = (a: Float64Array) => sum(a.subarray(i * HOURS_PER_YEAR, (i + 1) * HOURS_PER_YEAR));
        const a = r.annual[i];
        close(t, year(s.unmet), a.unmet_mwh as number, `${name}, year ${i + 1}: unmet`);
        close(t, year(s.excess), a.excess_sold_mwh as number, `${name}, year ${i + 1}: excess sold`);
        close(
          t,
          year(s.direct) + year(s.battery),
          a.delivered_to_load_mwh as number,
          `${name}, year ${i + 1}: delivered`,
        );
      }
      t.ok(sum(s.battery) > 0, `${name}: the battery served some of the load`);
    }
  },
);
