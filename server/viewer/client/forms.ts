// The common inputs of a scenario as form fields, each named by its JSON Pointer, so a 400's
// errors[].path lands next to its field; and the full inputs as JSON under them.
import { h } from './dom.ts';

interface Field {
  path: string;
  label: string;
  kind: 'number' | 'text' | 'select';
  value: string;
  options?: string[];
  /** Empty means "leave it to the default". */
  optional?: boolean;
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
    options: ['arbitrage', 'capture'],
    optional: true,
  },
];

/** The resource files a scenario may be given; the page reads them and sends their text. */
export const FILE_FIELDS = [
  { path: '/weather', label: 'Solar resource file (SAM CSV or EPW)', accept: '.csv,.epw,text/csv' },
  { path: '/wind_resource', label: 'Wind resource file (SRW)', accept: '.srw' },
];

const idOf = (path: string) => `f${path.replaceAll('/', '-')}`;

export function fieldElement(f: Field): HTMLElement {
  const id = idOf(f.path);
  const control =
    f.kind === 'select'
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

/** A file picker named by its JSON Pointer: a 400's errors under that pointer show beside it. */
export function fileElement(f: (typeof FILE_FIELDS)[number]): HTMLElement {
  const id = idOf(f.path);
  return h(
    'div',
    { class: 'field file' },
    h('label', { for: id }, f.label),
    h('input', { id, name: f.path, 'data-path': f.path, 'data-file': 'true', type: 'file', accept: f.accept }),
    h('span', { class: 'error', id: `${id}-error`, role: 'alert' }),
  );
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

/** The chosen files as inputs: a solar file as `weather`, a wind file as `wind_resource`. */
export async function readFiles(form: HTMLFormElement): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  for (const el of form.querySelectorAll<HTMLInputElement>('input[data-file]')) {
    const file = el.files?.[0];
    if (!file) continue;
    const text = await readText(file);
    if (el.dataset.path === '/weather') out.weather = { source: solarSource(file.name, text), text };
    else out.wind_resource = { source: 'srw', text };
  }
  return out;
}

function setAt(target: Record<string, unknown>, path: string, value: unknown): void {
  const keys = path.split('/').slice(1);
  let o = target;
  for (const k of keys.slice(0, -1)) {
    if (typeof o[k] !== 'object' || o[k] === null) o[k] = {};
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
  for (const el of form.querySelectorAll<HTMLInputElement | HTMLSelectElement>('[data-path]:not([data-file])')) {
    const path = el.dataset.path as string;
    const raw = el.value.trim();
    if (raw === '') continue;
    const field = SCENARIO_FIELDS.find((f) => f.path === path);
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
    const field = fields.find((f) => e.path === f.dataset.path || e.path.startsWith(`${f.dataset.path}/`));
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
