// The battery's reserves co-optimised with energy (docs/markets.md, "Ancillary services"), proven
// against an independent LP: horizons cut from real-shaped scenarios (merchant prices from HOPP's Iron
// Mountain 2015 price factors, with negative hours; reserve prices shaped on them; solar and wind
// behind a binding export limit; the SOC at the start and the capacity varied), each solved by the
// engine (its own matrix: a kept basis certified, else the dual simplex, else HiGHS) and as the LP of
// test/helpers/reserve.lp.ts (written from the statement, HiGHS's text reader, a fresh solver). The
// engine's plan must reach the LP optimum (relative gap ≤ 1e-7), return its own objective, keep SOC
// within the bands at every hour's start and end and never exceed the power headroom. Each case runs
// 40 scattered days and then 30 consecutive days as the engine runs them (each from the SOC the last
// plan's first day left); a fourth case is the bench's flat one, whose days repeat an optimal basis.
// The test counts the horizons each path took: a kept basis with a proof of optimality
// (storage.reserves.basis.ts), the dual simplex from a kept basis with the same proof on its end
// basis (storage.reserves.dual.ts), HiGHS; and requires the first two (HiGHS takes what the dual
// simplex leaves, the horizons whose basis moved far).
//
// And the case: a flat energy price, one up product at 10 per MW-h, duration 1 h, a battery
// that holds it: year 1's line for it is 8,760 × 10 × P, and the battery never charges nor discharges.
import highsModule from 'highs';
import t from 'tap';
import { HOURS_PER_YEAR } from '../shared/calendar.ts';
import type { AncillaryInputs, ScenarioInputs } from '../shared/schemas/inputs.ts';
import { calculate, loadReserveSolver } from '../worker/engine/index.ts';
import { hourPrices, prepareMarket } from '../worker/engine/market/market.ts';
import { ancillaryMarket } from '../worker/engine/plant/plant.ancillary.ts';
import type { HorizonHours } from '../worker/engine/storage/storage.dispatch.ts';
import { reserveObjective, reservePathCounts, solveReserves } from '../worker/engine/storage/storage.reserves.ts';
import { batteryConstants, fillHorizon, horizonBattery } from '../worker/engine/storage/storage.ts';
import { type DeepPartial, resolvedInputs } from './fixtures/inputs.ts';
import { HORIZON_YEARS, merchantPrices, plantHours } from './helpers/horizon.lp.ts';
import { reserveLp, reserveViolation, socAfter } from './helpers/reserve.lp.ts';

const highsLoader = highsModule as unknown as typeof import('highs')['default'];
const highs = await highsLoader();
await loadReserveSolver();

/** Reserve prices shaped on the energy price: regulation dearer in the evening ramp, never below a floor. */
const shaped = (scale: number, floor: number) =>
  merchantPrices.map((p, h) => Math.max(floor, scale * Math.abs(p) + (h % 24 >= 16 && h % 24 < 21 ? 6 : 0)));

const regUp: AncillaryInputs = {
  name: 'reg_up',
  direction: 'up',
  price_per_mw_hour: shaped(0.25, 2),
  duration_hours: 1,
  deployed_share: 0.1,
  escalation_percent: 0,
};
const regDown: AncillaryInputs = {
  name: 'reg_down',
  direction: 'down',
  price_per_mw_hour: shaped(0.15, 1),
  duration_hours: 1,
  deployed_share: 0.1,
  escalation_percent: 0,
};
const spin: AncillaryInputs = {
  name: 'spin',
  direction: 'up',
  price_per_mw_hour: 7,
  duration_hours: 4,
  deployed_share: 0,
  escalation_percent: 0,
};

