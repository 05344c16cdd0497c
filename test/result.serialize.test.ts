// The stored form of a result (shared/result/stored.form.ts), made back into the answer's gzip by
// our own deflate encoder (shared/result/stored.gzip.ts), must inflate to exactly the JSON that
// JSON.stringify makes of the result (hourly values as kWh / 1000), with a CRC-32 and length that
// gunzip accepts; the ETag must follow the JSON.
import { crc32, gunzipSync } from 'node:zlib';
import t, { type Test } from 'tap';
import { crc32Combine } from '../shared/result/crc32.combine.ts';
import { codeLengths } from '../shared/result/deflate.huffman.ts';
import { isStoredForm, parseStoredForm, StoredFormWriter } from '../shared/result/stored.form.ts';
import { fullGzip, gzipPieces, storedHourly } from '../shared/result/stored.gzip.ts';
import { calculate } from '../worker/engine/index.ts';
import { type ResultStatements, ResultWriter, serializeResult, yearKwh } from '../worker/result/serialize.ts';
import { resolvedInputs } from './fixtures/inputs.ts';

const HOURS = 8760;
const STATEMENTS = { kpis: { npv: 1.5 }, note: 'é' } as unknown as ResultStatements;

/** The JSON written the obvious way: the statements, then each series' year rows of kWh / 1000. */
function expectedJson(scenarioId: string, statements: ResultStatements, years: Int32Array[]): string {
  const rows = (from: 'solar' | 'wind') =>
    years.map((kwh) => {
      const hours = kwh.length / 2;
      return Array.from(from === 'solar' ? kwh.subarray(0, hours) : kwh.subarray(hours), (v) => v / 1000);
    });
  return JSON.stringify({
    scenario_id: scenarioId,
    ...statements,
    solar_hourly: rows('solar'),
    wind_hourly: rows('wind'),
  });
}

function written(years: Int32Array[], writer = new ResultWriter()) {
  writer.begin();
  for (const kwh of years) writer.year(kwh);
  return writer.finish('s-1', STATEMENTS);
}

/** Years of `hours` solar then `hours` wind values, each made by `value(year, series, hour)`. */
function years(count: number, value: (y: number, series: number, h: number) => number, hours = HOURS): Int32Array[] {
  return Array.from({ length: count }, (_, y) =>
    Int32Array.from({ length: 2 * hours }, (_, i) => value(y, Math.floor(i / hours), i % hours)),
  );
}

/** A small deterministic generator, so a failure can be replayed. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

/** The answer's gzip made from the stored form with hourly arrays, which every result written here has. */
function full(r: { statements_gzip: Buffer | null }): Buffer {
  if (!r.statements_gzip) throw new Error('the result has no hourly form');
  return fullGzip(parseStoredForm(r.statements_gzip));
}

function checkRoundTrip(tt: Test, input: Int32Array[], what: string): void {
  const result = written(input);
  tt.equal(gunzipSync(full(result)).toString('utf8'), expectedJson('s-1', STATEMENTS, input), what);
}

t.test('a real engine result inflates to the JSON of its statements and hourly kWh', async (t) => {
  const result = calculate(resolvedInputs());
  const { solar_hourly, wind_hourly, ...statements } = result;
  const hours = result.hours_per_year;
  const input = Array.from({ length: result.years }, (_, y) =>
    yearKwh(solar_hourly.subarray(y * hours, (y + 1) * hours), wind_hourly.subarray(y * hours, (y + 1) * hours)),
  );
  const id = '01936f3e-0000-7000-8000-000000000042';
  const stored = serializeResult(id, result);
  const json = gunzipSync(full(stored)).toString('utf8');
  t.equal(json, expectedJson(id, statements, input));
  t.same(
    JSON.parse(json).solar_hourly[3].slice(0, 24),
    Array.from(solar_hourly.subarray(3 * hours, 3 * hours + 24), (v) => Math.round(v * 1000) / 1000),
  );
  t.equal(gunzipSync(stored.statements_lite_gzip).toString('utf8'), JSON.stringify({ scenario_id: id, ...statements }));
  t.ok(full(stored).length < 1_000_000, `${full(stored).length} bytes, under 1 MB`);
  const form = stored.statements_gzip as Buffer;
  t.ok(isStoredForm(form) && form[0] !== 0x1f, 'stored in the binary form, not as gzip');
  t.ok(
    form.length < 0.85 * full(stored).length,
    `stored ${form.length} bytes, the answer's gzip ${full(stored).length}`,
  );
  // The years one by one (?year, CSV) are the JSON's numbers.
  const parsed = JSON.parse(json);
  const all = storedHourly(parseStoredForm(form));
  t.same(Array.from(all.wind_hourly[24]), parsed.wind_hourly[24], 'every year: the last');
  const one = storedHourly(parseStoredForm(form), 4);
  t.same(Array.from(one.solar_hourly[3]), parsed.solar_hourly[3], 'one year: the 4th, in its place');
  t.equal(one.solar_hourly[0], undefined, 'and only it');
  t.same(storedHourly(parseStoredForm(form), 26).solar_hourly, [], 'a year the result has not: no row');
  t.same(stored.kpis, result.kpis);
});

