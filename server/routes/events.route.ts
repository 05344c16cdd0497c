// GET /api/scenarios/{id}/events: the scenario's events as server-sent events, through the one
// event-stream mechanism of server/sse/event-streams.ts.
import { scenarioChannel } from '../../shared/channels.ts';
import { isTerminal, TERMINAL_EVENTS } from '../../shared/lifecycle.ts';
import type { WorkspaceDb } from '../../shared/workspace.ts';
import { HttpProblem } from '../problem.ts';
import { ResumeHeaders, ResumeQuery, resumePoint, streamReplies } from '../route.common.ts';
import { type AnyRoute, defineRoute, IdParams } from '../route.ts';
import { eventsAfter, findStreamState } from '../scenarios.repository.ts';
import { type EventSource, sseBlock } from '../sse/event-streams.ts';

/** A scenario's events: its rows in scenario_events, notified on its channel. */
function scenarioEvents(ws: WorkspaceDb, id: string): EventSource {
  return {
    channel: scenarioChannel(id),
    terminal: TERMINAL_EVENTS,
    exists: async () => (await findStreamState(ws, id)) !== undefined,
    async read(after) {
      const rows = await eventsAfter(ws, id, after);
      return { events: rows.map((r) => ({ seq: r.seq, name: r.name, bytes: sseBlock(r.seq, r.name, r.data) })) };
    },
  };
}

const scenarioEventStream = defineRoute({
  method: 'get',
  path: '/api/scenarios/{id}/events',
  operationId: 'getScenarioEvents',
  summary: 'Follow a scenario live (server-sent events)',
  description:
    'Events: queued, running {attempt}, progress {progress, stage, message}, succeeded {kpis, statements_url}, failed {error}, cancelled. Each has `id: <seq>`; resume with `Last-Event-ID` or `?last_event_id=`. The stream closes after the terminal event.',
  tags: ['scenarios'],
  params: IdParams('scenario'),
  notFound: 'no scenario has this id',
  query: ResumeQuery,
  headers: ResumeHeaders,
  responses: streamReplies('scenario'),
  async handle({ params, query, headers, ws, req, res }, deps) {
    const state = await findStreamState(ws, params.id);
    if (!state) throw new HttpProblem('not_found', 'no scenario has this id');
    await deps.streams.serve(req, res, scenarioEvents(ws, params.id), {
      ...resumePoint(query, headers),
      lastSeq: state.last_seq,
      finished: isTerminal(state.status),
      what: 'scenario',
    });
  },
});

export const eventRoutes: readonly AnyRoute[] = [scenarioEventStream];
