// Discounting, as the finance stage and the load's buyer cost both do it. Convention: flows[0] is
// at time 0 (undiscounted) and flows[n] is divided by (1 + rate)^n, as SAM discounts its cash
// flows (unlike Excel's NPV, which discounts the first value by one period).

/** Net present value of `flows` at `rate`. */
export function npv(rate: number, flows: ArrayLike<number>): number {
  // Horner's scheme in v = 1/(1+rate): one multiply per term, no pow.
  const v = 1 / (1 + rate);
  let sum = 0;
  for (let n = flows.length - 1; n >= 0; n--) sum = sum * v + flows[n];
  return sum;
}

/** Σ values[n] / (1 + rate)^n for n ≥ 1 (values[0] is ignored): discounts yearly series indexed by year. */
export function presentValueFromYear1(rate: number, values: ArrayLike<number>): number {
  const v = 1 / (1 + rate);
  let sum = 0;
  for (let n = values.length - 1; n >= 1; n--) sum = (sum + values[n]) * v;
  return sum;
}

/** Nominal rate from a real rate and inflation (Fisher): (1 + real)(1 + inflation) − 1. */
export function nominalRate(real: number, inflation: number): number {
  return (1 + real) * (1 + inflation) - 1;
}
