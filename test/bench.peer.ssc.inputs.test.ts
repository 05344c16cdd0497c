// The SSC peer bench's mapping of our inputs onto SSC's variables (bench/peer.ssc.inputs.ts,
// bench/peer.ssc.battery.ts), checked against our own engine's statements: the same prices, the
// same installed cost and year-1 O&M, the battery's size and power; and what cannot be mapped is
// refused by name; the driver's protocol (wall and CPU times) and the rows judged on CPU time. Needs no SSC build.
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { mapBattery } from '../bench/peer.ssc.battery.ts';
import { SscDriver } from '../bench/peer.ssc.client.ts';
import { blendedPricesPerKwh, capex, fixedOm, mapScenario, runScript } from '../bench/peer.ssc.inputs.ts';
import { PEER_TARGETS, peerRows, timedCalculate } from '../bench/peer.ssc.ts';
import { fmtRatio } from '../bench/table.ts';
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
    [
      'a bifacial height pvwattsv8 cannot take',
      { ...measured, solar: { model: 'pvwatts_v8', bifaciality: 0.65, ground_clearance_m: 2 } },
      /ground_clearance_m 2/,
    ],
  ];
  for (const [what, overrides, message] of cases)
    t.throws(() => mapScenario(resolvedInputs(overrides), files), message, what);
  const capped = resolvedInputs({
    ...measured,
    storage: { power_mw: 10, energy_mwh: 40, dispatch: { max_cycles_per_day: 1 } },
  });
  t.throws(() => mapBattery(capped), /dispatch/);
});

/** The variables a script sets for one module: the `num`/`arr`/`str` lines before its `exec`. */
function setBefore(script: string[], module: string): Map<string, string> {
  const end = script.indexOf(`exec ${module}`);
  const out = new Map<string, string>();
  for (const line of script.slice(0, end)) {
    const [kind, name, ...rest] = line.split(' ');
    if (kind === 'num' || kind === 'arr' || kind === 'str') out.set(name, rest.join(' '));
  }
  return out;
}

t.test("single-year mode (SAM's default): one year of each generator, degradation in Single Owner", async (t) => {
  const inputs = resolvedInputs({ ...measured, storage: { power_mw: 20, energy_mwh: 80 } });
  const lifetime = runScript(mapScenario(inputs, files, mapBattery(inputs), 'lifetime'));
  const script = runScript(mapScenario(inputs, files, mapBattery(inputs), 'single_year'));
  t.same(
    script.filter((l) => /^(exec|add|lifetime|degradation|rename gen) /.test(l)),
    [
      'exec pvwattsv5',
      'rename gen gen_solar',
      'exec windpower',
      'rename gen gen_wind',
      'add gen gen_solar gen_wind',
      'degradation degradation 25 annual_energy_solar 0.5 annual_energy_wind 0.3',
      'exec battery',
      'exec grid',
      'exec singleowner',
    ],
  );
  const solar = setBefore(script, 'pvwattsv5');
  t.equal(solar.get('system_use_lifetime_output'), '0');
  t.notOk(solar.has('dc_degradation'), 'no DC degradation: the year is not repeated');
  t.notOk(solar.has('analysis_period'));
  t.equal(setBefore(lifetime, 'pvwattsv5').get('system_use_lifetime_output'), '1');
  t.equal(setBefore(lifetime, 'pvwattsv5').get('dc_degradation'), '0.5');
  // The last value set before a module runs is the one it reads: the battery reads Single Owner's.
  t.equal(setBefore(script, 'battery').get('system_use_lifetime_output'), '0');
  t.equal(setBefore(script, 'grid').get('system_use_lifetime_output'), '0');
  t.equal(setBefore(lifetime, 'battery').get('system_use_lifetime_output'), '1');
  t.notOk(
    script.some((l) => l.startsWith('lifetime ')),
    "wind's year is not repeated",
  );
  // Single Owner's schedule replaces lifetime mode's [0]: the degradation line follows its inputs.
  t.ok(script.indexOf('arr degradation 0') < script.findIndex((l) => l.startsWith('degradation ')));
  // Past the generators, the two modes differ only in the lifetime flag and the analysis period.
  const rest = (s: string[]) =>
    s
      .slice(s.indexOf('add gen gen_solar gen_wind') + 1)
      .filter((l) => !/^(degradation|num system_use_lifetime_output|num analysis_period) /.test(l));
  t.same(rest(script), rest(lifetime));
});

