// The OpenAPI 3.1 document, assembled from the route files' own descriptions (each RouteDoc sits
// beside its handlers) and generated from the same TypeBox schemas that validate requests.
import type { TSchema } from '@sinclair/typebox';
import { type OpenAPIObject, OpenApiBuilder, type OperationObject } from 'openapi3-ts/oas31';
import { Problem } from '../shared/schemas/problem.ts';
import { componentSchema, problem, type RouteDoc, requestSchema } from './openapi.parts.ts';
import { eventsDoc } from './routes/events.route.ts';
import { healthDoc } from './routes/health.route.ts';
import { problemsDoc } from './routes/problems.route.ts';
import { scenariosDoc } from './routes/scenarios.route.ts';
import { statementsDoc } from './routes/statements.route.ts';
import { sweepsDoc } from './routes/sweeps.route.ts';

export const ROUTE_DOCS: readonly RouteDoc[] = [
  healthDoc,
  scenariosDoc,
  eventsDoc,
  statementsDoc,
  sweepsDoc,
  problemsDoc,
];
const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'] as const;

export function buildOpenApi(options: { auth: boolean; docs?: readonly RouteDoc[] }): OpenAPIObject {
  const docs = options.docs ?? ROUTE_DOCS;
  const schemas = new Map<string, TSchema>([['Problem', Problem]]);
  const requestForms = new Map<string, TSchema>();
  for (const doc of docs) {
    for (const [name, s] of Object.entries(doc.schemas ?? {})) schemas.set(name, s);
    for (const [name, s] of Object.entries(doc.requestSchemas ?? {})) requestForms.set(name, s);
  }
  const names = new Set(schemas.keys());
  const builder = OpenApiBuilder.create()
    .addOpenApiVersion('3.1.0')
    .addTitle('Hourglass')
    .addVersion('0.1.0')
    .addLicense({ name: 'UNLICENSED', identifier: 'LicenseRef-Proprietary' })
    .addDescription(
      'Scenario calculations for hybrid solar + wind projects: 25 years of hourly generation (PVWatts v5, SAM wind) and Single Owner financial statements. Create a scenario, follow its events, read its statements.',
    )
    .addServer({ url: '/', description: 'This server (the document is served by the API it describes).' });
  for (const [name, s] of schemas) builder.addSchema(name, componentSchema(s, names, name));
  for (const [name, s] of requestForms) builder.addSchema(name, requestSchema(componentSchema(s, names)));
  if (options.auth) {
    builder.addSecurityScheme('bearer', { type: 'http', scheme: 'bearer', description: 'An API key from API_KEYS.' });
  }
  for (const doc of docs) {
    // A copy: the security below is per document, and the route files' docs are shared.
    for (const [path, item] of Object.entries(structuredClone(doc.paths))) {
      for (const method of METHODS) {
        const op = item[method] as OperationObject | undefined;
        if (!op) continue;
        // The key applies to /api/* only; health, documents and problem pages stay open.
        if (options.auth && path.startsWith('/api/')) {
          op.security = [{ bearer: [] }];
          op.responses = { ...op.responses, 401: problem('Missing or wrong API key.') };
        } else {
          op.security = [];
        }
      }
      builder.addPath(path, item);
    }
  }
  return builder.getSpec();
}
