// Small DOM helpers: an element builder, number formats, and the page's main element.

type Child = Node | string | number | null | undefined | false;
type Attrs = Record<string, string | number | boolean | EventListener | null | undefined>;

/** h('a', { href: '/', class: 'x', onclick: f }, 'text', child) */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Attrs = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (typeof value === 'function') el.addEventListener(name.replace(/^on/, ''), value);
    else if (value === true) el.setAttribute(name, '');
    else el.setAttribute(name, String(value));
  }
  append(el, ...children);
  return el;
}

function append(el: Element, ...children: Child[]): void {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : String(c));
  }
}

/** The document's <main>. */
export function mainElement(): HTMLElement {
  return document.getElementById('main') as HTMLElement;
}

let page: HTMLElement | null = null;

/**
 * A fresh container for the page being shown, the only child of <main>. A page that is left while
 * it still awaits (a fetch, its event stream) goes on writing into its own container, now
 * detached, and never over the page that replaced it.
 */
export function newPage(): HTMLElement {
  page = document.createElement('div');
  mainElement().replaceChildren(page);
  return page;
}

/** The current page's container: a page takes it once, when it starts, before any await. */
export function main(): HTMLElement {
  return page ?? mainElement();
}

const grouped = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });
const twoDigits = new Intl.NumberFormat('en-US', { maximumFractionDigits: 2, minimumFractionDigits: 2 });

/** Money and energy: thousands grouped, no decimals; large values in k/M. */
export function amount(v: number | null | undefined): string {
  if (v === null || v === undefined || !Number.isFinite(v)) return '—';
  const a = Math.abs(v);
  if (a >= 1e9) return `${twoDigits.format(v / 1e9)} B`;
  if (a >= 1e6) return `${twoDigits.format(v / 1e6)} M`;
  return grouped.format(v);
}

export function percent(fraction: number | null | undefined): string {
  return fraction === null || fraction === undefined || !Number.isFinite(fraction)
    ? '—'
    : `${twoDigits.format(fraction * 100)} %`;
}

export function decimal(v: number | null | undefined, digits = 2): string {
  return v === null || v === undefined || !Number.isFinite(v)
    ? '—'
    : v.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
}

export function when(iso: string | null | undefined): string {
  return iso ? new Date(iso).toLocaleString() : '—';
}

/** A card section with its heading. */
export function card(title: string, ...children: Child[]): HTMLElement {
  return h('section', { class: 'card' }, h('h2', {}, title), ...children);
}

/** A row of labelled controls (each control needs its id). */
export function controls(...pairs: Array<[string, HTMLElement]>): HTMLElement {
  return h('div', { class: 'controls' }, ...pairs.flatMap(([label, c]) => [h('label', { for: c.id }, label), c]));
}

/** Where a chart draws: a labelled image for assistive technology, found by tests by its test id. */
export function chartBox(testid: string, label: string, options: { tall?: boolean } = {}): HTMLElement {
  return h('div', {
    class: options.tall ? 'chart tall' : 'chart',
    'data-testid': testid,
    role: 'img',
    'aria-label': label,
  });
}

/** A picker of the 25 operating years. */
export function yearSelect(id: string): HTMLSelectElement {
  return h(
    'select',
    { id },
    ...Array.from({ length: 25 }, (_, i) => h('option', { value: String(i + 1) }, `Year ${i + 1}`)),
  );
}