t.test('PVWatts v8 is pvwattsv8 with our bifaciality, albedo and snow model', async (t) => {
  const v8 = (solar: DeepPartial<ScenarioInputs['solar']>) =>
    setBefore(
      runScript(mapScenario(resolvedInputs({ ...measured, solar: { model: 'pvwatts_v8', ...solar } }), files)),
      'pvwattsv8',
    );
  const plain = v8({});
  t.equal(plain.get('bifaciality'), '0');
  t.equal(plain.get('use_wf_albedo'), '0', "the site's albedo, not the file's");
  t.equal(plain.get('albedo'), '0.2');
  t.equal(plain.get('en_snowloss'), '0');
  t.equal(plain.get('array_type'), '3', 'backtracking trackers, our default');
  t.equal(plain.get('dc_degradation'), '0.5');
  for (const name of ['system_capacity', 'losses', 'inv_eff', 'dc_ac_ratio', 'gcr', 'tilt', 'azimuth', 'module_type'])
    t.ok(plain.has(name), name);
  const bifacial = v8({ bifaciality: 0.65, albedo: 0.3, array_type: 'single_axis', snow_model: true });
  t.equal(bifacial.get('bifaciality'), '0.65');
  t.equal(bifacial.get('albedo'), '0.3');
  t.equal(bifacial.get('array_type'), '2');
  t.equal(bifacial.get('en_snowloss'), '1');
  const monthly = Array.from({ length: 12 }, (_, i) => 0.2 + i / 100);
  t.equal(v8({ albedo: monthly }).get('albedo'), monthly.join(' '));
  const file = v8({ albedo: 'weather_file' });
  t.equal(file.get('use_wf_albedo'), '1');
  t.equal(file.get('albedo_default'), '0.2', "SSC's default where the file has none, as ours");
  t.notOk(file.has('albedo'));
  const v5 = setBefore(runScript(mapScenario(resolvedInputs(measured), files)), 'pvwattsv5');
  t.notOk(v5.has('bifaciality'), 'v5 takes none of them');
});

// The driver's answers carry wall and CPU time (bench/peer.ssc.driver.c); a stand-in for the
// driver speaks its protocol, so the parsing is checked without SSC.
t.test("the driver's protocol: wall and CPU time per module and per run", async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'peer-driver-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const fake = (name: string, exec: string, run: string) => {
    const path = join(dir, name);
    writeFileSync(
      path,
      `#!/bin/sh\necho "version 302 stand-in"\nwhile read -r line; do case "$line" in\n  exec*) echo "${exec}";;\n  "sum gen 0 8760") echo "sum gen 42.5";;\n  end) echo "${run}";;\nesac; done\n`,
    );
    chmodSync(path, 0o755);
    return path;
  };
  const driver = new SscDriver(fake('driver', 'exec pvwattsv5 12.5 11.25', 'run 20.5 18.75'));
  t.teardown(() => driver.stop());
  t.equal(await driver.start(), '302 stand-in');
  const run = await driver.run(['data', 'exec pvwattsv5', 'sum gen 0 8760', 'end']);
  t.same(run, {
    ms: 20.5,
    cpuMs: 18.75,
    modules: { pvwattsv5: 12.5 },
    moduleCpu: { pvwattsv5: 11.25 },
    numbers: {},
    sums: { gen: 42.5 },
  });
  // A driver compiled before it printed CPU times is refused, not read as NaN.
  const old = new SscDriver(fake('old', 'exec pvwattsv5 12.5', 'run 20.5'));
  t.teardown(() => old.stop());
  await old.start();
  await t.rejects(old.run(['data', 'exec pvwattsv5', 'end']), /printed no CPU time: exec pvwattsv5 12.5/);
});

t.test('each case: a wall row for context, a CPU row judged against the target', async (t) => {
  const rows = peerRows('case', 'SSC', { hg: 40, ssc: 500 }, { hg: 30, ssc: 500 }, PEER_TARGETS.lifetime);
  t.same(
    rows.map((r) => [r.figure, r.ratio, r.met]),
    [
      ['case, wall time', 0.08, null],
      ['case, CPU time', 0.06, false],
    ],
  );
  t.match(rows[1].target, /≤ 0\.05× SSC's CPU/);
  t.equal(peerRows('case', 'SSC', { hg: 1, ssc: 2 }, { hg: 24, ssc: 500 }, 0.05)[1].met, true);
  t.equal(peerRows('c', 'SSC', { hg: 8e3, ssc: 2e6 }, { hg: 9e3, ssc: 2e6 }, 0.02, 's')[1].value, 9);
  t.equal(fmtRatio(0.0548), '0.055×');
  t.equal(fmtRatio(0.27), '0.27×');
});

t.test("our engine's CPU time: the process's, at least its thread's", async (t) => {
  const { result, ms, cpuMs, threadMs } = timedCalculate(resolvedInputs({ seed: 3 }));
  t.ok(Number.isFinite(result.kpis.equity_npv));
  // Both clocks tick in coarse steps; the process's includes the thread's.
  t.ok(ms > 0 && cpuMs > 0 && threadMs > 0 && cpuMs >= threadMs - 1, JSON.stringify({ ms, cpuMs, threadMs }));
});

t.test(
  'our engine as the worker runs it: the same hourly arrays every call, the same figures as a fresh call',
  async (t) => {
    const battery = resolvedInputs({
      seed: 3,
      storage: { power_mw: 50, energy_mwh: 200 },
      grid: { export_limit_mw: 120 },
    });
    const first = timedCalculate(battery).result;
    const firstSolar = first.solar_hourly;
    const firstCharge = first.storage_charge_hourly;
    const again = timedCalculate(battery).result;
    t.equal(again.solar_hourly, firstSolar, 'solar written into the same array');
    t.equal(again.storage_charge_hourly, firstCharge, "the battery's too");
    const fresh = calculate(battery);
    t.same(again.kpis, fresh.kpis);
    // The reused series are views of the battery kernel's memory (storage.ts `keptRunSeries`): their bytes, not their buffer's.
    const bytes = (a: Float64Array) => Buffer.from(a.buffer, a.byteOffset, a.byteLength);
    t.ok(
      bytes(again.storage_charge_hourly as Float64Array).equals(bytes(fresh.storage_charge_hourly as Float64Array)),
      "the battery's hours bit for bit",
    );
  },
);
