// PVWatts v5 against NREL SSC's own test figures (test/ssc_test/cmod_pvwattsv5_test.cpp, SSC
// 2025.4.16, commit e97a19f8e): the Phoenix TMY2 file (test/fixtures/reference, SSC's
// `USA AZ Phoenix (TMY2).csv`), tilt 20°, azimuth 180°, GCR 0.4, losses 14.0757 %, inverter 96 %,
// DC/AC 1.2, standard module, every array type: the 4 kW default system ("DifferentTechnologyInputs")
// and the 1 MW one ("LargeSystem_cmod_pvwattsv5"), annual AC within 0.2 %.
import t from 'tap';
import { calculate } from '../worker/engine/index.ts';
import { resolvedInputs } from './fixtures/inputs.ts';
import { PHOENIX_SITE, PHOENIX_TMY2, SSC_PVWATTS_SOLAR } from './fixtures/ssc.pvwatts.ts';

const ARRAY_TYPES = [
  'fixed_open_rack',
  'fixed_roof_mount',
  'single_axis',
  'single_axis_backtracking',
  'two_axis',
] as const;
/** SSC's expected annual AC, kWh, by array type in the order above. */
const SSC_KWH: Record<number, number[]> = {
  4: [6908.13, 6802.72, 8632.33, 8721.21, 9687.06],
  1000: [1727032, 1700681, 2158084, 2180301, 2421765],
};

function annualKwh(systemKw: number, arrayType: (typeof ARRAY_TYPES)[number]): number {
  const inputs = resolvedInputs({
    site: PHOENIX_SITE,
    weather: { source: 'sam_csv', text: PHOENIX_TMY2 },
    solar: { ...SSC_PVWATTS_SOLAR, model: 'pvwatts_v5', capacity_mw_dc: systemKw / 1000, array_type: arrayType },
    wind: { capacity_mw: 0 },
  });
  // The engine's hourly output before rounding: year 1's delivered MWh (nothing curtails it).
  return calculate(inputs).annual[0].solar_mwh * 1000;
}

for (const [kw, expected] of Object.entries(SSC_KWH)) {
  t.test(`${kw} kW on Phoenix: every array type within 0.2 % of SSC`, async (t) => {
    ARRAY_TYPES.forEach((arrayType, i) => {
      const ours = annualKwh(Number(kw), arrayType);
      const difference = ours / expected[i] - 1;
      t.ok(
        Math.abs(difference) <= 0.002,
        `${arrayType}: ${ours.toFixed(2)} kWh vs SSC ${expected[i]} (${(difference * 100).toFixed(3)} %)`,
      );
    });
  });
}
