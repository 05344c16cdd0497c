// The byte writer prints exactly what JSON.stringify prints for kWh / 1000.
import t from 'tap';
import {
  FRACTION_TEXT,
  MAX_BYTES_PER_VALUE,
  type TextTable,
  THOUSANDS_TEXT,
  WHOLE_TEXT,
  writeKwhAsMwh,
} from '../shared/result/hourly.json.ts';

/** `[[v,…],…]`: `years` rows of `hours` values from `offset`, each value's text written by writeKwhAsMwh. */
function hourlyJson(kwh: Int32Array, offset: number, years: number, hours: number): string {
  const buf = new Uint8Array(MAX_BYTES_PER_VALUE);
  const text = (v: number) => Buffer.from(buf.subarray(0, writeKwhAsMwh(buf, 0, v))).toString('utf8');
  const rows = Array.from({ length: years }, (_, y) =>
    Array.from(kwh.subarray(offset + y * hours, offset + (y + 1) * hours), text).join(','),
  );
  return `[${rows.map((row) => `[${row}]`).join(',')}]`;
}

t.test('matches JSON.stringify for every shape of value', async (t) => {
  const values = [
    0, 1, 5, 9, 10, 50, 100, 999, 1000, 1001, 1010, 1100, 1500, 12345, 100000, 2147483647, -1, -1234, -2147483648,
  ];
  while (values.length < 2020) values.push(Math.floor(Math.random() * 400_000) - 1000);
  const years = 2;
  const hours = values.length / years;
  const kwh = Int32Array.from(values.slice(0, years * hours));
  const expected = JSON.stringify(
    Array.from({ length: years }, (_, y) => Array.from(kwh.subarray(y * hours, (y + 1) * hours), (v) => v / 1000)),
  );
  t.equal(hourlyJson(kwh, 0, years, hours), expected);
  t.same(JSON.parse(hourlyJson(kwh, hours, 1, hours)), [Array.from(kwh.subarray(hours), (v) => v / 1000)], 'offset');
});

t.test('the value text tables match JSON.stringify', async (t) => {
  const decode = (table: TextTable, i: number) =>
    String.fromCharCode(...Array.from({ length: table.length[i] }, (_, k) => (table.text[i] >>> (8 * k)) & 0xff));
  const wrong: string[] = [];
  for (let i = 0; i < 1000; i++) {
    if (decode(WHOLE_TEXT, i) !== `,${JSON.stringify(i)}`) wrong.push(`whole ${i}`);
    if (decode(THOUSANDS_TEXT, i) !== String(i).padStart(3, '0')) wrong.push(`thousands ${i}`);
    if (decode(FRACTION_TEXT, i) !== JSON.stringify(i / 1000).slice(1)) wrong.push(`fraction ${i}`);
  }
  t.same(wrong, []);
});
