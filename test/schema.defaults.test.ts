// shared/schema.defaults.ts fills exactly what TypeBox's Value.Default fills, for valid bodies of
// every weather source and for random partial bodies; bad bodies are still refused by name.
import { Value } from '@sinclair/typebox/value';
import fc from 'fast-check';
import t from 'tap';
import { compileDefaults, copyJson } from '../shared/schema.defaults.ts';
import { ScenarioInputs } from '../shared/schemas/inputs.ts';
import { validateScenario } from '../shared/validate.ts';
import { BASE, schemaCases, WEATHER } from './helpers/schema-cases.ts';

const applyDefaults = compileDefaults(ScenarioInputs);
const both = (body: unknown) => ({
  ours: applyDefaults(structuredClone(body)),
  typebox: Value.Default(ScenarioInputs, structuredClone(body)),
});

t.test('valid bodies of every weather source, and an empty one', async (t) => {
  const bodies: unknown[] = [
    {},
    BASE,
    ...Object.values(WEATHER).map((weather) => ({ ...BASE, weather })),
    { ...BASE, weather: { source: 'synthetic', climate: { wind_mean_ms: 9 } }, finance: { debt: { sizing: 'dscr' } } },
    {
      ...BASE,
      solar: { losses: { soiling: 5 } },
      wind: {
        turbine: {
          power_curve: [
            [3, 0],
            [12, 3000],
            [25, 3000],
          ],
        },
      },
    },
  ];
  for (const body of bodies) {
    const { ours, typebox } = both(body);
    t.same(ours, typebox);
  }
  const filled = applyDefaults(structuredClone(BASE)) as Record<string, Record<string, unknown>>;
  t.equal(filled.site.albedo, 0.2, 'a nested default is filled');
  t.same(
    filled.weather,
    (Value.Default(ScenarioInputs, {}) as Record<string, unknown>).weather,
    'the weather default and its variant defaults',
  );
  const tagless = applyDefaults({ weather: { climate: { wind_mean_ms: 9 } } }) as { weather: Record<string, unknown> };
  t.equal(tagless.weather.source, 'synthetic', 'weather without a source is synthetic, as TypeBox has it');
});

t.test('every generated bad-input body still fails, naming its field', async (t) => {
  // TypeBox's Value.Default also "defaults" values of the wrong type (an array where the weather
  // object goes becomes {"0": …, source: "synthetic"}); these are refused either way, so what
  // matters is that validation still names the field.
  const cases = schemaCases();
  t.ok(cases.length > 300, `${cases.length} bodies`);
  const wrong: string[] = [];
  for (const c of cases) {
    const result = validateScenario(JSON.parse(c.body));
    const paths = result.ok ? [] : result.errors.map((e) => e.path);
    if (result.ok || !paths.some((p) => p === c.path || p.startsWith(`${c.path}/`))) {
      wrong.push(`${c.name}: ${JSON.stringify(paths)}`);
    }
  }
  t.same(wrong, []);
});

t.test('random partial bodies (fast-check, fixed seed)', async (t) => {
  const full = Value.Default(ScenarioInputs, structuredClone(BASE)) as Record<string, unknown>;
  // Drop a random subset of the keys of a fully defaulted body, at every level.
  const prune = (value: unknown, keep: () => boolean): unknown => {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) if (keep()) out[k] = prune(v, keep);
    return out;
  };
  fc.assert(
    fc.property(fc.infiniteStream(fc.boolean()), (bits) => {
      const it = bits[Symbol.iterator]();
      const body = prune(full, () => it.next().value as boolean);
      const { ours, typebox } = both(body);
      return Value.Equal(ours, typebox);
    }),
    { seed: 20261122, numRuns: 500 },
  );
  t.pass('500 random bodies defaulted alike');
});

t.test('copyJson copies any JSON value as structuredClone does, sharing nothing', async (t) => {
  fc.assert(
    fc.property(fc.jsonValue(), (value) => {
      const copy = copyJson(value);
      t.same(copy, structuredClone(value));
      return JSON.stringify(copy) === JSON.stringify(value);
    }),
    { numRuns: 300 },
  );
  const nested = { a: [{ b: 1 }, [2, 3]], c: { d: null } };
  const copy = copyJson(nested) as typeof nested;
  (copy.a[0] as { b: number }).b = 9;
  (copy.a[1] as number[]).push(4);
  t.same(nested, { a: [{ b: 1 }, [2, 3]], c: { d: null } }, 'the original is untouched');
  const parsed = JSON.parse('{"__proto__": {"polluted": true}, "x": 1}');
  const cloned = copyJson(parsed) as Record<string, unknown>;
  t.equal(Object.getPrototypeOf(cloned), Object.prototype, 'a "__proto__" key does not set the prototype');
  t.ok(Object.hasOwn(cloned, '__proto__'), 'it stays an own key, as in the parsed body');
  t.equal(({} as Record<string, unknown>).polluted, undefined);
});
