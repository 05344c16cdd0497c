// The common inputs of a scenario as form fields, each named by its JSON Pointer, so a 400's
// errors[].path lands next to its field; and the full inputs as JSON under them.
import { getJson } from './api.ts';
import { h } from './dom.ts';
import type { Page, ResourceItem } from './types.ts';

interface Field {
  path: string;
  label: string;
  /** A series is a textarea of values, one a line (a one-column CSV). */
  kind: 'number' | 'text' | 'select' | 'series';
  value: string;
  options?: string[];
  /** Empty means "leave it to the default". */
  optional?: boolean;
  /** How the text becomes the input's value (default: a number for number fields, else the text). */
  parse?: (raw: string) => unknown;
}

/** An albedo as typed: "weather_file", 12 values separated by commas or spaces, or one number. */
export function parseAlbedo(raw: string): unknown {
  if (raw === 'weather_file') return raw;
  const parts = raw.split(/[\s,;]+/).filter((p) => p !== '');
  const numbers = parts.map(Number);
  if (numbers.some((n) => !Number.isFinite(n))) return raw;
  return parts.length === 1 ? numbers[0] : numbers;
}

/** A number field left empty: the input keeps its default. */
function optionalNumber(path: string, label: string): Field {
  return { path, label, kind: 'number', value: '', optional: true };
}

export const SCENARIO_FIELDS: Field[] = [
  { path: '/name', label: 'Name', kind: 'text', value: 'My hybrid project' },
  { path: '/site/latitude', label: 'Latitude (°N)', kind: 'number', value: '35.2' },
  { path: '/site/longitude', label: 'Longitude (°E)', kind: 'number', value: '-101.8' },
  { path: '/solar/capacity_mw_dc', label: 'Solar capacity (MW DC)', kind: 'number', value: '100' },
  {
    path: '/solar/array_type',
    label: 'Array type',
    kind: 'select',
    value: 'single_axis_backtracking',
    options: ['fixed_open_rack', 'fixed_roof_mount', 'single_axis', 'single_axis_backtracking', 'two_axis'],
  },
  {
    path: '/solar/model',
    label: 'Solar model',
    kind: 'select',
    value: 'pvwatts_v8',
    options: ['pvwatts_v8', 'pvwatts_v5'],
  },
  optionalNumber('/solar/bifaciality', 'Bifaciality (0–1, v8; 0 = monofacial)'),
  {
    path: '/solar/albedo',
    label: 'Ground albedo (v8): one value, 12 monthly, or weather_file',
    kind: 'text',
    value: '',
    optional: true,
    parse: parseAlbedo,
  },
  { path: '/wind/capacity_mw', label: 'Wind capacity (MW)', kind: 'number', value: '100' },
  { path: '/wind/turbine/rated_kw', label: 'Turbine rating (kW)', kind: 'number', value: '3000' },
  { path: '/wind/turbine/hub_height_m', label: 'Hub height (m)', kind: 'number', value: '100' },
  optionalNumber('/grid/export_limit_mw', 'Export limit (MW)'),
  { path: '/market/ppa_price_per_mwh', label: 'PPA price (per MWh, or "solve")', kind: 'text', value: '50' },
  { path: '/market/merchant_price_per_mwh', label: 'Merchant price (per MWh)', kind: 'number', value: '45' },
  optionalNumber('/finance/target_equity_irr_percent', 'Target equity IRR (%), for "solve"'),
  { path: '/finance/debt/fraction', label: 'Debt share of capex (0–1)', kind: 'number', value: '0.6' },
  optionalNumber('/finance/tax_credits/solar/itc_percent', 'Solar ITC (%)'),
  optionalNumber('/finance/tax_credits/wind/ptc_per_mwh', 'Wind PTC (per MWh)'),
  optionalNumber('/storage/power_mw', 'Battery power (MW)'),
  optionalNumber('/storage/energy_mwh', 'Battery energy (MWh)'),
  {
    path: '/storage/dispatch/strategy',
    label: 'Battery strategy',
    kind: 'select',
    value: '',
    options: ['arbitrage', 'capture', 'load'],
    optional: true,
  },
];

/** A buyer's load (docs/load.md): its own group of the form, a 400 under `/load` shown beside it. */
export const LOAD_FIELDS: Field[] = [
  optionalNumber('/load/flat_mw', 'Flat load (MW)'),
  {
    path: '/load/hourly_mw',
    label: 'Or hourly load (MW): 8,760 values, one a line (a header line is skipped)',
    kind: 'series',
    value: '',
    optional: true,
  },
  optionalNumber('/load/contract/price_per_mwh', 'Contract price (per MWh delivered)'),
  {
    path: '/load/contract/availability/0/period',
    label: 'Availability threshold: period',
    kind: 'select',
    value: '',
    options: ['year', 'month', 'peak'],
    optional: true,
  },
  optionalNumber('/load/contract/availability/0/min_percent', 'Availability threshold: minimum (%)'),
  {
    path: '/load/excess',
    label: 'Excess over the load',
    kind: 'select',
    value: '',
    options: ['sell', 'curtail'],
    optional: true,
  },
  optionalNumber('/load/backup/price_per_mwh', 'Backup price (per MWh unmet)'),
];