t.test('the form without hourly arrays is compressed with string matching: a third of its JSON or less', async (t) => {
  // Most of a sweep variant's disk when its hourly arrays are not kept (bench #17); Huffman-only
  // coding, which finds no repeated keys or digits, stored 63 % of the JSON.
  const result = calculate(resolvedInputs());
  const stored = serializeResult('01936f3e-0000-7000-8000-000000000044', result);
  const json = gunzipSync(stored.statements_lite_gzip);
  t.ok(json.length > 20_000, `${json.length} bytes of JSON: the statements of a 25-year scenario`);
  const share = stored.statements_lite_gzip.length / json.length;
  t.ok(share <= 1 / 3, `${stored.statements_lite_gzip.length} bytes stored, ${(100 * share).toFixed(1)} % of the JSON`);
  t.equal(
    gunzipSync(full(stored))
      .subarray(0, json.length - 1)
      .toString(),
    json.subarray(0, -1).toString(),
  );
});

t.test('with a battery: its four series follow wind_hourly, the lite form has none of them', async (t) => {
  const result = calculate(
    resolvedInputs({
      wind: { capacity_mw: 10 },
      grid: { export_limit_mw: 60 },
      market: {
        merchant_hour_of_day_multipliers: Array.from({ length: 24 }, (_, h) =>
          h < 5 ? 0.1 : h >= 18 && h < 22 ? 3 : 1,
        ),
      },
      storage: { power_mw: 50, energy_mwh: 200, charge_from_grid: true },
    }),
  );
  const id = '01936f3e-0000-7000-8000-000000000043';
  const stored = serializeResult(id, result);
  const hours = result.hours_per_year;
  const rows = (a: Float64Array | undefined) =>
    Array.from({ length: result.years }, (_, y) =>
      Array.from((a as Float64Array).subarray(y * hours, (y + 1) * hours), (v) => Math.round(v * 1000) / 1000),
    );
  const {
    solar_hourly,
    wind_hourly,
    storage_charge_hourly,
    storage_discharge_hourly,
    storage_soc_hourly,
    grid_hourly,
    ...statements
  } = result;
  const expected = JSON.stringify({
    scenario_id: id,
    ...statements,
    solar_hourly: rows(solar_hourly),
    wind_hourly: rows(wind_hourly),
    storage_charge_hourly: rows(storage_charge_hourly),
    storage_discharge_hourly: rows(storage_discharge_hourly),
    storage_soc_hourly: rows(storage_soc_hourly),
    grid_hourly: rows(grid_hourly),
  });
  const json = gunzipSync(full(stored)).toString('utf8');
  t.ok(json === expected, 'the full form is the JSON of the statements and the six hourly series');
  const form = parseStoredForm(stored.statements_gzip as Buffer);
  t.equal(form.names.length, 6, 'six series stored');
  t.same(
    Array.from(storedHourly(form, 25).grid_hourly?.[24] ?? []),
    rows(grid_hourly)[24],
    'a year of grid_hourly read alone',
  );
  t.ok(
    (grid_hourly as Float64Array).some((v) => v < 0),
    'grid_hourly has negative hours (charging from the grid)',
  );
  t.equal(gunzipSync(stored.statements_lite_gzip).toString('utf8'), JSON.stringify({ scenario_id: id, ...statements }));
});

