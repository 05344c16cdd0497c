// The server-sent events of a scenario, as stored in scenario_events.data and sent as `data:`.
import { type Static, Type } from '@sinclair/typebox';
import type { ScenarioEventName } from '../lifecycle.ts';
import { Kpis } from './result.ts';
import { ScenarioError } from './scenario.ts';

export const QueuedEvent = Type.Object({
  attempt: Type.Optional(Type.Integer({ description: 'Present on a retry: the attempt that will run next.' })),
  reason: Type.Optional(Type.String()),
});
export const RunningEvent = Type.Object({ attempt: Type.Integer() });
export const ProgressEvent = Type.Object({
  progress: Type.Number({ minimum: 0, maximum: 1 }),
  stage: Type.String(),
  message: Type.String(),
});
export const SucceededEvent = Type.Object({ kpis: Kpis, statements_url: Type.String() });
export const FailedEvent = Type.Object({ error: ScenarioError });

export const CancelledEvent = Type.Object({});

export type EventName = ScenarioEventName;
export type EventData = {
  queued: Static<typeof QueuedEvent>;
  running: Static<typeof RunningEvent>;
  progress: Static<typeof ProgressEvent>;
  succeeded: Static<typeof SucceededEvent>;
  failed: Static<typeof FailedEvent>;
  cancelled: Static<typeof CancelledEvent>;
};