/** The resource files a scenario may be given; the page reads them and sends their text. */
export const FILE_FIELDS = [
  { path: '/weather', label: 'Solar resource file (SAM CSV or EPW)', accept: '.csv,.epw,text/csv', kind: 'weather' },
  { path: '/wind_resource', label: 'Wind resource file (SRW)', accept: '.srw', kind: 'wind_resource' },
] as const;

const idOf = (path: string) => `f${path.replaceAll('/', '-')}`;

export function fieldElement(f: Field): HTMLElement {
  const id = idOf(f.path);
  const control =
    f.kind === 'series'
      ? h('textarea', { id, name: f.path, 'data-path': f.path, 'data-series': 'true', rows: 4, spellcheck: 'false' })
      : f.kind === 'select'
        ? h(
            'select',
            { id, name: f.path, 'data-path': f.path },
            ...(f.optional ? [h('option', { value: '' }, 'default')] : []),
            ...(f.options ?? []).map((o) => h('option', { value: o, selected: o === f.value }, o)),
          )
        : h('input', {
            id,
            name: f.path,
            'data-path': f.path,
            type: f.kind === 'number' ? 'number' : 'text',
            step: f.kind === 'number' ? 'any' : null,
            value: f.value,
            placeholder: f.optional ? 'none' : null,
          });
  return h(
    'div',
    { class: 'field' },
    h('label', { for: id }, f.label),
    control,
    h('span', { class: 'error', id: `${id}-error`, role: 'alert' }),
  );
}

/**
 * The load's group: its fields, a CSV picker that fills the hourly box, and where an error naming
 * `/load` itself (both or neither of the flat and hourly load) shows.
 */
export function loadFieldset(): HTMLElement {
  const fields = LOAD_FIELDS.map(fieldElement);
  const upload = h('input', { id: 'f-load-csv', type: 'file', accept: '.csv,.txt,text/csv,text/plain' });
  upload.addEventListener('change', async () => {
    const file = upload.files?.[0];
    const box = fields[1].querySelector('textarea');
    if (file && box) {
      box.value = await readText(file);
      box.dispatchEvent(new Event('input', { bubbles: true }));
    }
  });
  const series = fields[1];
  series.classList.add('series');
  series.append(h('label', { for: 'f-load-csv' }, 'Or upload a CSV of them'), upload);
  const id = idOf('/load');
  return h(
    'fieldset',
    { class: 'load', id, 'data-path': '/load', 'data-group': 'true' },
    h('legend', {}, "A buyer's load (optional: empty, the plant sells to the grid)"),
    h('span', { class: 'error', id: `${id}-error`, role: 'alert' }),
    h('div', { class: 'grid' }, ...fields),
  );
}

/** Whether the form has a load: the battery's `load` strategy is offered only then. */
export function offerLoadStrategy(form: HTMLFormElement): void {
  const given = [
    ...form.querySelectorAll<HTMLInputElement | HTMLTextAreaElement>('#f-load-flat_mw, #f-load-hourly_mw'),
  ].some((el) => el.value.trim() !== '');
  const option = form.querySelector<HTMLOptionElement>('#f-storage-dispatch-strategy option[value=load]');
  if (!option) return;
  option.disabled = !given;
  if (!given && option.selected) (option.parentElement as HTMLSelectElement).value = '';
}

/**
 * A pasted or uploaded series: one value a line, or the last column of a CSV; a first line that is
 * not a number is a header and skipped. A value that is not a number is sent as written, for the
 * server to name (`/load/hourly_mw/37`).
 */
export function parseSeries(text: string): Array<number | string> {
  const cells = text
    .split(/\r?\n/)
    .map(
      (line) =>
        line
          .split(/[,;\t]/)
          .at(-1)
          ?.trim() ?? '',
    )
    .filter((cell) => cell !== '');
  if (cells.length && !Number.isFinite(Number(cells[0]))) cells.shift();
  return cells.map((cell) => (Number.isFinite(Number(cell)) ? Number(cell) : cell));
}

/**
 * A file picker named by its JSON Pointer (a 400's errors under that pointer show beside it), and
 * a choice of the library's files of its kind, shown once `offerLibrary` found some.
 */
export function fileElement(f: (typeof FILE_FIELDS)[number]): HTMLElement {
  const id = idOf(f.path);
  return h(
    'div',
    { class: 'field file' },
    h('label', { for: id }, f.label),
    h('input', { id, name: f.path, 'data-path': f.path, 'data-file': 'true', type: 'file', accept: f.accept }),
    h(
      'div',
      { class: 'library-pick', hidden: true },
      h('label', { for: `${id}-library` }, 'or one from the library'),
      h('select', { id: `${id}-library`, 'data-library': f.kind, 'data-for': f.path }, h('option', { value: '' }, '—')),
    ),
    h('span', { class: 'error', id: `${id}-error`, role: 'alert' }),
  );
}

