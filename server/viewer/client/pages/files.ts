// `/files`: the workspace's library. Upload a weather or wind file (its format detected by the
// server) or an hourly series (one value a line, or a CSV's last column); each file listed with
// what it says, the statistics a person checks and a picture of it (monthly irradiance, a wind
// rose, a series' peak week), and a delete that says who still uses it.
import { getJson, type Problem, send } from '../api.ts';
import { amount, chartBox, decimal, h, main, when } from '../dom.ts';
import { parseSeries } from '../forms.ts';
import { charts } from '../lazy.ts';
import type { Page, ResourceItem } from '../types.ts';

const KIND_LABEL: Record<ResourceItem['kind'], string> = {
  weather: 'Weather file',
  wind_resource: 'Wind resource (SRW)',
  hourly_series: 'Hourly series',
};

export async function filesPage(): Promise<void> {
  document.title = 'Files · Hourglass';
  const list = h('div', { class: 'library', 'data-testid': 'resource-list' });
  const more = h('button', { type: 'button', class: 'secondary', hidden: true }, 'More files');
  let cursor: string | null = null;
  const load = async (fresh: boolean) => {
    if (fresh) cursor = null;
    const q = cursor ? `&cursor=${encodeURIComponent(cursor)}` : '';
    const { json } = await getJson<Page<ResourceItem>>(`/api/resources?limit=20${q}`);
    const cards = json.items.map(resourceCard);
    if (fresh) list.replaceChildren(...cards.map((c) => c.element));
    else list.append(...cards.map((c) => c.element));
    if (!list.children.length) list.append(h('p', { class: 'muted' }, 'No files yet: upload one with the form.'));
    cursor = json.next_cursor;
    more.hidden = !cursor;
    const drawn = await charts();
    for (const c of cards) c.draw(drawn);
  };
  more.addEventListener('click', () => void load(false));
  main().replaceChildren(
    h('h1', {}, 'Files'),
    h(
      'p',
      { class: 'muted' },
      'Weather files, wind files and hourly series, stored once for the workspace and referenced by scenarios.',
    ),
    uploadForm(() => load(true)),
    list,
    more,
  );
  await load(true);
}

/** The upload: a file and what it is; a refusal shows the server's detail (its line and column). */
function uploadForm(reload: () => Promise<void>): HTMLElement {
  const file = h('input', { id: 'upload-file', type: 'file', required: true, accept: '.csv,.srw,.epw,.txt' });
  const kind = h(
    'select',
    { id: 'upload-kind' },
    h('option', { value: 'file' }, 'Weather or wind file (SAM CSV, PSM3, EPW, SRW)'),
    h('option', { value: 'hourly_series' }, 'Hourly series (8,760 values a year: a load, a price)'),
  );
  const status = h('p', { class: 'error', role: 'alert', 'data-testid': 'upload-error' });
  const done = h('p', { class: 'muted', role: 'status', 'data-testid': 'upload-status' });
  const button = h('button', { type: 'submit' }, 'Upload');
  const form = h(
    'form',
    { class: 'card upload', 'data-testid': 'upload-form' },
    h('h2', {}, 'Upload'),
    h('div', { class: 'field' }, h('label', { for: 'upload-file' }, 'File'), file),
    h('div', { class: 'field' }, h('label', { for: 'upload-kind' }, 'Kind'), kind),
    button,
    status,
    done,
  );
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    const chosen = file.files?.[0];
    if (!chosen) return;
    status.textContent = '';
    done.textContent = '';
    button.disabled = true;
    try {
      const text = await chosen.text();
      const name = chosen.name.replace(/\.[^.]+$/, '') || chosen.name;
      const { status: code, json } =
        kind.value === 'hourly_series'
          ? await send<ResourceItem>('POST', '/api/resources', {
              type: 'application/json',
              text: JSON.stringify({ name, kind: 'hourly_series', values: parseSeries(text) }),
            })
          : await send<ResourceItem>('POST', `/api/resources?name=${encodeURIComponent(name)}`, {
              type: chosen.name.toLowerCase().endsWith('.csv') ? 'text/csv' : 'text/plain',
              text,
            });
      if (code === 200 || code === 201) {
        done.textContent =
          code === 201 ? `Stored ${chosen.name}.` : `${chosen.name} is in the library already, as “${json.name}”.`;
        form.reset();
        await reload();
      } else status.textContent = problemText(json as Problem);
    } finally {
      button.disabled = false;
    }
  });
  return form;
}

function problemText(p: Problem): string {
  const errors = (p.errors ?? []).map((e) => (e.message === p.detail ? e.message : `${e.path}: ${e.message}`));
  return [p.detail ?? p.title ?? `HTTP ${p.status}`, ...errors.filter((e) => e !== p.detail)].join('\n');
}

const place = (m: ResourceItem['metadata']) =>
  m.latitude == null || m.longitude == null
    ? 'not in the file'
    : `${decimal(m.latitude, 3)}°, ${decimal(m.longitude, 3)}°`;