interface Case {
  name: string;
  inputs: DeepPartial<ScenarioInputs>;
  products: AncillaryInputs[];
}
const plant = { grid: { export_limit_mw: 110 }, market: { merchant_hourly_prices: merchantPrices, ppa_share: 0.5 } };
const cases: Case[] = [
  {
    name: 'regulation up and down with arbitrage',
    inputs: { ...plant, storage: { power_mw: 100, energy_mwh: 400 } },
    products: [regUp, regDown],
  },
  {
    name: 'spinning (4 h) beside regulation up, the grid, one cycle a day, standing loss',
    inputs: {
      ...plant,
      storage: {
        power_mw: 60,
        energy_mwh: 240,
        charge_from_grid: true,
        standing_loss_percent_per_day: 1,
        dispatch: { max_cycles_per_day: 1 },
        costs: { variable_om_per_mwh: 3 },
      },
    },
    products: [spin, regUp],
  },
  {
    // Often nothing to charge from, so a battery at its minimum only loses energy (idling stays feasible).
    name: 'capture with regulation down, a half-hour product, standing loss from the minimum',
    inputs: {
      ...plant,
      storage: { power_mw: 80, energy_mwh: 160, standing_loss_percent_per_day: 2, dispatch: { strategy: 'capture' } },
    },
    products: [
      { ...regDown, duration_hours: 0.5, deployed_share: 0.3 },
      { ...spin, duration_hours: 2 },
    ],
  },
  {
    // The bench's case (bench/figures.engine.ts): the default plant's flat price, both products at a
    // fixed price. Its days repeat one optimal basis, so the certified path takes most of them.
    name: "the bench's case: flat prices, regulation up and down at fixed prices",
    inputs: { storage: { power_mw: 100, energy_mwh: 400 } },
    products: [
      { ...regUp, price_per_mw_hour: 9 },
      { ...regDown, price_per_mw_hour: 6 },
    ],
  },
];

const HORIZONS = 40;
const RUN = 30;
const gaps: number[] = [];
/** Each horizon's path: on a kept basis with a certificate, by the dual simplex from one, or by HiGHS. */
const paths = {
  scattered: { certified: 0, dual: 0, solved: 0 },
  consecutive: { certified: 0, dual: 0, solved: 0 },
};
let reserved = 0;
for (const c of cases) {
  t.test(c.name, async (t) => {
    const inputs = resolvedInputs({ ...c.inputs, market: { ...c.inputs.market, ancillary: c.products } });
    const battery = inputs.storage as NonNullable<typeof inputs.storage>;
    const market = prepareMarket(inputs);
    const hours = plantHours(inputs, (y, price) => hourPrices(market, y + 1, price));
    const reserves = ancillaryMarket(c.products, market);
    const a = () => new Float64Array(48);
    const h: HorizonHours = { hours: 48, price: a(), free: a(), priced: a(), room: a() };
    const m = {
      energyPrice: a(),
      capacityPrice: c.products.map(a),
      importMw: Math.min(battery.power_mw, inputs.grid.export_limit_mw ?? Number.POSITIVE_INFINITY),
      keep: batteryConstants(battery).keep,
    };
    const plan = { charge: a(), discharge: a(), reserve: c.products.map(a) };
    // HORIZONS scattered days (SOC at the start and capacity varied), then RUN consecutive days as the
    // engine runs them: each starting from the SOC the last plan's first day left, the capacity fixed.
    let soc = 0;
    for (let k = 0; k < HORIZONS + RUN; k++) {
      const scattered = k < HORIZONS;
      const day = scattered ? (k * 17 + 3) % (HORIZON_YEARS * 365 - 2) : 150 + k - HORIZONS;
      const fade = scattered ? 1 - 0.004 * (k % 10) : 0.98;
      const b = horizonBattery(battery, battery.energy_mwh * fade, battery.costs.variable_om_per_mwh);
      fillHorizon(battery, hours, day * 24, h);
      m.energyPrice.set(reserves.energyPrice.subarray(day * 24, day * 24 + 48));
      for (let j = 0; j < c.products.length; j++)
        m.capacityPrice[j].set(reserves.capacityPrice[j].subarray(day * 24, day * 24 + 48));
      const soc0 = scattered || k === HORIZONS ? b.socMinMwh + ((k % 5) / 4) * (b.socMaxMwh - b.socMinMwh) : soc;
      const before = reservePathCounts();
      const value = solveReserves(b, h, m, reserves.products, soc0, plan);
      const after = reservePathCounts();
      const took = (['certified', 'dual', 'solved'] as const).filter((k) => after[k] - before[k] === 1);
      const total = after.certified + after.dual + after.solved - before.certified - before.dual - before.solved;
      t.ok(took.length === 1 && total === 1, `day ${day}: one path solved the horizon`);
      paths[scattered ? 'scattered' : 'consecutive'][took[0]]++;
      t.equal(value, reserveObjective(b, h, m, reserves.products, plan), `day ${day}: the plan's own objective`);
      const solution = highs.solve(reserveLp(b, h, m, reserves.products, soc0));
      t.equal(solution.Status, 'Optimal', `day ${day}: HiGHS finds the LP optimum`);
      const optimum = solution.ObjectiveValue;
      const gap = (optimum - value) / Math.max(1, Math.abs(optimum));
      gaps.push(gap);
      t.ok(
        Math.abs(gap) <= 1e-7,
        `day ${day}: ${value.toFixed(2)} vs LP ${optimum.toFixed(2)} (gap ${gap.toExponential(2)})`,
      );
      t.equal(reserveViolation(b, h, m, reserves.products, soc0, plan), '', `day ${day}: bands and headroom kept`);
      soc = socAfter(b, m, reserves.products, soc0, plan, 24);
      for (const r of plan.reserve) for (const v of r) reserved += v;
    }
  });
}

