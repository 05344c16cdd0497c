// Fills the defaults that depend on other fields or on the scenario itself, so the stored
// inputs are complete and the engine never guesses.
import { defaultMonthlyClimate } from './climate.defaults.ts';
import { TAX_EQUITY_DEFAULTS } from './schemas/inputs.finance.ts';
import type { ScenarioInputs, StoredInputs } from './schemas/inputs.ts';

const twelve = (v: number | number[] | undefined, fallback: number[]): number[] =>
  v === undefined ? fallback : typeof v === 'number' ? Array.from({ length: 12 }, () => v) : v;

/** A stable 32-bit seed from a scenario (or sweep) id, for synthetic weather when none is given. */
export function seedFromId(id: string): number {
  let h = 2166136261;
  for (const ch of id.replaceAll('-', '')) {
    h ^= ch.charCodeAt(0);
    h = Math.imul(h, 16777619) >>> 0;
  }
  return h >>> 0;
}

/** PVWatts-style total of a loss breakdown: losses compound, they do not add. */
function totalLossPercent(breakdown: Record<string, number>): number {
  let kept = 1;
  for (const loss of Object.values(breakdown)) kept *= 1 - loss / 100;
  return Math.round((1 - kept) * 100 * 1e4) / 1e4;
}

/** One turbine's rating, kW: its power curve's highest point, else rated_kw. */
export function turbineRatingKw(turbine: ScenarioInputs['wind']['turbine']): number {
  return turbine.power_curve ? Math.max(...turbine.power_curve.map(([, kw]) => kw)) : turbine.rated_kw;
}

interface ResolveContext {
  scenarioId: string;
  /** The web process's clock, read once at creation; the engine itself reads no clock. */
  now: Date;
}

export function resolveInputs(inputs: ScenarioInputs, ctx: ResolveContext): StoredInputs {
  const { site, solar, wind, weather } = inputs;
  const timezone = site.timezone_offset_hours ?? Math.max(-12, Math.min(14, Math.round(site.longitude / 15)));
  const tracking = solar.array_type === 'single_axis' || solar.array_type === 'single_axis_backtracking';
  const twoAxis = solar.array_type === 'two_axis';
  let resolvedWeather: StoredInputs['weather'];
  if (weather.source === 'synthetic') {
    const climate = weather.climate;
    const d = defaultMonthlyClimate(site.latitude, site.elevation_m);
    resolvedWeather = {
      ...weather,
      climate: {
        ...climate,
        clearness_index: twelve(climate.clearness_index, d.clearness_index),
        temp_mean_c: twelve(climate.temp_mean_c, d.temp_mean_c),
        temp_diurnal_range_c: twelve(climate.temp_diurnal_range_c, d.temp_diurnal_range_c),
      },
    };
  } else {
    resolvedWeather = weather;
  }
  return {
    ...inputs,
    site: { ...site, timezone_offset_hours: timezone },
    start_year: inputs.start_year ?? ctx.now.getUTCFullYear() + 1,
    seed: inputs.seed ?? seedFromId(ctx.scenarioId),
    weather: resolvedWeather,
    solar: {
      ...solar,
      tilt_deg: solar.tilt_deg ?? (tracking || twoAxis ? 0 : Math.min(90, Math.abs(site.latitude))),
      azimuth_deg: solar.azimuth_deg ?? (site.latitude >= 0 ? 180 : 0),
      losses_percent: solar.losses_breakdown ? totalLossPercent(solar.losses_breakdown) : solar.losses_percent,
    },
    wind: {
      ...wind,
      // A laid-out farm's capacity is its turbines × their rating (the validator checks a given one agrees).
      capacity_mw: wind.layout ? (wind.layout.x_m.length * turbineRatingKw(wind.turbine)) / 1000 : wind.capacity_mw,
      // A wake model replaces the flat `wake` category (worker/engine/wind/wind.ts leaves it out too).
      losses_percent: wind.losses_breakdown
        ? totalLossPercent(
            wind.layout && wind.wake_model !== 'constant'
              ? { ...wind.losses_breakdown, wake: 0 }
              : wind.losses_breakdown,
          )
        : wind.losses_percent,
    },
    // A flip without its terms takes SAM's defaults, written out so the scenario shows them.
    finance:
      (inputs.finance.structure ?? 'single_owner') !== 'single_owner' && !inputs.finance.tax_equity
        ? { ...inputs.finance, tax_equity: { ...TAX_EQUITY_DEFAULTS } }
        : inputs.finance,
  };
}
