// "Optimize this" on a scenario's page: the scenario's inputs as the base, a few capacities and
// limits to vary (each with its range and step), an objective, an optional constraint and a
// budget; posted to /api/optimizations, then the new optimization's page. A 400's problems are
// listed as the server names them.
import { postJson } from '../api.ts';
import { card, h } from '../dom.ts';
import { OBJECTIVE_KPIS } from '../kpis.ts';
import type { ScenarioItem } from '../types.ts';

const CHOICES: Array<{ path: string; label: string; min: number; max: number; step: number; on: boolean }> = [
  { path: '/solar/capacity_mw_dc', label: 'Solar (MW DC)', min: 0, max: 300, step: 10, on: true },
  { path: '/wind/capacity_mw', label: 'Wind (MW)', min: 0, max: 300, step: 10, on: true },
  { path: '/grid/export_limit_mw', label: 'Export limit (MW)', min: 50, max: 300, step: 10, on: false },
  { path: '/market/ppa_price_per_mwh', label: 'PPA price (per MWh)', min: 20, max: 80, step: 2, on: false },
  { path: '/solar/bifaciality', label: 'Bifaciality (PVWatts v8)', min: 0, max: 0.9, step: 0.1, on: false },
];
/** Every KPI with a direction, the way it is better (equity NPV first: the usual aim). */
const OBJECTIVES = OBJECTIVE_KPIS.map((k) => ({
  value: `${k.better === 'lower' ? 'minimize' : 'maximize'} ${k.name}`,
  label: `${k.better === 'lower' ? 'Minimize' : 'Maximize'} ${k.label}`,
})).sort((a, b) => Number(b.value === 'maximize equity_npv') - Number(a.value === 'maximize equity_npv'));

const num = (name: string, value: number, label: string) =>
  h('input', { type: 'number', name, value, step: 'any', 'aria-label': label, class: 'short' });

function variableRow(c: (typeof CHOICES)[number], i: number): HTMLElement {
  return h(
    'tr',
    {},
    h('td', {}, h('label', {}, h('input', { type: 'checkbox', name: `v${i}`, checked: c.on }), ' ', c.label)),
    h('td', {}, num(`v${i}-min`, c.min, `${c.label} min`)),
    h('td', {}, num(`v${i}-max`, c.max, `${c.label} max`)),
    h('td', {}, num(`v${i}-step`, c.step, `${c.label} step`)),
  );
}

/** The request the form says, from the scenario's inputs. */
function requestOf(form: HTMLFormElement, s: ScenarioItem): Record<string, unknown> {
  const data = new FormData(form);
  const n = (name: string) => Number(data.get(name));
  const variables = CHOICES.flatMap((c, i) =>
    data.get(`v${i}`) ? [{ path: c.path, min: n(`v${i}-min`), max: n(`v${i}-max`), step: n(`v${i}-step`) }] : [],
  );
  const [verb, kpi] = String(data.get('objective')).split(' ');
  const dscr = String(data.get('min-dscr') ?? '').trim();
  const { name: _name, ...base } = s.inputs ?? {};
  return {
    name: `Best design for ${s.name}`.slice(0, 200),
    base,
    variables,
    objective: { [verb]: kpi },
    constraints: dscr ? [{ kpi: 'min_dscr', min: Number(dscr) }] : [],
    max_evaluations: n('max-evaluations'),
  };
}

export function optimizeForm(s: ScenarioItem): HTMLElement {
  const general = h('p', { class: 'error', role: 'alert', 'data-testid': 'optimize-errors' });
  const form = h(
    'form',
    { 'data-testid': 'optimize-form' },
    h(
      'table',
      {},
      h('thead', {}, h('tr', {}, h('th', {}, 'Vary'), h('th', {}, 'min'), h('th', {}, 'max'), h('th', {}, 'step'))),
      h('tbody', {}, ...CHOICES.map(variableRow)),
    ),
    h(
      'p',
      {},
      h(
        'label',
        {},
        'Objective ',
        h('select', { name: 'objective' }, ...OBJECTIVES.map((o) => h('option', { value: o.value }, o.label))),
      ),
      ' ',
      h('label', {}, 'Min DSCR ', h('input', { type: 'number', name: 'min-dscr', step: 'any', class: 'short' })),
      ' ',
      h('label', {}, 'Evaluations at most ', num('max-evaluations', 100, 'Evaluations at most')),
    ),
    h('button', { type: 'submit' }, 'Optimize'),
    general,
  );
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    general.textContent = '';
    void postJson<{ id: string }>('/api/optimizations', requestOf(form, s)).then(({ status, json }) => {
      if (status === 201 && 'id' in json) {
        history.pushState(null, '', `/optimizations/${json.id}`);
        dispatchEvent(new PopStateEvent('popstate'));
        return;
      }
      const errors = (json as { errors?: Array<{ path: string; message: string }>; detail?: string }).errors;
      general.textContent = errors ? errors.map((x) => `${x.path}: ${x.message}`).join('\n') : `Error ${status}`;
    });
  });
  return card('Optimize this', h('p', { class: 'muted' }, 'Search for the best design around this scenario.'), form);
}