t.test('every horizon at its LP optimum, and reserves were in play', async (t) => {
  t.equal(gaps.length, (HORIZONS + RUN) * cases.length, `${gaps.length} horizons`);
  const worst = Math.max(...gaps.map(Math.abs));
  t.comment(`largest |relative gap| ${worst.toExponential(2)} over ${gaps.length} horizons`);
  t.ok(worst <= 1e-7, 'gap 0 to solver tolerance on every horizon');
  // Both paths were taken, and every horizon above, whichever path, met the independent LP's optimum.
  const { scattered, consecutive } = paths;
  for (const [name, p] of Object.entries(paths)) {
    t.comment(
      `${name} days: ${p.certified} certified on a kept basis, ${p.dual} by the dual simplex, ${p.solved} by HiGHS`,
    );
  }
  const certified = scattered.certified + consecutive.certified;
  const dual = scattered.dual + consecutive.dual;
  const solved = scattered.solved + consecutive.solved;
  t.equal(certified + dual + solved, gaps.length, 'every horizon took one path');
  t.ok(certified >= 10, `the certified path took ${certified} horizons`);
  t.ok(dual >= 5, `the dual simplex took ${dual} horizons (the certificate refused the kept bases)`);
  t.ok(reserved > 1000, `the plans reserved ${reserved.toFixed(0)} MW-h in all: the reserves are not idle`);
});

t.test('a flat price and one up product at 10 per MW-h held all year: 8,760 × 10 × P, no cycling', async (t) => {
  const P = 50;
  // SOC starts at min + P × 1 h ÷ η (η = 1): exactly what the product needs; the O&M per MWh keeps the
  // battery from cycling at no gain.
  const inputs = resolvedInputs({
    market: {
      merchant_price_per_mwh: 40,
      ppa_share: 0,
      merchant_escalation_percent: 0,
      ancillary: [
        {
          name: 'reserve',
          direction: 'up',
          price_per_mw_hour: 10,
          duration_hours: 1,
          deployed_share: 0,
          escalation_percent: 0,
        },
      ],
    },
    storage: {
      power_mw: P,
      energy_mwh: 4 * P,
      round_trip_efficiency_percent: 100,
      soc_min_percent: 10,
      initial_soc_percent: 35,
      costs: { variable_om_per_mwh: 1 },
    },
  });
  const r = calculate(inputs);
  const year1 = r.income_statement.find((y) => y.year === 1);
  t.equal(year1?.revenue.ancillary?.reserve, 8_760 * 10 * P, 'the line is 8,760 × 10 × P');
  // The hourly series are 25 × 8,760 values, year 1 first.
  const year1Of = (series: ArrayLike<number> | undefined) => Array.from(series ?? []).slice(0, HOURS_PER_YEAR);
  const charge = year1Of(r.storage_charge_hourly);
  const discharge = year1Of(r.storage_discharge_hourly);
  const reserve = year1Of(r.storage_reserve_up_hourly);
  t.equal(charge.length + discharge.length + reserve.length, 3 * HOURS_PER_YEAR, 'the hourly series of year 1');
  t.equal(Math.max(...charge, ...discharge), 0, 'never charges nor discharges in year 1');
  t.equal(Math.min(...reserve), P, 'P reserved in every hour');
});