/** What a person checks before using a file: its place and shape, then its kind's statistics. */
function facts(r: ResourceItem): Array<[string, string]> {
  const m = r.metadata;
  const s = m.statistics;
  const shape: Array<[string, string]> = [
    ['Years', String(m.years)],
    ['Time step', `${m.time_step_minutes} min`],
  ];
  if (r.kind === 'hourly_series')
    return [
      ...shape,
      ['Values', amount(m.length)],
      ['Mean', decimal(s.mean)],
      ['Min', decimal(s.min)],
      ['Max', decimal(s.max)],
      ['Sum a year', amount(s.annual_sum)],
    ];
  const located: Array<[string, string]> = [
    ['Location', place(m)],
    ['Elevation', m.elevation_m == null ? '—' : `${amount(m.elevation_m)} m`],
    ...shape,
  ];
  if (r.kind === 'weather')
    return [
      ...located,
      ['Annual GHI', `${amount(s.annual_ghi_kwh_m2)} kWh/m²`],
      ['Annual DNI', `${amount(s.annual_dni_kwh_m2)} kWh/m²`],
      ['Mean temperature', `${decimal(s.mean_temperature_c, 1)} °C`],
      ['Mean wind speed', `${decimal(s.mean_wind_speed_ms)} m/s`],
    ];
  const speeds = Object.entries(s.mean_wind_speed_ms_by_height ?? {})
    .sort(([a], [b]) => Number(a) - Number(b))
    .map(([height, v]) => [`Mean speed at ${height} m`, `${decimal(v)} m/s`] as [string, string]);
  return [
    ...located,
    ['Heights', `${(m.heights_m ?? []).join(', ')} m`],
    ...speeds,
    ['Mean temperature', s.mean_temperature_c == null ? '—' : `${decimal(s.mean_temperature_c, 1)} °C`],
  ];
}

const usersText = (u: ResourceItem['used_by']) =>
  `${u.scenarios} scenario(s), ${u.sweeps} sweep(s), ${u.optimizations} optimization(s)`;

type ChartModule = Awaited<ReturnType<typeof charts>>;

/** One file's card, and how to draw its picture once the charts are loaded. */
function resourceCard(r: ResourceItem): { element: HTMLElement; draw(drawn: ChartModule): void } {
  const s = r.metadata.statistics;
  const picture =
    r.kind === 'weather'
      ? chartBox(`resource-chart-${r.kind}`, `Monthly irradiance of ${r.name}`)
      : r.kind === 'wind_resource'
        ? chartBox(`resource-chart-${r.kind}`, `Wind rose of ${r.name}`, { tall: true })
        : chartBox(`resource-chart-${r.kind}`, `The week around the highest value of ${r.name}`);
  const caption =
    r.kind === 'weather'
      ? 'Irradiance by month (kWh/m²)'
      : r.kind === 'wind_resource'
        ? s.wind_rose
          ? `Wind rose at ${s.wind_rose.height_m} m (% of the time)`
          : 'No wind rose: the file has no directions.'
        : 'The week around the highest value';
  const alert = h('p', { class: 'error', role: 'alert', 'data-testid': 'delete-error' });
  const remove = h('button', { type: 'button', class: 'secondary', 'data-testid': 'delete' }, 'Delete');
  const users = h('dd', { 'data-testid': 'users' }, usersText(r.used_by));
  const element = h(
    'article',
    { class: 'card resource-card', 'data-testid': 'resource', 'data-kind': r.kind, 'data-id': r.id },
    h('h2', {}, r.name),
    h(
      'p',
      { class: 'muted' },
      `${KIND_LABEL[r.kind]} · ${r.format} · ${amount(r.bytes)} bytes · ${when(r.created_at)}`,
    ),
    h(
      'dl',
      { class: 'stats' },
      ...facts(r).flatMap(([term, value]) => [h('dt', {}, term), h('dd', {}, value)]),
      h('dt', {}, 'Used by'),
      users,
    ),
    h('h3', {}, caption),
    picture,
    h('div', { class: 'actions' }, remove, alert),
  );
  remove.addEventListener('click', async () => {
    alert.textContent = '';
    if (!confirm(`Delete ${r.name}?`)) return;
    const { status, json } = await send<Problem>('DELETE', `/api/resources/${r.id}`);
    if (status === 204 || status === 404) {
      element.remove();
      return;
    }
    // 409: the file is used; say by what, as the server counts it now.
    const now = await getJson<ResourceItem>(`/api/resources/${r.id}`);
    if (now.status === 200) users.textContent = usersText(now.json.used_by);
    alert.textContent = `${(json as Problem).detail ?? 'Not deleted.'} Used by ${users.textContent}.`;
  });
  const painted = () => {
    picture.dataset.painted = 'true';
  };
  return {
    element,
    draw(drawn) {
      if (r.kind === 'weather' && s.monthly_ghi_kwh_m2 && s.monthly_dni_kwh_m2)
        drawn.irradianceChart(picture, s.monthly_ghi_kwh_m2, s.monthly_dni_kwh_m2, painted);
      else if (r.kind === 'wind_resource' && s.wind_rose) drawn.windRoseChart(picture, s.wind_rose, painted);
      else if (r.kind === 'hourly_series' && s.peak_week)
        drawn.seriesWeekChart(picture, s.peak_week.first_hour, s.peak_week.values, painted);
      else picture.replaceChildren(h('p', { class: 'muted' }, 'Nothing to draw.'));
    },
  };
}
