// Validation of a scenario request with the same TypeBox schema that documents it, compiled once.
// Every failing field is reported, each with a JSON Pointer path.
import type { TSchema } from '@sinclair/typebox';
import { type TypeCheck, TypeCompiler } from '@sinclair/typebox/compiler';
import {
  SamCsvWeather,
  ScenarioInputs,
  type StorageInputs,
  SuppliedWeather,
  SyntheticWeather,
} from '../shared/schemas/inputs.ts';
import type { FieldError } from '../shared/schemas/problem.ts';
import { parseSamCsv, WeatherFileError } from '../shared/weather/samcsv.ts';
import { compileDefaults, copyJson } from './schema.defaults.ts';

const compiled = TypeCompiler.Compile(ScenarioInputs);
const applyDefaults = compileDefaults(ScenarioInputs);
const weatherVariants: Record<string, TypeCheck<TSchema>> = {
  synthetic: TypeCompiler.Compile(SyntheticWeather),
  supplied: TypeCompiler.Compile(SuppliedWeather),
  sam_csv: TypeCompiler.Compile(SamCsvWeather),
};

export type Validation = { ok: true; value: ScenarioInputs } | { ok: false; errors: FieldError[] };

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** "Expected union value" says nothing; name the allowed literals or shapes instead. */
function describeUnion(schema: TSchema): string {
  const variants = (schema.anyOf ?? []) as TSchema[];
  if (variants.length > 0 && variants.every((v) => 'const' in v)) {
    return `must be one of: ${variants.map((v) => JSON.stringify(v.const)).join(', ')}`;
  }
  if (variants.some((v) => v.type === 'array') && variants.some((v) => v.type === 'number')) {
    const n = variants.find((v) => v.type === 'number') as TSchema;
    return `must be a number between ${n.minimum} and ${n.maximum}, or an array of 12 such numbers`;
  }
  return 'does not match any allowed form';
}

function schemaErrors(check: TypeCheck<TSchema>, value: unknown, prefix: string, out: FieldError[]): void {
  for (const e of check.Errors(value)) {
    const path = prefix + e.path;
    if (out.some((o) => o.path === path)) continue;
    let message = e.message;
    if (e.schema.anyOf) message = describeUnion(e.schema);
    out.push({ path: path || '/', message });
  }
}

function weatherErrors(weather: unknown, out: FieldError[]): void {
  const source = isObject(weather) ? weather.source : undefined;
  const check = typeof source === 'string' ? weatherVariants[source] : undefined;
  if (!check) {
    out.push({ path: '/weather/source', message: 'must be one of: "synthetic", "supplied", "sam_csv"' });
    return;
  }
  schemaErrors(check, weather, '/weather', out);
}

/** Checks that need more than one field, or more than a schema can say. */
function physicsErrors(v: ScenarioInputs, out: FieldError[]): void {
  const batteryAlone = (v.storage?.power_mw ?? 0) > 0 && v.storage?.charge_from_grid === true;
  if (v.solar.capacity_mw_dc === 0 && v.wind.capacity_mw === 0 && !batteryAlone) {
    const message = 'solar and wind capacity cannot both be 0 (unless a battery may charge from the grid)';
    out.push({ path: '/solar/capacity_mw_dc', message }, { path: '/wind/capacity_mw', message });
  }
  if (v.storage) storageErrors(v.storage, out);
  const curve = v.wind.turbine.power_curve;
  if (curve) {
    for (let i = 1; i < curve.length; i++) {
      if (!(curve[i][0] > curve[i - 1][0])) {
        out.push({
          path: `/wind/turbine/power_curve/${i}/0`,
          message: `wind speeds must increase strictly: ${curve[i][0]} follows ${curve[i - 1][0]}`,
        });
        break;
      }
    }
    if (curve.every(([, kw]) => kw === 0)) {
      out.push({ path: '/wind/turbine/power_curve', message: 'the power curve never produces power' });
    }
  }
  if (v.market.ppa_price_per_mwh === 'solve' && v.finance.target_equity_irr_percent === undefined) {
    out.push({
      path: '/finance/target_equity_irr_percent',
      message: 'required when market.ppa_price_per_mwh is "solve": the equity IRR to solve the price for',
    });
  }
  const allocation = v.finance.depreciation.allocation;
  if (allocation) {
    const total = allocation.reduce((sum, a) => sum + a.percent, 0);
    if (total > 100 + 1e-9) {
      out.push({
        path: '/finance/depreciation/allocation',
        message: `the percentages sum to ${total}; at most 100 (the rest is not depreciated)`,
      });
    }
    allocation.forEach((a, i) => {
      if (allocation.findIndex((b) => b.class === a.class) !== i) {
        out.push({ path: `/finance/depreciation/allocation/${i}/class`, message: `${a.class} is allocated twice` });
      }
    });
  }
  if (v.weather.source === 'sam_csv') {
    try {
      parseSamCsv(v.weather.text);
    } catch (err) {
      if (!(err instanceof WeatherFileError)) throw err;
      out.push({ path: '/weather/text', message: err.message });
    }
  }
}

