// The SSC peer bench's mapping of our inputs onto SSC's variables (bench/peer.ssc.inputs.ts,
// bench/peer.ssc.battery.ts), checked against our own engine's statements: the same prices, the
// same installed cost and year-1 O&M, the battery's size and power; and what cannot be mapped is
// refused by name. Needs no SSC build.
import t from 'tap';
import { mapBattery } from '../bench/peer.ssc.battery.ts';
import { blendedPricesPerKwh, capex, fixedOm, mapScenario, runScript } from '../bench/peer.ssc.inputs.ts';
import type { ScenarioInputs } from '../shared/schemas/inputs.ts';
import { calculate } from '../worker/engine/index.ts';
import { type DeepPartial, resolvedInputs } from './fixtures/inputs.ts';

const files = { solar: '/data/solar.csv', wind: '/data/wind.srw' };
const measured: DeepPartial<ScenarioInputs> = {
  solar: { model: 'pvwatts_v5' },
  weather: { source: 'sam_csv', text: 'x' },
  wind_resource: { source: 'srw', text: 'x' },
  wind: {
    turbine: {
      power_curve: [
        [3, 0],
        [12, 1500],
      ],
    },
    layout: { x_m: [0, 616], y_m: [0, 0] },
    wake_model: 'simple',
  },
};

t.test('the blended yearly price times the energy is our revenue, every year', async (t) => {
  const inputs = resolvedInputs({ seed: 3 });
  const r = calculate(inputs);
  const prices = blendedPricesPerKwh(inputs.market);
  t.equal(prices.length, 25);
  for (const [i, year] of r.annual.entries()) {
    const revenue = r.income_statement[i].revenue.total;
    const mapped = year.export_mwh * 1000 * prices[i];
    t.ok(Math.abs(mapped - revenue) <= 1e-9 * revenue, `year ${i + 1}: ${mapped} against ${revenue}`);
  }
});

t.test("installed cost and year-1 fixed O&M are our statements' own", async (t) => {
  const inputs = resolvedInputs({ seed: 3, storage: { power_mw: 20, energy_mwh: 80 } });
  const r = calculate(inputs);
  const c = capex(inputs);
  t.equal(c.solar + c.wind + c.storage + c.other, r.cash_flow[0].capex);
  const om = r.income_statement[0].operating_expenses;
  t.ok(Math.abs(fixedOm(inputs) - om.fixed_om - om.land_lease - (om.storage_fixed_om ?? 0)) < 1e-6);
  const mapped = resolvedInputs({ ...measured, storage: { power_mw: 20, energy_mwh: 80 } });
  const so = mapScenario(mapped, files).singleowner;
  const m = capex(mapped);
  t.equal(so.total_installed_cost, m.solar + m.wind + m.storage + m.other, "Single Owner's installed cost");
  t.same(so.om_fixed, [fixedOm(mapped)]);
  t.equal(so.debt_percent, 60);
  t.same(so.federal_tax_rate, [26]);
});

t.test('the modules chain as SSC’s hybrid module chains them', async (t) => {
  const withBattery = resolvedInputs({ ...measured, storage: { power_mw: 20, energy_mwh: 80 } });
  const script = runScript(mapScenario(withBattery, files, mapBattery(withBattery)));
  const order = script.filter((l) => /^(exec|add|lifetime) /.test(l));
  t.same(order, [
    'exec pvwattsv5',
    'exec windpower',
    'lifetime gen_wind gen 25 0.3',
    'add gen gen_solar gen_wind',
    'exec battery',
    'exec grid',
    'exec singleowner',
  ]);
  t.ok(script.includes('str solar_resource_file /data/solar.csv'));
  t.ok(script.includes('arr wind_farm_xCoordinates 0 616'));
  t.ok(script.includes('num wind_farm_wake_model 0'), 'simple wakes are SSC’s model 0');
  t.ok(script.includes('num turb_generic_loss 12'), 'our total wind loss as one SSC category');
  t.ok(script.some((l) => l.startsWith('mat dispatch_sched_weekday 12 24 1 1')));
  t.equal(script.at(-1), 'end');

  const windOnly = resolvedInputs({ ...measured, solar: { capacity_mw_dc: 0 } });
  const lines = runScript(mapScenario(windOnly, files));
  t.notOk(lines.includes('exec pvwattsv5'));
  t.ok(lines.includes('rename gen_wind gen'));
});

t.test("the battery: our power at the AC side, our energy in SAM's cells, our round trip split in two", async (t) => {
  const inputs = resolvedInputs({ ...measured, storage: { power_mw: 100, energy_mwh: 400 } });
  const b = mapBattery(inputs);
  if (!b) throw new Error('no battery');
  t.equal(b.batt_power_discharge_max_kwac, 100_000);
  t.equal(b.batt_power_charge_max_kwac, 100_000);
  const stringKwh = (139 * 3.6 * 2.25) / 1000;
  t.ok(Math.abs((b.batt_computed_bank_capacity as number) - 400_000) <= stringKwh / 2);
  const eta = (b.batt_ac_dc_efficiency as number) / 100;
  t.ok(Math.abs(eta * eta - 0.88) < 1e-12);
  t.equal(b.batt_minimum_SOC, 10);
  t.equal(b.batt_maximum_SOC, 90);
  t.equal(mapBattery(resolvedInputs(measured)), null);
});

t.test('what SAM cannot say is refused by name', async (t) => {
  const cases: [string, Parameters<typeof resolvedInputs>[0], RegExp][] = [
    [
      'solved price',
      { ...measured, market: { ppa_price_per_mwh: 'solve' }, finance: { target_equity_irr_percent: 10 } },
      /solved/,
    ],
    [
      'price shape',
      { ...measured, market: { merchant_hour_of_day_multipliers: new Array(24).fill(1) } },
      /hourly price/,
    ],
    ['DSCR debt', { ...measured, finance: { debt: { sizing: 'dscr' } } }, /DSCR/],
    ['synthetic weather', { ...measured, weather: { source: 'synthetic' } }, /SAM CSV/],
    ['no layout', { ...measured, wind: { layout: undefined, wake_model: 'constant' } }, /layout/],
    ['PVWatts v8', { ...measured, solar: { model: 'pvwatts_v8' } }, /pvwatts_v8/],
  ];
  for (const [what, overrides, message] of cases)
    t.throws(() => mapScenario(resolvedInputs(overrides), files), message, what);
  const capped = resolvedInputs({
    ...measured,
    storage: { power_mw: 10, energy_mwh: 40, dispatch: { max_cycles_per_day: 1 } },
  });
  t.throws(() => mapBattery(capped), /dispatch/);
});
