// `/`: scenarios and sweeps, newest first, with live statuses and paging through the API's cursor;
// a form to create a scenario (with a buyer's load, optional; its files chosen, or picked from the
// library) and one to create a sweep of up to three parameters.
import { follow, getJson, type Problem, postJson } from '../api.ts';
import { amount, h, main, percent, when } from '../dom.ts';
import {
  clearErrors,
  FILE_FIELDS,
  fieldElement,
  fileElement,
  loadFieldset,
  offerLibrary,
  offerLoadStrategy,
  readFiles,
  readScenario,
  SCENARIO_FIELDS,
  showErrors,
} from '../forms.ts';
import { statusBadge } from '../live.ts';
import type { Page, ScenarioItem, SweepItem } from '../types.ts';

const FINISHED = new Set(['succeeded', 'failed', 'cancelled']);

export async function homePage(stop: AbortSignal, navigate: (path: string) => void): Promise<void> {
  const scenarios = pagedList<ScenarioItem>({
    testid: 'scenario-list',
    headers: ['Name', 'Status', 'Equity NPV', 'Equity IRR', 'Created'],
    more: 'More scenarios',
    path: '/api/scenarios?limit=15&sweep_id=none',
    row: (s) => scenarioRow(s, stop),
    empty: 'None yet: create one with the form.',
  });
  const sweeps = pagedList<SweepItem>({
    testid: 'sweep-list',
    headers: ['Name', 'Status', 'Variants', 'Created'],
    more: 'More sweeps',
    path: '/api/sweeps?limit=10',
    row: sweepRow,
    empty: 'None yet.',
  });
  const create = scenarioForm(navigate);
  main().replaceChildren(
    h('h1', {}, 'Scenarios and sweeps'),
    h(
      'div',
      { class: 'columns' },
      h(
        'section',
        { 'aria-labelledby': 'scenarios-h' },
        h('h2', { id: 'scenarios-h' }, 'Scenarios'),
        ...scenarios.elements,
        h('h2', { id: 'sweeps-h' }, 'Sweeps'),
        ...sweeps.elements,
      ),
      h(
        'section',
        { 'aria-labelledby': 'create-h' },
        h('h2', { id: 'create-h' }, 'New scenario'),
        create,
        h('h2', {}, 'New sweep'),
        sweepForm(navigate),
      ),
    ),
  );
  await Promise.all([scenarios.load(), sweeps.load(), offerLibrary(create)]);
}

interface PagedListOptions<T> {
  testid: string;
  headers: string[];
  /** The label of the button that loads the next page. */
  more: string;
  /** The list's API path with its query, without a cursor. */
  path: string;
  row: (item: T) => HTMLElement;
  /** What the list says when it has no rows at all. */
  empty: string;
}

/** A table filled a page at a time through the API's cursor, with a button for the next page. */
function pagedList<T>(options: PagedListOptions<T>): { elements: HTMLElement[]; load(): Promise<void> } {
  const body = h('tbody');
  const more = h('button', { type: 'button', class: 'secondary', hidden: true }, options.more);
  let cursor: string | null = null;
  const load = async () => {
    const q = cursor ? `&cursor=${encodeURIComponent(cursor)}` : '';
    const { json } = await getJson<Page<T>>(`${options.path}${q}`);
    for (const item of json.items) body.append(options.row(item));
    cursor = json.next_cursor;
    more.hidden = !cursor;
    if (!json.items.length && !body.children.length)
      body.append(h('tr', {}, h('td', { colspan: options.headers.length, class: 'muted' }, options.empty)));
  };
  more.addEventListener('click', () => void load());
  const table = h(
    'table',
    { 'data-testid': options.testid },
    h('thead', {}, h('tr', {}, ...options.headers.map((name) => h('th', {}, name)))),
    body,
  );
  return { elements: [h('div', { class: 'scroll' }, table), more], load };
}

function sweepRow(s: SweepItem): HTMLElement {
  return h(
    'tr',
    {},
    h('td', {}, h('a', { href: `/sweeps/${s.id}`, 'data-link': true }, s.name)),
    h('td', {}, statusBadge(s.status, 'row-status')),
    h('td', {}, `${s.counts.succeeded + s.counts.failed + s.counts.cancelled} / ${s.counts.total}`),
    h('td', {}, when(s.created_at)),
  );
}