/** A battery's rules beyond its schema: sizes that go together, SOC bounds in order, tables that are tables. */
function storageErrors(storage: StorageInputs, out: FieldError[]): void {
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

/** Far deeper than any scenario (power_curve/i/j is 4 levels); deeper bodies would exhaust the stack below. */
const MAX_DEPTH = 32;
/** A NUL (Postgres text and jsonb cannot hold it) or a UTF-16 surrogate without its pair (not Unicode). */
const unstorable = (s: string) => s.includes('\0') || !s.isWellFormed();

const pointer = (path: readonly (string | number)[]) =>
  `/${path.map((p) => String(p).replaceAll('~', '~0').replaceAll('/', '~1')).join('/')}`;

/** What no schema can say: nesting too deep to walk, and strings that cannot be stored. Iterative, so any depth is safe. */
function shapeErrors(body: unknown): FieldError[] {
  const errors: FieldError[] = [];
  const stack: Array<{ value: unknown; path: (string | number)[] }> = [{ value: body, path: [] }];
  while (stack.length > 0 && errors.length < 20) {
    const { value, path } = stack.pop() as { value: unknown; path: (string | number)[] };
    if (typeof value === 'string') {
      if (unstorable(value)) {
        errors.push({ path: pointer(path), message: 'must not contain NUL characters or unpaired UTF-16 surrogates' });
      }
    } else if (typeof value === 'object' && value !== null) {
      if (path.length >= MAX_DEPTH) return [{ path: pointer(path), message: `nested deeper than ${MAX_DEPTH} levels` }];
      const entries = Array.isArray(value) ? value.map((v, i) => [i, v] as const) : Object.entries(value);
      for (const [k, v] of entries) {
        if (typeof k === 'string' && unstorable(k)) {
          errors.push({
            path: pointer(path),
            message: 'a key contains a NUL character or an unpaired UTF-16 surrogate',
          });
        }
        if (typeof v === 'object' || typeof v === 'string') stack.push({ value: v, path: [...path, k] });
      }
    }
  }
  return errors;
}

export function validateScenario(body: unknown): Validation {
  if (!isObject(body)) {
    return { ok: false, errors: [{ path: '/', message: 'the body must be a JSON object' }] };
  }
  const shape = shapeErrors(body);
  if (shape.length > 0) return { ok: false, errors: shape };
  const value = applyDefaults(copyJson(body));
  const errors: FieldError[] = [];
  // The compiled check is fast; walking for errors is not, so it runs only for a body that fails.
  if (!compiled.Check(value)) schemaErrors(compiled, value, '', errors);
  const weatherIdx = errors.findIndex((e) => e.path === '/weather');
  if (weatherIdx >= 0) {
    errors.splice(weatherIdx, 1);
    weatherErrors((value as Record<string, unknown>).weather, errors);
  }
  if (errors.length === 0) physicsErrors(value as ScenarioInputs, errors);
  return errors.length > 0 ? { ok: false, errors } : { ok: true, value: value as ScenarioInputs };
}
