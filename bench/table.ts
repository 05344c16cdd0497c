// The bench's one table: each figure, its baseline from the same run, their ratio, the target and
// whether it is met. Printed fixed-width and written as JSON.

export type Unit = 'ms' | 's' | '/s' | 'kB' | 'MB' | 'count' | '%' | 'money';

export interface Row {
  /** The figure's number in the performance issue. */
  n: string;
  figure: string;
  value: number;
  unit: Unit;
  baseline?: { label: string; value: number; unit?: Unit };
  /** value / baseline, when that ratio is what the target is about. */
  ratio?: number;
  target: string;
  /** null: shown for context, no target. */
  met: boolean | null;
}

export function fmt(value: number, unit: Unit): string {
  if (!Number.isFinite(value)) return 'n/a';
  const digits = (v: number) => (Math.abs(v) >= 100 ? 0 : Math.abs(v) >= 10 ? 1 : 2);
  const n = (v: number, d = digits(v)) =>
    v.toLocaleString('en-US', { minimumFractionDigits: d, maximumFractionDigits: d });
  switch (unit) {
    case 'ms':
      return `${n(value)} ms`;
    case 's':
      return `${n(value, 2)} s`;
    case '/s':
      return `${n(value, value >= 100 ? 0 : 1)}/s`;
    case 'kB':
      return `${n(value, 1)} kB`;
    case 'MB':
      return `${n(value, value >= 100 ? 0 : 2)} MB`;
    case 'count':
      return n(value, 0);
    case '%':
      return `${n(value, 3)} %`;
    case 'money':
      return n(value, 0);
  }
}

/** A ratio to two decimals; below 0.1 to two significant digits, so that 0.055 is not shown as 0.05× against a target of 0.05×. */
export const fmtRatio = (ratio: number | undefined): string =>
  ratio === undefined || !Number.isFinite(ratio)
    ? '—'
    : `${Math.abs(ratio) < 0.1 ? ratio.toPrecision(2) : ratio.toFixed(2)}×`;

const cell = (s: string, width: number, right = false) => (right ? s.padStart(width) : s.padEnd(width));

export function renderTable(rows: readonly Row[]): string {
  const cells = rows.map((r) => [
    r.n,
    r.figure,
    fmt(r.value, r.unit),
    r.baseline ? `${r.baseline.label}: ${fmt(r.baseline.value, r.baseline.unit ?? r.unit)}` : '—',
    fmtRatio(r.ratio),
    r.target,
    r.met === null ? '—' : r.met ? 'yes' : 'NO',
  ]);
  const head = ['#', 'Figure', 'Measured', 'Baseline (same run)', 'Ratio', 'Target', 'Met'];
  const right = [true, false, true, false, true, false, false];
  const widths = head.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i].length)));
  const line = (c: string[]) =>
    c
      .map((v, i) => cell(v, widths[i], right[i]))
      .join(' | ')
      .trimEnd();
  const rule = widths.map((w) => '-'.repeat(w)).join('-+-');
  const out = [line(head), rule];
  let last = '';
  for (const [i, c] of cells.entries()) {
    if (i > 0 && rows[i].n !== last) out.push(rule.replaceAll('+', '-'));
    last = rows[i].n;
    out.push(line(c));
  }
  return out.join('\n');
}

/** The same table as Markdown, for the README's Performance section. */
export function renderMarkdown(rows: readonly Row[]): string {
  const esc = (s: string) => s.replaceAll('|', '\\|');
  const out = [
    '| # | Figure | Measured | Baseline (same run) | Ratio | Target | Met |',
    '|---|---|--:|---|--:|---|---|',
  ];
  for (const r of rows) {
    const base = r.baseline ? `${r.baseline.label}: ${fmt(r.baseline.value, r.baseline.unit ?? r.unit)}` : '—';
    const ratio = fmtRatio(r.ratio);
    const met = r.met === null ? '—' : r.met ? 'yes' : '**no**';
    out.push(
      `| ${r.n} | ${esc(r.figure)} | ${fmt(r.value, r.unit)} | ${esc(base)} | ${ratio} | ${esc(r.target)} | ${met} |`,
    );
  }
  return out.join('\n');
}
