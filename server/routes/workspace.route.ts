// GET /api/workspace: the API key's workspace and each of its quotas' limit and use (server/quotas.ts).
import { Type } from '@sinclair/typebox';
import { type AnyRoute, defineRoute } from '../route.ts';

const Quota = (what: string) =>
  Type.Object(
    {
      limit: Type.Union([Type.Integer({ minimum: 1 }), Type.Null()], {
        description: 'The limit; null when there is none.',
      }),
      used: Type.Integer({ minimum: 0, description: 'The workspace’s use now.' }),
    },
    { description: what },
  );

const Workspace = Type.Object(
  {
    name: Type.String({ description: 'The workspace of the API key (`default` without API_KEYS).' }),
    quotas: Type.Object({
      queued_variants: Quota(
        'Scenarios queued (single scenarios and variants of sweeps and optimizations) waiting for a worker (QUOTA_QUEUED_VARIANTS).',
      ),
      stored_bytes: Quota('Bytes stored for the workspace: its results, compressed as stored (QUOTA_STORED_BYTES).'),
      requests_per_minute: Quota(
        'API requests in the current minute, as this web process counted them (QUOTA_REQUESTS_PER_MINUTE).',
      ),
    }),
  },
  {
    $id: 'Workspace',
    description: 'A workspace and its quotas. Over a quota, a request is answered 429 `quota_exceeded`.',
  },
);

const getWorkspace = defineRoute({
  method: 'get',
  path: '/api/workspace',
  operationId: 'getWorkspace',
  summary: "The API key's workspace and its quotas' use",
  tags: ['workspace'],
  responses: { 200: { description: 'The workspace, each quota with its limit and use.', json: Workspace } },
  async handle({ ws, res }, deps) {
    res.setHeader('Cache-Control', 'no-store');
    res.json({ name: ws.workspace, quotas: await deps.quotas.use(ws.workspace) });
  },
});

export const workspaceRoutes: readonly AnyRoute[] = [getWorkspace];