t.test('yearKwh rounds as Math.round does, halves and edge values included', async (t) => {
  const mwh = Float64Array.from([
    0,
    0.0005,
    -0.0005,
    0.0015,
    -0.0025,
    1.2345,
    0.49999999999999994 / 1000,
    2147483.647,
    NaN,
    1e300,
    -0,
  ]);
  const kwh = yearKwh(mwh, mwh.subarray(0, 0));
  t.same(Array.from(kwh), Array.from(Int32Array.from(mwh, (x) => Math.round(x * 1000))));
  const next = random(7);
  const many = Float64Array.from({ length: 100_000 }, () => (next() - 0.5) * 10 ** (next() * 8 - 3));
  t.same(Array.from(yearKwh(many, many)), Array.from(Int32Array.from([...many, ...many], (x) => Math.round(x * 1000))));
});

t.test('random values: negatives, huge, the int32 extremes, runs of repeats', async (t) => {
  const next = random(42);
  const pick = (): number => {
    const r = next();
    if (r < 0.05)
      return [0, 1, -1, 2147483647, -2147483648, 999_999, 1_000_000, 999_999_999, 1e9][Math.floor(next() * 9)];
    if (r < 0.2) return Math.floor((next() - 0.5) * 2 ** 32) | 0;
    if (r < 0.4) return Math.floor((next() - 0.3) * 2_000_000);
    return Math.floor(next() * 90_000);
  };
  for (const seed of [1, 2, 3]) {
    let last = 0;
    const input = years(3, () => {
      // Runs of the value before: the encoder sends them as matches.
      if (next() < 0.3) return last;
      last = pick();
      return last;
    });
    checkRoundTrip(t, input, `seed ${seed}`);
  }
});

t.test('every fraction 0..999, with integer parts of every length', async (t) => {
  const wholes = [0, 7, 42, 999, 1000, 12_345, 999_999, 2_147_482];
  const input = years(2, (y, s, h) => {
    const whole = wholes[(h + y + s) % wholes.length];
    const v = whole * 1000 + (h % 1000);
    return (h + s) % 3 === 0 ? -v : v;
  });
  checkRoundTrip(t, input, 'fractions');
});

t.test('zero runs and repeat runs of every length around the match limits', async (t) => {
  // Runs of 1..300 values, so text runs cross 258 bytes (the longest match) at every distance.
  for (const value of [0, 1, 1500, 86_949, -1, -2_147_483_648]) {
    const input = years(2, (_y, s, h) => {
      let run = 1;
      let k = h;
      while (k >= run) {
        k -= run;
        run++;
      }
      return (run + s) % 2 === 0 && k > 0 ? value : value + run;
    });
    checkRoundTrip(t, input, `runs of ${value}`);
  }
  checkRoundTrip(
    t,
    years(3, () => 0),
    'all zero',
  );
  checkRoundTrip(
    t,
    years(2, () => -2_147_483_648),
    'all the same 13-byte value',
  );
  checkRoundTrip(
    t,
    years(2, (y, s, h) => (y === 1 && s === 1 && h === 4321 ? 12_345 : 0)),
    'a single non-zero',
  );
  checkRoundTrip(
    t,
    years(1, (_y, _s, h) => (h === 0 ? 5 : 0)),
    'only the first non-zero',
  );
});

t.test('rows the first year fits badly, and short or empty rows', async (t) => {
  const next = random(9);
  checkRoundTrip(
    t,
    years(3, (y) => (y === 0 ? 0 : Math.floor(next() * 2 ** 31))),
    'zeros, then large values',
  );
  checkRoundTrip(
    t,
    years(3, (y) => (y === 0 ? Math.floor(next() * 1000) : -Math.floor(next() * 2 ** 31))),
    'small, then negative',
  );
  for (const hours of [0, 1, 2, 3, 5, 2049, 4100]) {
    checkRoundTrip(
      t,
      years(2, (y, s, h) => (h % 7 === 0 ? 0 : y * 1000 + s * 17 + h), hours),
      `${hours} hours`,
    );
  }
});

t.test('a reused writer starts afresh', async (t) => {
  const writer = new ResultWriter();
  const first = years(2, (_y, _s, h) => h * 3);
  const second = years(3, (_y, _s, h) => (h % 24 < 6 ? 0 : 50_000 + h));
  written(first, writer);
  const again = written(second, writer);
  t.equal(gunzipSync(full(again)).toString('utf8'), expectedJson('s-1', STATEMENTS, second));
  t.equal(again.etag, written(second).etag, 'same result, same ETag');
});

