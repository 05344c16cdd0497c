// A battery's rules that its schema cannot say (shared/validate.ts runs them after the schema).
import type { ScenarioInputs, StorageInputs } from './schemas/inputs.ts';
import type { FieldError } from './schemas/problem.ts';

/** A battery's rules beyond its schema: sizes that go together, SOC bounds in order, tables that are tables. */
export function storageErrors(storage: StorageInputs, out: FieldError[]): void {
  if (storage.power_mw > 0 && storage.energy_mwh === 0) {
    out.push({ path: '/storage/energy_mwh', message: 'a battery with power needs energy: energy_mwh must be above 0' });
  }
  if (storage.soc_min_percent >= storage.soc_max_percent) {
    out.push({
      path: '/storage/soc_min_percent',
      message: `soc_min_percent (${storage.soc_min_percent}) must be below soc_max_percent (${storage.soc_max_percent})`,
    });
  } else if (
    storage.initial_soc_percent < storage.soc_min_percent ||
    storage.initial_soc_percent > storage.soc_max_percent
  ) {
    out.push({ path: '/storage/initial_soc_percent', message: 'must lie between soc_min_percent and soc_max_percent' });
  }
  const problem = cycleTableProblem(storage.degradation.cycle);
  if (problem) out.push({ path: `/storage/degradation/cycle${problem.at}`, message: problem.message });
  const calendar = storage.degradation.calendar;
  if (calendar) {
    if (calendar[0].day !== 0)
      out.push({ path: '/storage/degradation/calendar/0/day', message: 'the table starts at day 0' });
    for (let i = 1; i < calendar.length; i++) {
      if (!(calendar[i].day > calendar[i - 1].day)) {
        out.push({ path: `/storage/degradation/calendar/${i}/day`, message: 'days must increase strictly' });
        break;
      }
    }
  }
}

/** SAM's cycle table: each depth at least two rows, its cycles increasing strictly in the order given. */
function cycleTableProblem(rows: StorageInputs['degradation']['cycle']): { at: string; message: string } | null {
  if (!rows) return null;
  const lastAt = new Map<number, number>();
  const count = new Map<number, number>();
  for (let i = 0; i < rows.length; i++) {
    const { dod_percent: dod, cycles } = rows[i];
    const prev = lastAt.get(dod);
    if (prev !== undefined && !(cycles > rows[prev].cycles)) {
      return { at: `/${i}/cycles`, message: `the cycles at depth ${dod} % must increase strictly, row by row` };
    }
    lastAt.set(dod, i);
    count.set(dod, (count.get(dod) ?? 0) + 1);
  }
  for (const [dod, n] of count) {
    if (n < 2)
      return { at: '', message: `depth ${dod} % has one row; each depth needs at least two (cycles, capacity)` };
  }
  return null;
}

/** Ancillary products need a battery that dispatches for the market (arbitrage or capture), and distinct names. */
export function ancillaryErrors(v: ScenarioInputs, out: FieldError[]): void {
  const products = v.market.ancillary;
  if (!products || products.length === 0) return;
  const s = v.storage;
  if (!s || !(s.power_mw > 0) || !(s.energy_mwh > 0)) {
    out.push({
      path: '/market/ancillary',
      message: 'ancillary products need a battery: storage.power_mw and storage.energy_mwh above 0',
    });
  } else if (s.dispatch.strategy === 'load') {
    out.push({
      path: '/market/ancillary',
      message: 'ancillary products need the battery to dispatch by arbitrage or capture, not load',
    });
  }
  const seen = new Set<string>();
  products.forEach((p, i) => {
    if (seen.has(p.name))
      out.push({ path: `/market/ancillary/${i}/name`, message: `the name ${p.name} is used twice` });
    seen.add(p.name);
  });
}
