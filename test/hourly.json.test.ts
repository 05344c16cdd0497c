// The byte writer prints exactly what JSON.stringify prints for kWh / 1000.
import t from 'tap';
import { hourlyJsonBytes } from '../worker/hourly.json.ts';

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
  t.equal(hourlyJsonBytes(kwh, 0, years, hours).toString('utf8'), expected);
  t.same(
    JSON.parse(hourlyJsonBytes(kwh, hours, 1, hours).toString()),
    [Array.from(kwh.subarray(hours), (v) => v / 1000)],
    'offset',
  );
});
