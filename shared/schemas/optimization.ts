// An optimization: the request (POST /api/optimizations), the resource, and its evaluations.
import { type Static, Type } from '@sinclair/typebox';
import { KPI_NAMES } from '../kpis.ts';
import { OPTIMIZATION_STATUSES } from '../lifecycle.ts';
import { Kpis } from './result.ts';

/** The most variables one optimization may search over. */
export const MAX_VARIABLES = 6;
/** The most evaluations one optimization may ask for. */
export const MAX_EVALUATIONS = 2000;

/** A KPI of the registry (shared/kpis.ts), by name. */
const Metric = (description: string) =>
  Type.Union(
    KPI_NAMES.map((k) => Type.Literal(k)),
    { description: `${description} A KPI (see Kpis).` },
  );

export const OptimizationRequest = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200, description: "The optimization's name." }),
    base: Type.Object(
      {},
      {
        additionalProperties: true,
        description:
          'The scenario inputs every evaluation starts from (as POST /api/scenarios takes them; name optional).',
      },
    ),
    variables: Type.Array(
      Type.Object(
        {
          path: Type.String({
            pattern: '^/',
            maxLength: 200,
            description:
              'A JSON Pointer to a numeric input, e.g. /solar/capacity_mw_dc. An item of an array (/market/merchant_hour_of_day_multipliers/18) needs the whole array in the base.',
          }),
          min: Type.Number({ description: 'Lowest value tried.' }),
          max: Type.Number({ description: 'Highest value tried (≥ min).' }),
          step: Type.Optional(
            Type.Number({
              exclusiveMinimum: 0,
              description:
                'Values tried are min + k × step. Default: (max − min) / 100 (1 for an integer input). At most 1,000,000 steps from min to max, and at least 1e-10 × the larger of |min| and |max|.',
            }),
          ),
        },
        { additionalProperties: false },
      ),
      { minItems: 1, maxItems: MAX_VARIABLES, description: 'What the search may change.' },
    ),
    objective: Type.Union(
      [
        Type.Object({ maximize: Metric('The measure to maximize.') }, { additionalProperties: false }),
        Type.Object({ minimize: Metric('The measure to minimize.') }, { additionalProperties: false }),
      ],
      { description: '{ "maximize": KPI } or { "minimize": KPI }.' },
    ),
    constraints: Type.Optional(
      Type.Array(
        Type.Object(
          {
            kpi: Metric('The constrained measure.'),
            min: Type.Optional(Type.Number({ description: 'It must be ≥ min.' })),
            max: Type.Optional(Type.Number({ description: 'It must be ≤ max.' })),
          },
          { additionalProperties: false, description: 'A bound on a measure: min, max, or both.' },
        ),
        { maxItems: 10, default: [], description: 'Every constraint a feasible design meets.' },
      ),
    ),
    max_evaluations: Type.Optional(
      Type.Integer({
        minimum: 4,
        maximum: MAX_EVALUATIONS,
        default: 200,
        description: 'The most scenarios the search evaluates.',
      }),
    ),
  },
  { additionalProperties: false, $id: 'OptimizationRequest', description: 'Find the best design in a box.' },
);
export type OptimizationRequest = Static<typeof OptimizationRequest>;

const Values = Type.Record(Type.String(), Type.Number(), { description: 'The value of each variable, by path.' });

export const OptimizationStatus = Type.Union(
  OPTIMIZATION_STATUSES.map((s) => Type.Literal(s)),
  { description: 'running until the search converges or uses max_evaluations (succeeded), or is cancelled.' },
);

export const Optimization = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    name: Type.String(),
    status: OptimizationStatus,
    evaluations: Type.Integer({ minimum: 0, description: 'Points finished so far.' }),
    queued: Type.Integer({ minimum: 0, description: 'Points of the current round not finished yet.' }),
    rounds: Type.Integer({ minimum: 1, description: 'Rounds written so far.' }),
    max_evaluations: Type.Integer(),
    best: Type.Union([
      Type.Object({
        values: Values,
        kpis: Kpis,
        scenario_id: Type.String({ format: 'uuid' }),
        index: Type.Integer({ minimum: 0 }),
      }),
      Type.Null(),
    ]),
    feasible: Type.Boolean({ description: 'Whether any evaluation met every constraint (best is then feasible).' }),
    request: Type.Unknown({ description: 'The request as accepted (with its defaults).' }),
    created_at: Type.String({ format: 'date-time' }),
    finished_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
    links: Type.Object({ self: Type.String(), events: Type.String(), evaluations: Type.String() }),
  },
  { $id: 'Optimization', description: 'An optimization, its progress and the best design so far.' },
);
export type Optimization = Static<typeof Optimization>;

export const OptimizationPage = Type.Object(
  { items: Type.Array(Optimization), next_cursor: Type.Union([Type.String(), Type.Null()]) },
  { $id: 'OptimizationPage', description: 'Optimizations, newest first.' },
);

export const Evaluation = Type.Object({
  index: Type.Integer({ minimum: 0 }),
  round: Type.Integer({ minimum: 0 }),
  scenario_id: Type.String({ format: 'uuid' }),
  status: Type.String(),
  values: Values,
  kpis: Type.Union([Kpis, Type.Null()]),
  feasible: Type.Boolean(),
});
export type Evaluation = Static<typeof Evaluation>;

export const Evaluations = Type.Object(
  {
    optimization_id: Type.String({ format: 'uuid' }),
    variables: Type.Array(Type.String()),
    evaluations: Type.Array(Evaluation),
  },
  { $id: 'Evaluations', description: 'Every point tried, in the order the search proposed them.' },
);
