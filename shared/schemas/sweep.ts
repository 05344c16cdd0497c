// A sweep: the request (POST /api/sweeps), the resource, and its results table.
import { type Static, Type } from '@sinclair/typebox';
import { Kpis } from './result.ts';
import { ScenarioStatus } from './scenario.ts';

const Pointer = Type.String({
  pattern: '^/',
  maxLength: 200,
  description:
    'A JSON Pointer into the scenario inputs, e.g. /solar/capacity_mw_dc (not /name). An item of an array (/market/merchant_hour_of_day_multipliers/18) needs the whole array in the base.',
});

export const SweepRequest = Type.Object(
  {
    name: Type.String({
      minLength: 1,
      maxLength: 200,
      description: "The sweep's name; each variant's name adds its values.",
    }),
    base: Type.Object(
      {},
      {
        additionalProperties: true,
        description:
          'The scenario inputs every variant starts from (as POST /api/scenarios takes them; name optional).',
      },
    ),
    vary: Type.Array(
      Type.Object(
        {
          path: Pointer,
          values: Type.Optional(Type.Array(Type.Unknown(), { minItems: 1, description: 'The values to try.' })),
          from: Type.Optional(Type.Number({ description: 'First value.' })),
          to: Type.Optional(Type.Number({ description: 'Last value (included when a whole number of steps away).' })),
          step: Type.Optional(Type.Number({ exclusiveMinimum: 0, description: 'Increment, > 0.' })),
        },
        {
          additionalProperties: false,
          description: 'A parameter: its path and either `values`, or `from`, `to` and `step` (`from` ≤ `to`).',
          // For clients and validators of the document; the server says which is missing, by name.
          oneOf: [{ required: ['values'] }, { required: ['from', 'to', 'step'] }],
        },
      ),
      { minItems: 1, maxItems: 8, description: 'The parameters and their values.' },
    ),
    combine: Type.Optional(
      Type.Union([Type.Literal('grid'), Type.Literal('zip')], {
        default: 'grid',
        description:
          'grid: every combination (the last parameter varies fastest); zip: the i-th value of each list together.',
      }),
    ),
    keep_hourly: Type.Optional(
      Type.Boolean({
        default: false,
        description:
          'Whether variants keep their hourly arrays. Without them, their statements have no hourly data (see the statements route).',
      }),
    ),
  },
  { additionalProperties: false, $id: 'SweepRequest', description: 'Many variants of one project.' },
);

const Counts = Type.Object({
  total: Type.Integer(),
  queued: Type.Integer(),
  running: Type.Integer(),
  succeeded: Type.Integer(),
  failed: Type.Integer(),
  cancelled: Type.Integer(),
});

export const Sweep = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    name: Type.String(),
    // The same five words as a scenario's status, meaning the same of its variants taken together.
    status: Type.Union(ScenarioStatus.anyOf, {
      description:
        'queued until a variant starts; running; then succeeded when every variant has finished (counts.failed says how many failed), failed when every variant failed, cancelled when it was cancelled.',
    }),
    counts: Counts,
    progress: Type.Number({ minimum: 0, maximum: 1, description: 'Finished variants / total.' }),
    base: Type.Unknown({ description: 'The base inputs as posted.' }),
    vary: Type.Unknown({ description: 'The parameters as posted.' }),
    parameters: Type.Array(Type.String(), { description: 'The varied paths, in order.' }),
    combine: Type.Union([Type.Literal('grid'), Type.Literal('zip')]),
    keep_hourly: Type.Boolean(),
    created_at: Type.String({ format: 'date-time' }),
    finished_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
    links: Type.Object({ self: Type.String(), events: Type.String(), results: Type.String(), variants: Type.String() }),
  },
  { $id: 'Sweep', description: 'A sweep and its counts.' },
);

export const SweepPage = Type.Object(
  { items: Type.Array(Sweep), next_cursor: Type.Union([Type.String(), Type.Null()]) },
  { $id: 'SweepPage', description: 'Sweeps, newest first.' },
);

export const SweepResults = Type.Object(
  {
    sweep_id: Type.String({ format: 'uuid' }),
    parameters: Type.Array(Type.String()),
    variants: Type.Array(
      Type.Object({
        index: Type.Integer({ minimum: 0 }),
        values: Type.Record(Type.String(), Type.Unknown(), { description: 'The value of each varied path.' }),
        scenario_id: Type.String({ format: 'uuid' }),
        status: Type.String(),
        kpis: Type.Union([Kpis, Type.Null()]),
        totals: Type.Union([
          Type.Object({ solar_mwh: Type.Number(), wind_mwh: Type.Number(), curtailed_mwh: Type.Number() }),
          Type.Null(),
        ]),
      }),
    ),
  },
  { $id: 'SweepResults', description: 'One row per variant: its values, KPIs and 25-year energy totals.' },
);

export type Sweep = Static<typeof Sweep>;
export type SweepRequest = Static<typeof SweepRequest>;
export { KPI_NAMES } from '../kpis.ts';
