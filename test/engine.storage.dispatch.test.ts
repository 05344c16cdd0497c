// The battery's horizon dispatch against NREL HOPP's stateless-dispatch test figures
// (tests/hopp/test_battery_dispatch.py: test_batterystateless_dispatch and
// test_batterystateless_cycle_limits): 50 MW / 200 MWh, SOC 10–90 %, round trip 88 % (HOPP splits it
// as √0.88 each way, rounded to 4 digits: 0.9381), 0.75 per MWh charged and discharged
// (tests/hopp/utils.py om_batt_variable_cost), 48 hours of prices 30 / 100 in blocks of 8, SOC
// starting at its minimum.
import t, { type Test } from 'tap';
import { HorizonSolver, objective } from '../worker/engine/storage/storage.dispatch.ts';

const HOURS = 48;
const prices = new Float64Array(HOURS).map((_, i) => (Math.floor(i / 8) % 2 === 0 ? 30 : 100));
const hours = {
  hours: HOURS,
  price: prices,
  free: new Float64Array(HOURS),
  priced: new Float64Array(HOURS).fill(50),
  room: new Float64Array(HOURS).fill(50),
};
const battery = (dailyDischargeMwh: number) => ({
  powerMw: 50,
  socMinMwh: 20,
  socMaxMwh: 180,
  etaIn: 0.9381,
  etaOut: 0.9381,
  chargeCost: 0.75,
  dischargeCost: 0.75,
  dailyDischargeMwh,
});
const plan = () => ({ charge: new Float64Array(HOURS), discharge: new Float64Array(HOURS) });
const daySum = (a: Float64Array, d: number) => a.slice(d * 24, d * 24 + 24).reduce((s, v) => s + v, 0);

function checkPlan(t: Test, out: { charge: Float64Array; discharge: Float64Array }, dailyLimit: number) {
  let soc = 20;
  for (let i = 0; i < HOURS; i++) {
    t.ok(!(out.charge[i] > 0 && out.discharge[i] > 0), `hour ${i}: not both charging and discharging`);
    t.ok(out.charge[i] <= 50 + 1e-9 && out.discharge[i] <= 50 + 1e-9, `hour ${i}: within 50 MW`);
    soc += 0.9381 * out.charge[i] - out.discharge[i] / 0.9381;
    t.ok(soc >= 20 - 1e-6 && soc <= 180 + 1e-6, `hour ${i}: SOC ${soc.toFixed(3)} within 20–180 MWh`);
  }
  for (let d = 0; d < 2; d++)
    t.ok(daySum(out.discharge, d) <= dailyLimit * (1 + 1e-9), `day ${d + 1} within the limit`);
}

t.test('HOPP test_batterystateless_dispatch: objective 28957.15, lifecycles [0.75048, 1.50096]', async (t) => {
  const out = plan();
  const value = new HorizonSolver().solve(battery(Number.POSITIVE_INFINITY), hours, 20, out);
  t.ok(Math.abs(value - 28957.15) <= 28957.15 * 1e-5, `objective ${value} (HOPP: 28957.15, rel 1e-5)`);
  t.equal(value, objective(battery(Number.POSITIVE_INFINITY), hours, out), 'the objective of the plan returned');
  t.ok(Math.abs(daySum(out.discharge, 0) / 200 - 0.75048) <= 0.75048 * 1e-3, 'day 1: 0.75048 cycles');
  t.ok(Math.abs(daySum(out.discharge, 1) / 200 - 1.50096) <= 1.50096 * 1e-3, 'day 2: 1.50096 cycles');
  t.equal(daySum(out.charge, 0) > 0 && out.discharge.slice(0, 8).every((v) => v === 0), true, 'no discharge at 30');
  checkPlan(t, out, Number.POSITIVE_INFINITY);
});

t.test(
  'HOPP test_batterystateless_cycle_limits: 1 cycle a day, objective 22513, lifecycles [0.75048, 1]',
  async (t) => {
    const out = plan();
    const value = new HorizonSolver().solve(battery(200), hours, 20, out);
    t.ok(Math.abs(value - 22513) <= 22513 * 1e-3, `objective ${value} (HOPP: 22513, rel 1e-3)`);
    t.ok(Math.abs(daySum(out.discharge, 0) / 200 - 0.75048) <= 0.75048 * 1e-3, 'day 1: 0.75048 cycles');
    t.ok(Math.abs(daySum(out.discharge, 1) / 200 - 1) <= 1e-3, 'day 2: 1 cycle');
    checkPlan(t, out, 200);
  },
);

t.test('free energy is stored before priced energy, and never discharged into no room', async (t) => {
  const h = {
    hours: 4,
    price: Float64Array.from([20, 20, 80, 80]),
    free: Float64Array.from([30, 0, 0, 0]),
    priced: Float64Array.from([10, 50, 50, 50]),
    room: Float64Array.from([0, 0, 50, 0]),
  };
  const b = { ...battery(Number.POSITIVE_INFINITY), chargeCost: 0, dischargeCost: 0, etaIn: 1, etaOut: 1 };
  const out = { charge: new Float64Array(4), discharge: new Float64Array(4) };
  const value = new HorizonSolver().solve(b, h, 20, out);
  t.same(Array.from(out.discharge), [0, 0, 50, 0], 'discharges only into the room');
  t.equal(out.charge[0] + out.charge[1], 50, 'charges what it will sell');
  t.ok(out.charge[0] >= 30, 'the free 30 MWh first');
  t.equal(value, 80 * 50 - 20 * 20, 'objective: 50 sold at 80, 20 bought at 20');
});
