import { type Static, Type } from '@sinclair/typebox';
import { SCENARIO_STATUSES } from '../lifecycle.ts';
import { ScenarioInputs } from './inputs.ts';
import { Kpis } from './result.ts';

const Nullable = <T extends ReturnType<typeof Type.String>>(t: T) => Type.Union([t, Type.Null()]);
const Timestamp = (description: string) => Type.String({ format: 'date-time', description });

export const ScenarioStatus = Type.Union(
  SCENARIO_STATUSES.map((s) => Type.Literal(s)),
  {
    description:
      'queued → running → succeeded | failed, or queued → cancelled. A retry after a crash goes back to queued.',
  },
);

export const ScenarioError = Type.Object(
  { code: Type.String(), message: Type.String() },
  { description: 'Why the calculation failed.' },
);

const scenarioFields = {
  id: Type.String({ format: 'uuid', description: 'UUIDv7.' }),
  name: Type.String(),
  status: ScenarioStatus,
  progress: Type.Number({ minimum: 0, maximum: 1 }),
  stage: Type.Union([Type.String(), Type.Null()]),
  attempt: Type.Integer({ minimum: 0, description: 'How many times a worker has started the calculation.' }),
  kpis: Type.Union([Kpis, Type.Null()], { description: 'Its key figures once it has succeeded, else null.' }),
  error: Type.Union([ScenarioError, Type.Null()]),
  created_at: Timestamp('When the scenario was created.'),
  updated_at: Timestamp('When the scenario last changed.'),
  started_at: Nullable(Timestamp('When the latest attempt started.')),
  finished_at: Nullable(Timestamp('When it succeeded or failed.')),
  sweep_id: Type.Union([Type.String({ format: 'uuid' }), Type.Null()], {
    description: "The sweep this variant belongs to; null for a single scenario and for an optimization's evaluation.",
  }),
  variant_index: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], {
    description:
      "Its index among its parent's variants: a sweep's variant index (its row in the sweep's results), or an optimization's evaluation index (its row in the evaluations). Null for a single scenario.",
  }),
  links: Type.Object({ self: Type.String(), events: Type.String(), statements: Type.String() }),
};

export const ScenarioListItem = Type.Object(scenarioFields, { $id: 'ScenarioListItem' });
export const Scenario = Type.Object(
  { ...scenarioFields, inputs: ScenarioInputs },
  { $id: 'Scenario', description: 'A scenario with its inputs, every default applied.' },
);
export const ScenarioList = Type.Object(
  { items: Type.Array(ScenarioListItem), total: Type.Integer() },
  { $id: 'ScenarioList', description: 'Every scenario, newest first.' },
);

export const ScenarioPage = Type.Object(
  {
    items: Type.Array(ScenarioListItem),
    next_cursor: Type.Union([Type.String(), Type.Null()], {
      description: 'Pass as ?cursor= (with the same ?limit and filters) for the next page; null on the last page.',
    }),
  },
  { $id: 'ScenarioPage', description: 'One page of scenarios, newest first (with ?limit).' },
);

export type Scenario = Static<typeof Scenario>;
export type ScenarioListItem = Static<typeof ScenarioListItem>;