t.test('gunzip checks the CRC-32 and length, and the ETag follows the JSON', async (t) => {
  const input = years(2, (_y, s, h) => (s * 31 + h * 17) % 90_000);
  const stored = written(input);
  const badCrc = Buffer.from(full(stored));
  badCrc[badCrc.length - 8] ^= 1;
  t.throws(() => gunzipSync(badCrc), 'a wrong CRC-32 is refused');
  const badLength = Buffer.from(full(stored));
  badLength[badLength.length - 4] ^= 1;
  t.throws(() => gunzipSync(badLength), 'a wrong length is refused');

  t.match(stored.etag, /^[\w-]{27}$/);
  t.equal(written(input).etag, stored.etag, 'deterministic');
  const changed = input.map((kwh) => kwh.slice());
  changed[1][HOURS + 5000] += 1;
  t.not(written(changed).etag, stored.etag, 'one value 1 kWh more');
  t.equal(gunzipSync(full(written(changed))).toString('utf8'), expectedJson('s-1', STATEMENTS, changed));
});

t.test('answers made at once, their pieces interleaved, are each the one made alone', async (t) => {
  const a = written(years(3, (y, s, h) => (y * 7 + s * 31 + h * 17) % 90_000)).statements_gzip as Buffer;
  const b = written(years(2, (_y, s, h) => (h % 24 < 6 ? 0 : 50_000 + s + h))).statements_gzip as Buffer;
  const alone = [a, b].map((x) => fullGzip(parseStoredForm(x)));
  const pieces = [a, b].map((x) => gzipPieces(parseStoredForm(x)));
  const made: Uint8Array[][] = [[], []];
  for (let more = true; more; ) {
    more = false;
    pieces.forEach((g, i) => {
      const next = g.next();
      if (!next.done) {
        made[i].push(next.value);
        more = true;
      }
    });
  }
  t.ok(Buffer.concat(made[0]).equals(alone[0]), 'the first');
  t.ok(Buffer.concat(made[1]).equals(alone[1]), 'the second');
});

t.test('a damaged stored form is refused, not misread', async (t) => {
  const stored = written(years(2, (_y, s, h) => (s * 31 + h * 17) % 90_000)).statements_gzip as Buffer;
  t.throws(() => parseStoredForm(stored.subarray(0, stored.length - 1)), /rows do not end/, 'cut short');
  t.throws(() => parseStoredForm(Buffer.concat([stored, Buffer.from([0])])), /rows do not end/, 'a byte too many');
  const wrongSeries = Buffer.from(stored);
  wrongSeries[24] = 255;
  t.throws(() => parseStoredForm(wrongSeries), /unknown series/);
  t.throws(() => parseStoredForm(gunzipSync(full({ statements_gzip: stored }))), /not a stored form/, 'JSON text');
});

t.test('stored integers of every width come back exactly: int32 kWh and wide many-decimal values', async (t) => {
  const writer = new StoredFormWriter();
  writer.begin();
  writer.decimals = 9;
  const wide = Float64Array.from([
    0,
    -0,
    1,
    -1,
    2 ** 28 - 1,
    2 ** 28,
    -(2 ** 28),
    2 ** 31,
    -(2 ** 31) - 1,
    2 ** 40 + 3,
    -(2 ** 51),
    2 ** 52 - 1,
    -(2 ** 52) + 1,
  ]);
  writer.addRow('solar_hourly', wide);
  const int32 = Int32Array.from([
    0,
    -1,
    1,
    2 ** 28 - 1,
    2 ** 28,
    -(2 ** 28),
    -(2 ** 28) - 1,
    2 ** 31 - 1,
    -(2 ** 31),
    127,
    128,
    -64,
    -65,
  ]);
  writer.addRow('wind_hourly', int32);
  const form = parseStoredForm(writer.finish(new Uint8Array([2, 0]), 0, 0));
  t.same(
    Array.from(storedHourly(form).solar_hourly[0]),
    Array.from(wide, (n) => n / 1e9),
    'n / 10^9 for each wide n',
  );
  t.same(
    Array.from(storedHourly(form).wind_hourly[0]),
    Array.from(int32, (n) => n / 1e9),
    'and each int32',
  );
  t.equal(form.decimals, 9);
  const bad = new StoredFormWriter();
  bad.begin();
  t.throws(
    () => bad.addRow('solar_hourly', Float64Array.from([0.5])),
    /not an integer under 2\^52/,
    'a fraction is refused',
  );
  t.throws(
    () => bad.addRow('solar_hourly', Float64Array.from([Number.NaN])),
    /not an integer under 2\^52/,
    'NaN is refused',
  );
  t.throws(() => bad.addRow('solar_hourly', Float64Array.from([2 ** 52])), /not an integer under/, '2^52 is refused');
});

