// Every route the server declares, in the order they are mounted and documented.
import type { AnyRoute } from '../route.ts';
import { eventRoutes } from './events.route.ts';
import { healthRoutes } from './health.route.ts';
import { optimizationRoutes } from './optimizations.route.ts';
import { getProblemType } from './problems.route.ts';
import { resourceRoutes } from './resources.route.ts';
import { scenarioRoutes } from './scenarios.route.ts';
import { statementRoutes } from './statements.route.ts';
import { sweepRoutes } from './sweeps.route.ts';
import { workspaceRoutes } from './workspace.route.ts';

/** Open whatever API_KEYS says: health probes and the problem pages. */
export const PUBLIC_ROUTES: readonly AnyRoute[] = [...healthRoutes, getProblemType];

/** Under /api: behind the API key when API_KEYS is set. */
export const API_ROUTES: readonly AnyRoute[] = [
  ...scenarioRoutes,
  ...eventRoutes,
  ...statementRoutes,
  ...sweepRoutes,
  ...optimizationRoutes,
  ...resourceRoutes,
  ...workspaceRoutes,
];