/** Fills each file field's library choice with the workspace's files of its kind (the newest 100). */
export async function offerLibrary(form: HTMLFormElement): Promise<void> {
  const selects = [...form.querySelectorAll<HTMLSelectElement>('select[data-library]')];
  if (!selects.length) return;
  const { status, json } = await getJson<Page<ResourceItem>>('/api/resources?limit=100');
  if (status !== 200) return;
  for (const select of selects) {
    const files = json.items.filter((r) => r.kind === select.dataset.library);
    select.append(...files.map((r) => h('option', { value: r.id }, r.name)));
    (select.parentElement as HTMLElement).hidden = files.length === 0;
  }
}

/** A solar file's source: EPW by its extension or its LOCATION header, else a SAM CSV. */
function solarSource(name: string, text: string): 'epw' | 'sam_csv' {
  return /\.epw$/i.test(name) || text.startsWith('LOCATION,') ? 'epw' : 'sam_csv';
}

function readText(file: File): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result));
    reader.onerror = () => reject(reader.error);
    reader.readAsText(file);
  });
}

/**
 * The chosen files as inputs: a solar file as `weather`, a wind file as `wind_resource`; a file
 * picked from the library instead is a reference, `{source: "resource", id}`.
 */
export async function readFiles(form: HTMLFormElement): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  for (const el of form.querySelectorAll<HTMLInputElement>('input[data-file]')) {
    const file = el.files?.[0];
    const picked = form.querySelector<HTMLSelectElement>(`select[data-for="${el.dataset.path}"]`)?.value;
    if (!file) {
      if (picked) out[(el.dataset.path ?? '').slice(1)] = { source: 'resource', id: picked };
      continue;
    }
    const text = await readText(file);
    if (el.dataset.path === '/weather') out.weather = { source: solarSource(file.name, text), text };
    else out.wind_resource = { source: 'srw', text };
  }
  return out;
}

function setAt(target: Record<string, unknown>, path: string, value: unknown): void {
  const keys = path.split('/').slice(1);
  let o = target;
  for (const [i, k] of keys.slice(0, -1).entries()) {
    // An index next (`/load/contract/availability/0/period`) makes an array.
    if (typeof o[k] !== 'object' || o[k] === null) o[k] = /^\d+$/.test(keys[i + 1]) ? [] : {};
    o = o[k] as Record<string, unknown>;
  }
  o[keys[keys.length - 1]] = value;
}

/** The form's inputs: the JSON box as the base, each filled field set on top of it. */
export function readScenario(form: HTMLFormElement): { body: Record<string, unknown> } | { jsonError: string } {
  const text = (form.querySelector('textarea[name=json]') as HTMLTextAreaElement | null)?.value.trim() ?? '';
  let body: Record<string, unknown> = {};
  if (text) {
    try {
      body = JSON.parse(text);
    } catch (err) {
      return { jsonError: `not JSON: ${(err as Error).message}` };
    }
  }
  const controls = '[data-path]:not([data-file]):not([data-group])';
  for (const el of form.querySelectorAll<HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement>(controls)) {
    const path = el.dataset.path as string;
    const raw = el.value.trim();
    if (raw === '') continue;
    if (el.dataset.series) {
      setAt(body, path, parseSeries(raw));
      continue;
    }
    const field = [...SCENARIO_FIELDS, ...LOAD_FIELDS].find((f) => f.path === path);
    if (field?.parse) {
      setAt(body, path, field.parse(raw));
      continue;
    }
    const numeric = field?.kind === 'number' || (path === '/market/ppa_price_per_mwh' && raw !== 'solve');
    setAt(body, path, numeric && Number.isFinite(Number(raw)) ? Number(raw) : raw);
  }
  return { body };
}

/** Shows each error next to the field with its path (or its nearest parent); the rest in `general`. */
export function showErrors(
  form: HTMLFormElement,
  errors: Array<{ path: string; message: string }>,
  general: HTMLElement,
): void {
  clearErrors(form, general);
  const fields = [...form.querySelectorAll<HTMLElement>('[data-path]')];
  const rest: string[] = [];
  for (const e of errors) {
    // The field with the longest pointer that names the error's (`/load/hourly_mw/5` beside the hourly box, `/load` beside the group).
    const field = fields
      .filter((f) => e.path === f.dataset.path || e.path.startsWith(`${f.dataset.path}/`))
      .sort((a, b) => (b.dataset.path?.length ?? 0) - (a.dataset.path?.length ?? 0))[0];
    const slot = field ? form.querySelector<HTMLElement>(`#${field.id}-error`) : null;
    if (field && slot) {
      slot.textContent = e.message;
      field.setAttribute('aria-invalid', 'true');
      field.setAttribute('aria-describedby', slot.id);
    } else rest.push(`${e.path}: ${e.message}`);
  }
  general.textContent = rest.join('\n');
  (form.querySelector('[aria-invalid=true]') as HTMLElement | null)?.focus();
}

export function clearErrors(form: HTMLFormElement, general: HTMLElement): void {
  for (const s of form.querySelectorAll('.error')) s.textContent = '';
  for (const f of form.querySelectorAll('[aria-invalid]')) f.removeAttribute('aria-invalid');
  general.textContent = '';
}