t.test('crc32Combine agrees with zlib on concatenations', async (t) => {
  const next = random(5);
  for (const [a, b] of [
    [0, 0],
    [3, 0],
    [0, 3],
    [1, 1],
    [100, 70_000],
    [12_345, 1],
  ]) {
    const left = Buffer.from(Array.from({ length: a }, () => Math.floor(next() * 256)));
    const right = Buffer.from(Array.from({ length: b }, () => Math.floor(next() * 256)));
    t.equal(crc32Combine(crc32(left), crc32(right), b), crc32(Buffer.concat([left, right])), `${a} + ${b} bytes`);
  }
});

t.test('code lengths stay within the limit and make a complete code', async (t) => {
  // Fibonacci counts make the deepest Huffman tree: 29 levels unlimited.
  const fibonacci = [1, 1];
  while (fibonacci.length < 30) fibonacci.push(fibonacci[fibonacci.length - 1] + fibonacci[fibonacci.length - 2]);
  for (const [counts, limit] of [
    [fibonacci, 15],
    [fibonacci.slice(0, 19), 7],
    [[0, 0, 9, 0], 15],
  ] as const) {
    const lengths = codeLengths(counts, limit);
    t.ok(Math.max(...lengths) <= limit, `at most ${limit} bits`);
    t.equal(
      lengths.reduce((kraft, bits) => kraft + (bits > 0 ? 2 ** -bits : 0), 0),
      1,
      'complete',
    );
    t.ok(
      counts.every((count, s) => count === 0 || lengths[s] > 0),
      'every counted symbol has a code',
    );
  }
});

t.test('without hourly arrays: only the statements, their own ETag', async (t) => {
  const writer = new ResultWriter();
  writer.begin();
  const lite = writer.finish('s-2', STATEMENTS, false);
  t.equal(lite.statements_gzip, null, 'no full form');
  t.equal(
    gunzipSync(lite.statements_lite_gzip).toString('utf8'),
    JSON.stringify({ scenario_id: 's-2', ...STATEMENTS }),
  );
  t.match(lite.etag, /^[\w-]{27}$/);
});

t.test('hourly precision at every size: a 4 kW system keeps its annual sums within 0.05 %', async (t) => {
  for (const [what, solarMw, windMw] of [
    ['4 kW solar', 0.004, 0],
    ['10 kW solar + 5 kW wind', 0.01, 0.005],
    ['default 100 + 100 MW', 100, 100],
  ] as const) {
    const r = calculate(resolvedInputs({ solar: { capacity_mw_dc: solarMw }, wind: { capacity_mw: windMw } }));
    const { solar_hourly, wind_hourly, ...statements } = r;
    const text = gunzipSync(full(serializeResult('s-p', r))).toString('utf8');
    const stored = JSON.parse(text) as { solar_hourly: number[][]; wind_hourly: number[][] };
    let worst = 0;
    for (let y = 0; y < 25; y++) {
      for (const [series, engine] of [
        [stored.solar_hourly[y], solar_hourly],
        [stored.wind_hourly[y], wind_hourly],
      ] as const) {
        let exact = 0;
        for (let h = 0; h < HOURS; h++) exact += engine[y * HOURS + h];
        const sum = series.reduce((a, b) => a + b, 0);
        if (exact > 0) worst = Math.max(worst, Math.abs(sum - exact) / exact);
      }
    }
    t.ok(worst <= 0.0005, `${what}: the largest annual-sum difference is ${(worst * 100).toFixed(5)} %`);
    // The contract: exactly JSON.stringify of the statements with the stored (rounded) arrays.
    t.equal(text, JSON.stringify({ scenario_id: 's-p', ...statements, ...stored }), `${what}: JSON.stringify's text`);
    const decimals = Math.max(
      ...stored.solar_hourly[0].concat(stored.wind_hourly[0]).map((v) => (String(v).split('.')[1] ?? '').length),
    );
    if (solarMw >= 100) t.equal(decimals, 3, `${what}: 1 kWh (3 decimals), the fast encoder`);
    else t.ok(decimals > 3, `${what}: ${decimals} decimals of MWh`);
  }
});