/** A list row; an unfinished scenario's status follows its event stream. */
function scenarioRow(s: ScenarioItem, stop: AbortSignal): HTMLElement {
  const status = h('td', {}, statusBadge(s.status, 'row-status'));
  const npv = h('td', { class: 'num' }, amount(s.kpis?.equity_npv));
  const irr = h('td', { class: 'num' }, percent(s.kpis?.equity_irr));
  const row = h(
    'tr',
    {},
    h(
      'td',
      {},
      h('a', { href: `/scenarios/${s.id}`, 'data-link': true }, s.name),
      s.sweep_id ? h('span', { class: 'muted' }, ` (variant ${s.variant_index})`) : null,
    ),
    status,
    npv,
    irr,
    h('td', {}, when(s.created_at)),
  );
  if (!FINISHED.has(s.status)) {
    void follow(
      `/api/scenarios/${s.id}/events`,
      (e) => {
        if (e.event === 'running' || e.event === 'queued') status.replaceChildren(statusBadge(e.event, 'row-status'));
        if (e.event === 'succeeded') {
          const kpis = (e.data as { kpis?: Record<string, number | null> }).kpis;
          status.replaceChildren(statusBadge('succeeded', 'row-status'));
          npv.textContent = amount(kpis?.equity_npv);
          irr.textContent = percent(kpis?.equity_irr);
        }
        if (e.event === 'failed' || e.event === 'cancelled') status.replaceChildren(statusBadge(e.event, 'row-status'));
        return FINISHED.has(e.event);
      },
      { stop },
    );
  }
  return row;
}

function scenarioForm(navigate: (path: string) => void): HTMLFormElement {
  const general = h('pre', { class: 'error general', role: 'alert', 'data-testid': 'form-errors' });
  const form = h(
    'form',
    { class: 'card', 'data-testid': 'scenario-form', novalidate: true },
    h('div', { class: 'grid' }, ...SCENARIO_FIELDS.map(fieldElement)),
    loadFieldset(),
    h('div', { class: 'grid' }, ...FILE_FIELDS.map(fileElement)),
    h(
      'details',
      {},
      h('summary', {}, 'Full inputs as JSON'),
      h('label', { for: 'f-json' }, 'Inputs (the fields above are set on top of them)'),
      h('textarea', {
        id: 'f-json',
        name: 'json',
        rows: 8,
        spellcheck: 'false',
        placeholder: '{"solar": {"tilt_deg": 25}, "finance": {"tax_credits": {"solar": {"itc_percent": 30}}}}',
      }),
    ),
    general,
    h('button', { type: 'submit' }, 'Create scenario'),
  );
  offerLoadStrategy(form);
  form.addEventListener('input', () => offerLoadStrategy(form));
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    clearErrors(form, general);
    const read = readScenario(form);
    if ('jsonError' in read) {
      general.textContent = `Full inputs: ${read.jsonError}`;
      return;
    }
    const res = await postJson<ScenarioItem>('/api/scenarios', { ...read.body, ...(await readFiles(form)) });
    if (res.status === 201) navigate(`/scenarios/${(res.json as ScenarioItem).id}`);
    else
      showErrors(
        form,
        (res.json as Problem).errors ?? [{ path: '/', message: (res.json as Problem).title ?? `HTTP ${res.status}` }],
        general,
      );
  });
  return form;
}

/** Paths a sweep commonly varies, for the parameter pickers. */
const SWEEP_PATHS = [
  '/solar/capacity_mw_dc',
  '/wind/capacity_mw',
  '/grid/export_limit_mw',
  '/market/ppa_price_per_mwh',
  '/solar/dc_ac_ratio',
  '/solar/array_type',
  '/solar/model',
  '/solar/bifaciality',
  '/wind/turbine/hub_height_m',
  '/storage/power_mw',
  '/storage/energy_mwh',
  '/finance/debt/fraction',
  '/finance/tax_credits/solar/itc_percent',
  '/finance/tax_credits/wind/ptc_per_mwh',
  '/seed',
];

