// The OpenAPI 3.1 document, generated from the same TypeBox schemas that validate requests.
import type { TSchema } from '@sinclair/typebox';
import { type OpenAPIObject, OpenApiBuilder, type ResponseObject, type SchemaObject } from 'openapi3-ts/oas31';
import { ScenarioInputs } from '../shared/schemas/inputs.ts';
import { Problem } from '../shared/schemas/problem.ts';
import { ScenarioResult } from '../shared/schemas/result.ts';
import { Scenario, ScenarioList } from '../shared/schemas/scenario.ts';

/** TypeBox schemas are JSON Schema; a JSON round trip drops TypeBox's symbol keys. */
const schema = (s: TSchema): SchemaObject => JSON.parse(JSON.stringify(s)) as SchemaObject;
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

const problem = (description: string): ResponseObject => ({
  description,
  content: { 'application/problem+json': { schema: ref('Problem') } },
});
const idParam = {
  name: 'id',
  in: 'path' as const,
  required: true,
  description: 'The scenario id (UUID).',
  schema: { type: 'string' as const, format: 'uuid' },
};

export function buildOpenApi(options: { auth: boolean }): OpenAPIObject {
  const builder = OpenApiBuilder.create()
    .addOpenApiVersion('3.1.0')
    .addTitle('Hourglass')
    .addVersion('0.1.0')
    .addDescription(
      'Scenario calculations for hybrid solar + wind projects: 25 years of hourly generation (PVWatts v5, SAM wind) and Single Owner financial statements. Create a scenario, follow its events, read its statements.',
    )
    .addSchema('ScenarioInputs', schema(ScenarioInputs))
    .addSchema('Scenario', schema(Scenario))
    .addSchema('ScenarioList', schema(ScenarioList))
    .addSchema('ScenarioResult', schema(ScenarioResult))
    .addSchema('Problem', schema(Problem))
    .addPath('/healthz', {
      get: {
        summary: 'Liveness (no database call)',
        tags: ['health'],
        responses: { 200: { description: 'The process is alive.' } },
      },
    })
    .addPath('/readyz', {
      get: {
        summary: 'Readiness: the database answers and migrations are current',
        tags: ['health'],
        responses: { 200: { description: 'Ready.' }, 503: { description: 'Not ready.' } },
      },
    })
    .addPath('/api/scenarios', {
      post: {
        summary: 'Create a scenario and queue its calculation',
        tags: ['scenarios'],
        parameters: [
          {
            name: 'Idempotency-Key',
            in: 'header',
            required: false,
            description: 'Repeat a create safely: the same key and body return the first scenario.',
            schema: { type: 'string', maxLength: 255 },
          },
        ],
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: ref('ScenarioInputs'),
              example: { name: 'Amarillo hybrid', site: { latitude: 35.2, longitude: -101.8 } },
            },
          },
        },
        responses: {
          201: {
            description: 'Created and queued. `Location` names the scenario.',
            headers: { Location: { schema: { type: 'string' } } },
            content: { 'application/json': { schema: ref('Scenario') } },
          },
          400: problem('Malformed JSON, or the body does not match the schema (every failing field is listed).'),
          409: problem('The Idempotency-Key was used with a different body.'),
          413: problem('The body is over the limit.'),
          415: problem('The body is not JSON.'),
        },
      },
      get: {
        summary: 'List every scenario, newest first (streamed)',
        tags: ['scenarios'],
        responses: {
          200: { description: 'All scenarios.', content: { 'application/json': { schema: ref('ScenarioList') } } },
        },
      },
    })
    .addPath('/api/scenarios/{id}', {
      get: {
        summary: 'Read a scenario',
        tags: ['scenarios'],
        parameters: [idParam],
        responses: {
          200: { description: 'The scenario.', content: { 'application/json': { schema: ref('Scenario') } } },
          404: problem('No such scenario.'),
        },
      },
    })
    .addPath('/api/scenarios/{id}/events', {
      get: {
        summary: 'Follow a scenario live (server-sent events)',
        description:
          'Events: queued, running {attempt}, progress {progress, stage, message}, succeeded {summary, statements_url}, failed {error}. Each has `id: <seq>`; resume with `Last-Event-ID` or `?last_event_id=`. The stream closes after the terminal event.',
        tags: ['scenarios'],
        parameters: [
          idParam,
          { name: 'Last-Event-ID', in: 'header', required: false, schema: { type: 'integer', minimum: 0 } },
          { name: 'last_event_id', in: 'query', required: false, schema: { type: 'integer', minimum: 0 } },
        ],
        responses: {
          200: { description: 'An event stream.', content: { 'text/event-stream': { schema: { type: 'string' } } } },
          204: {
            description:
              'The scenario is finished and Last-Event-ID is its last event: nothing to send (an EventSource stops reconnecting).',
          },
          400: problem('Last-Event-ID is not a number, or is after the last event.'),
          404: problem('No such scenario.'),
          503: problem('Too many open streams on this server.'),
        },
      },
    })
    .addPath('/api/scenarios/{id}/statements', {
      get: {
        summary: 'Read the calculated statements',
        description:
          'JSON with hourly arrays (25 × 8760 per technology), `?hourly=false` without them, or the hourly data as CSV (`Accept: text/csv` or `?format=csv`). Strong ETag; honors If-None-Match; gzip when asked.',
        tags: ['scenarios'],
        parameters: [
          idParam,
          { name: 'hourly', in: 'query', required: false, schema: { type: 'boolean', default: true } },
          { name: 'format', in: 'query', required: false, schema: { type: 'string', enum: ['json', 'csv'] } },
        ],
        responses: {
          200: {
            description: 'The statements.',
            content: {
              'application/json': { schema: ref('ScenarioResult') },
              'text/csv': { schema: { type: 'string' } },
            },
          },
          304: { description: 'Not modified.' },
          404: problem('No such scenario.'),
          409: problem('Not calculated yet (queued or running), or the calculation failed (the error is included).'),
        },
      },
    });
  if (options.auth) {
    builder.addSecurityScheme('bearer', { type: 'http', scheme: 'bearer', description: 'An API key from API_KEYS.' });
    const doc = builder.getSpec();
    for (const [path, item] of Object.entries(doc.paths ?? {})) {
      if (!path.startsWith('/api/')) continue;
      for (const op of [item.get, item.post]) {
        if (op) {
          op.security = [{ bearer: [] }];
          op.responses = { ...op.responses, 401: problem('Missing or wrong API key.') };
        }
      }
    }
  }
  return builder.getSpec();
}
