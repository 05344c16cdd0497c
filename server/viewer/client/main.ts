// The viewer's router: the page for the path, on load, on links (pushState) and on back/forward.
// Each page gets a signal that is aborted when the page is left (its event streams stop).

import { h, mainElement, newPage } from './dom.ts';
import { disposeCharts } from './lazy.ts';
import { filesPage } from './pages/files.ts';
import { homePage } from './pages/home.ts';
import { optimizationPage } from './pages/optimization.ts';
import { scenarioPage } from './pages/scenario.ts';
import { sweepPage } from './pages/sweep.ts';

let current: AbortController | null = null;

async function render(): Promise<void> {
  current?.abort();
  disposeCharts();
  const controller = new AbortController();
  current = controller;
  const path = location.pathname;
  const m = newPage();
  document.title = 'Hourglass';
  try {
    const scenario = /^\/scenarios\/([^/]+)$/.exec(path);
    const sweep = /^\/sweeps\/([^/]+)$/.exec(path);
    const optimization = /^\/optimizations\/([^/]+)$/.exec(path);
    if (path === '/files') await filesPage();
    else if (scenario) await scenarioPage(decodeURIComponent(scenario[1]), controller.signal);
    else if (optimization) await optimizationPage(decodeURIComponent(optimization[1]), controller.signal);
    else if (sweep) await sweepPage(decodeURIComponent(sweep[1]), controller.signal);
    else await homePage(controller.signal, navigate);
  } catch (err) {
    if (controller.signal.aborted) return;
    m.replaceChildren(
      h('h1', {}, 'Something went wrong'),
      h('p', { role: 'alert' }, String((err as Error)?.message ?? err)),
    );
  }
}

function navigate(path: string): void {
  if (path === location.pathname) return;
  history.pushState(null, '', path);
  void render().then(() => mainElement().focus());
}

document.addEventListener('click', (e) => {
  const a = (e.target as Element | null)?.closest?.('a[data-link]') as HTMLAnchorElement | null;
  if (!a || e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
  e.preventDefault();
  navigate(a.pathname);
});
window.addEventListener('popstate', () => void render());
void render();