const PARAMETER_SLOTS = [0, 1, 2];

/** Parameter i's path picker, its values and where its errors show. */
function parameterRow(i: number): HTMLElement {
  const select = h(
    'select',
    { id: `p${i}-path`, 'data-param': String(i) },
    h('option', { value: '' }, '—'),
    ...SWEEP_PATHS.map((p) => h('option', { value: p }, p)),
  );
  const values = h('input', {
    id: `p${i}-values`,
    type: 'text',
    placeholder: 'e.g. 50, 100, 150',
    'data-values': String(i),
  });
  return h(
    'div',
    { class: 'param' },
    h('label', { for: `p${i}-path` }, `Parameter ${i + 1}`),
    select,
    h('label', { for: `p${i}-values` }, 'Values (comma-separated)'),
    values,
    h('span', { class: 'error', id: `p${i}-error`, role: 'alert' }),
  );
}

/** The parameters chosen in the sweep form, as the API's `vary`: numbers where a value reads as one. */
function readParameters(form: HTMLFormElement): Array<{ path: string; values: Array<number | string> }> {
  return PARAMETER_SLOTS.map((i) => ({
    path: (form.querySelector(`#p${i}-path`) as HTMLSelectElement).value,
    values: (form.querySelector(`#p${i}-values`) as HTMLInputElement).value
      .split(',')
      .map((v) => v.trim())
      .filter((v) => v !== '')
      .map((v) => (Number.isFinite(Number(v)) ? Number(v) : v)),
  })).filter((p) => p.path);
}

/** A refused sweep's errors: each beside its parameter where the pointer names one, the rest below. */
function showSweepErrors(form: HTMLFormElement, general: HTMLElement, status: number, problem: Problem): void {
  const errors = problem.errors ?? [{ path: '/', message: problem.title ?? `HTTP ${status}` }];
  const rest: string[] = [];
  for (const err of errors) {
    const m = /^\/vary\/(\d)/.exec(err.path);
    const slot = m ? form.querySelector(`#p${m[1]}-error`) : null;
    if (slot) slot.textContent = err.message;
    else rest.push(`${err.path}: ${err.message}`);
  }
  general.textContent = rest.join('\n');
}

function sweepForm(navigate: (path: string) => void): HTMLFormElement {
  const general = h('pre', { class: 'error general', role: 'alert', 'data-testid': 'sweep-form-errors' });
  const count = h('output', { 'data-testid': 'variant-count', 'aria-live': 'polite' }, '0 variants');
  const name = h('input', { id: 'sweep-name', type: 'text', value: 'My sweep' });
  const form = h(
    'form',
    { class: 'card', 'data-testid': 'sweep-form', novalidate: true },
    h(
      'p',
      { class: 'muted' },
      'Varies up to three inputs of the scenario above (every combination); the other fields are its base.',
    ),
    h('label', { for: 'sweep-name' }, 'Sweep name'),
    name,
    ...PARAMETER_SLOTS.map(parameterRow),
    h('p', {}, count),
    general,
    h('button', { type: 'submit' }, 'Create sweep'),
  );
  const update = () => {
    const ps = readParameters(form);
    const n = ps.length ? ps.reduce((a, p) => a * p.values.length, 1) : 0;
    count.textContent = `${n.toLocaleString('en-US')} variant${n === 1 ? '' : 's'}`;
  };
  form.addEventListener('input', update);
  form.addEventListener('change', update);
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    general.textContent = '';
    for (const s of form.querySelectorAll('.error')) s.textContent = '';
    const scenario = document.querySelector('[data-testid=scenario-form]') as HTMLFormElement;
    const read = readScenario(scenario);
    if ('jsonError' in read) {
      general.textContent = `Full inputs: ${read.jsonError}`;
      return;
    }
    const { name: _ignored, ...base } = { ...read.body, ...(await readFiles(scenario)) };
    const res = await postJson<{ id: string }>('/api/sweeps', { name: name.value, base, vary: readParameters(form) });
    if (res.status === 201) navigate(`/sweeps/${(res.json as { id: string }).id}`);
    else showSweepErrors(form, general, res.status, res.json as Problem);
  });
  return form;
}
