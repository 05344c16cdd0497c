import { type Static, Type } from '@sinclair/typebox';

export const Problem = Type.Object(
  {
    type: Type.String({ description: 'A URI naming the kind of problem.' }),
    title: Type.String(),
    status: Type.Integer(),
    detail: Type.Optional(Type.String()),
    instance: Type.Optional(Type.String()),
    errors: Type.Optional(
      Type.Array(
        Type.Object({
          path: Type.String({ description: 'JSON Pointer to the failing field, e.g. /site/latitude.' }),
          message: Type.String(),
        }),
      ),
    ),
    quota: Type.Optional(
      Type.String({ description: 'quota_exceeded: which quota (queued_variants, stored_bytes, requests_per_minute).' }),
    ),
    limit: Type.Optional(Type.Integer({ description: "quota_exceeded: the quota's limit." })),
    used: Type.Optional(Type.Integer({ description: "quota_exceeded: the workspace's use when the request came." })),
    users: Type.Optional(
      Type.Array(
        Type.Object({
          kind: Type.Union([Type.Literal('scenario'), Type.Literal('sweep'), Type.Literal('optimization')]),
          id: Type.String({ format: 'uuid' }),
          href: Type.String(),
        }),
        {
          description:
            'conflict on DELETE /api/resources/{id}: what uses the resource (up to 10; the detail says how many).',
        },
      ),
    ),
  },
  { $id: 'Problem', description: 'RFC 9457 problem details (application/problem+json).' },
);
export type Problem = Static<typeof Problem>;
export type FieldError = { path: string; message: string };
