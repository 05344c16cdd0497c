// Which resource a scenario used (synthetic weather, or the files it was given: their kind, years
// and the place their header names) and, with a wind resource, its wind rose at hub height.
import { card, chartBox, h } from '../dom.ts';
import type { charts } from '../lazy.ts';
import type { ScenarioItem, Statements } from '../types.ts';

type ChartModule = Awaited<ReturnType<typeof charts>>;
interface FileInput {
  source: string;
  text?: string;
  years?: Array<{ source?: string; text: string }>;
}

const KIND: Record<string, string> = {
  synthetic: 'synthetic weather from the seed',
  supplied: 'hourly arrays given in the inputs',
  sam_csv: 'a SAM CSV weather file',
  epw: 'an EPW weather file',
  srw: 'an SRW wind resource file',
};

/** What a library reference (`source: "resource"`) is, by the place it stands in. */
const LIBRARY = { weather: 'a weather file of the library', wind: 'an SRW wind resource file of the library' };

/** The place a file's header names: SRW's and EPW's first line, a SAM CSV's second line by its names. */
function placeOf(text: string | undefined): string {
  if (!text) return '';
  const [first = '', second = ''] = text.slice(0, 2000).split(/\r?\n/);
  const cells = first.split(',').map((c) => c.trim());
  if (cells[0] === 'LOCATION') return cells.slice(1, 4).filter(Boolean).join(', ');
  const names = cells.map((c) => c.toLowerCase());
  const values = second.split(',').map((c) => c.trim());
  const picked = ['city', 'state', 'country'].map((n) => values[names.indexOf(n)]).filter((v) => v && v !== '-');
  if (picked.length) return picked.join(', ');
  // SRW: id, city, state, country, year, lat, lon, …
  return cells
    .slice(1, 5)
    .filter((c) => c && !c.endsWith('??'))
    .join(', ');
}

function describe(input: FileInput | undefined, fallback: string, library: string): string {
  if (!input) return fallback;
  if (input.source === 'years' && input.years) {
    const kinds = [
      ...new Set(input.years.map((y) => (y.source === 'resource' ? library : (KIND[y.source ?? 'srw'] ?? y.source)))),
    ].join(' / ');
    const place = placeOf(input.years[0]?.text);
    return `${input.years.length} real years (${kinds})${place ? `: ${place}` : ''}`;
  }
  if (input.source === 'resource') return library;
  const place = placeOf(input.text);
  return `${KIND[input.source] ?? input.source}${place ? `: ${place}` : ''}`;
}

/** The resource card, and how to draw its wind rose once the statements and charts are in. */
export function resourceSection(s: ScenarioItem): {
  element: HTMLElement;
  draw(st: Statements, drawn: ChartModule): void;
} {
  const weather = s.inputs?.weather as FileInput | undefined;
  const wind = s.inputs?.wind_resource as FileInput | undefined;
  const roseEl = wind ? chartBox('wind-rose', 'Wind rose at hub height', { tall: true }) : null;
  const element = card(
    'Resource',
    h(
      'dl',
      { class: 'resource', 'data-testid': 'resource' },
      h('dt', {}, 'Solar and weather'),
      h('dd', { 'data-testid': 'resource-weather' }, describe(weather, KIND.synthetic, LIBRARY.weather)),
      h('dt', {}, 'Wind'),
      h('dd', { 'data-testid': 'resource-wind' }, wind ? describe(wind, '', LIBRARY.wind) : 'from the weather'),
    ),
    roseEl ? h('h3', {}, 'Wind rose at hub height (% of the time)') : null,
    roseEl,
  );
  return {
    element,
    draw(st, drawn) {
      if (!roseEl) return;
      if (!st.wind_rose) {
        roseEl.replaceChildren(h('p', { class: 'muted' }, 'The wind resource has no directions.'));
        return;
      }
      roseEl.setAttribute('aria-label', `Wind rose at ${st.wind_rose.hub_height_m} m`);
      drawn.windRoseChart(roseEl, st.wind_rose, () => {
        roseEl.dataset.painted = 'true';
      });
    },
  };
}
