import { card, chartBox, decimal, h } from '../dom.ts';
import { charts } from '../lazy.ts';
import { liveParentPage, statusBadge } from '../live.ts';

interface OptimizationItem {
  id: string;
  name: string;
  status: string;
  evaluations: number;
  queued: number;
  rounds: number;
  max_evaluations: number;
  feasible: boolean;
  best: {
    values: Record<string, number>;
    kpis: Record<string, number | null>;
    scenario_id: string;
    index: number;
  } | null;
  request: { variables: Array<{ path: string }>; objective: { maximize?: string; minimize?: string } };
  finished_at: string | null;
}
interface EvaluationRow {
  index: number;
  status: string;
  values: Record<string, number>;
  kpis: Record<string, number | null> | null;
  feasible: boolean;
}

interface OptimizationView {
  badge: HTMLElement;
  bar: HTMLProgressElement;
  counts: HTMLElement;
  best: HTMLElement;
  bestChart: HTMLElement;
  pointCharts: HTMLElement[];
}

const objectiveOf = (o: OptimizationItem) => (o.request.objective.maximize ?? o.request.objective.minimize) as string;

/** The evaluations, re-read as points finish and as the best improves. */
const STREAM = { table: 'evaluations', rows: 'evaluations', ticks: ['evaluation', 'improved'] };

export function optimizationPage(id: string, stop: AbortSignal): Promise<void> {
  return liveParentPage<OptimizationItem, EvaluationRow>('optimization', id, stop, STREAM, (m, first) => {
    const view = optimizationLayout(m, first);
    return (o, evaluations) => render(view, o, evaluations);
  });
}

function optimizationLayout(m: HTMLElement, o: OptimizationItem): OptimizationView {
  const objective = objectiveOf(o);
  const view: OptimizationView = {
    badge: h('span', {}, statusBadge(o.status)),
    bar: h('progress', { max: 1, value: 0, 'aria-label': 'Evaluations used', 'data-testid': 'progress' }),
    counts: h('p', { 'data-testid': 'counts', 'aria-live': 'polite' }),
    best: h('div', { 'data-testid': 'best' }),
    bestChart: chartBox('best-chart', `Best ${objective} against evaluations`),
    pointCharts: o.request.variables.map((v, i) => chartBox(`points-chart-${i}`, `${objective} against ${v.path}`)),
  };
  const verb = o.request.objective.maximize ? 'maximize' : 'minimize';
  m.replaceChildren(
    h('p', { class: 'crumbs' }, h('a', { href: '/', 'data-link': true }, 'All scenarios and sweeps')),
    h('h1', {}, o.name, ' ', view.badge),
    h('p', { class: 'muted' }, `${verb} ${objective} over ${o.request.variables.map((v) => v.path).join(', ')}`),
    h('div', { class: 'card' }, view.bar, view.counts),
    card('Best design', view.best),
    card(`Best ${objective} so far`, view.bestChart),
    card('Points tried', ...view.pointCharts),
  );
  return view;
}

function render(view: OptimizationView, o: OptimizationItem, rows: EvaluationRow[]): void {
  const objective = objectiveOf(o);
  view.badge.replaceChildren(statusBadge(o.status));
  view.bar.value = Math.min(1, o.evaluations / o.max_evaluations);
  view.counts.textContent = `${o.evaluations} evaluations of at most ${o.max_evaluations}, ${o.rounds} rounds${o.queued ? `; ${o.queued} queued or running` : ''}`;
  view.best.replaceChildren(bestDesign(o, objective));
  const better = o.request.objective.maximize ? (a: number, b: number) => a > b : (a: number, b: number) => a < b;
  // Best so far: feasible first (as the search orders them), in evaluation order.
  const curve: Array<[number, number]> = [];
  let bestY: number | null = null;
  let bestFeasible = false;
  rows.forEach((r, i) => {
    const y = r.kpis?.[objective];
    if (typeof y !== 'number') return;
    if (bestY === null || (r.feasible && !bestFeasible) || (r.feasible === bestFeasible && better(y, bestY))) {
      bestY = y;
      bestFeasible = r.feasible;
    }
    curve.push([i + 1, bestY]);
  });
  void charts().then(({ bestSoFarChart, pointsChart }) => {
    bestSoFarChart(view.bestChart, curve, objective);
    o.request.variables.forEach((v, k) => {
      const points = rows.flatMap((r) => {
        const y = r.kpis?.[objective];
        return typeof y === 'number'
          ? [{ x: r.values[v.path], y, feasible: r.feasible, best: r.index === o.best?.index }]
          : [];
      });
      pointsChart(view.pointCharts[k], points, v.path, objective);
    });
  });
}

function bestDesign(o: OptimizationItem, objective: string): HTMLElement {
  if (!o.best) {
    return h(
      'p',
      { class: 'muted' },
      o.finished_at === null
        ? 'No evaluation has finished yet.'
        : `No evaluation gave a value of ${objective}: each failed, or has none (a payback that never comes).`,
    );
  }
  const b = o.best;
  return h(
    'div',
    {},
    h(
      'table',
      { 'data-testid': 'best-values' },
      h(
        'tbody',
        {},
        ...Object.entries(b.values).map(([p, v]) => h('tr', {}, h('th', {}, p), h('td', { class: 'num' }, String(v)))),
      ),
    ),
    h('p', {}, `${objective}: `, h('strong', { 'data-testid': 'best-objective' }, decimal(b.kpis[objective] ?? null))),
    o.feasible ? null : h('p', { role: 'alert' }, 'No evaluation met every constraint: this is the least infeasible.'),
    h(
      'a',
      { href: `/scenarios/${b.scenario_id}`, 'data-link': true, 'data-testid': 'best-link' },
      'Open the best scenario',
    ),
  );
}
