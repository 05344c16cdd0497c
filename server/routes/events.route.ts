// GET /api/scenarios/{id}/events: the scenario's events as server-sent events.
// LISTEN first, then read rows after the last sent seq; on every notification (or reconnect of
// the listening connection) read again from the last sent seq. The rows are the truth; a
// notification only says "look". No gap, no duplicate. The streams of one scenario share each
// read and get its rows in one synchronous pass (server/sse/scenario-streams.ts).
import { type Router as ExpressRouter, type Request, type Response, Router } from 'express';
import { scenarioChannel } from '../../shared/channels.ts';
import { isTerminal, TERMINAL_EVENTS } from '../../shared/lifecycle.ts';
import type { AppDeps } from '../deps.ts';
import { allowQuery, checkStreamStart, lastEventId, methodNotAllowed, openEventStream, scenarioId } from '../http.ts';
import { idParam, problem, type RouteDoc } from '../openapi.parts.ts';
import { HttpProblem } from '../problem.ts';
import { findStreamState } from '../scenarios.repository.ts';
import { ScenarioStreams, type StreamMember } from '../sse/scenario-streams.ts';

export const eventsDoc: RouteDoc = {
  paths: {
    '/api/scenarios/{id}/events': {
      get: {
        operationId: 'getScenarioEvents',
        summary: 'Follow a scenario live (server-sent events)',
        description:
          'Events: queued, running {attempt}, progress {progress, stage, message}, succeeded {summary, statements_url}, failed {error}. Each has `id: <seq>`; resume with `Last-Event-ID` or `?last_event_id=`. The stream closes after the terminal event.',
        tags: ['scenarios'],
        parameters: [
          idParam('The scenario id (UUID).'),
          {
            name: 'Last-Event-ID',
            in: 'header',
            required: false,
            description: 'Resume after this event.',
            schema: { type: 'integer', minimum: 0 },
          },
          {
            name: 'last_event_id',
            in: 'query',
            required: false,
            description: 'Resume after this event (for clients that cannot set headers).',
            schema: { type: 'integer', minimum: 0 },
          },
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
    },
  },
};

export function eventRoutes(deps: AppDeps): ExpressRouter {
  const { db, listener, config } = deps;
  const router = Router();
  let open = 0;
  const groups = new Map<string, ScenarioStreams>();
  const groupOf = (id: string): ScenarioStreams => {
    let group = groups.get(id);
    if (!group) {
      group = new ScenarioStreams(id, db, listener, () => groups.delete(id));
      groups.set(id, group);
    }
    return group;
  };

  async function stream(req: Request, res: Response): Promise<void> {
    allowQuery(req.query, ['last_event_id']);
    const id = scenarioId(req.params.id);
    const channel = scenarioChannel(id);
    const from = lastEventId(req);
    const scenario = await findStreamState(db, id);
    if (!scenario) throw new HttpProblem('not_found', 'no scenario has this id');
    checkStreamStart(req, { open, max: config.maxSseStreams, from, lastSeq: scenario.last_seq, what: 'scenario' });
    // Finished, and the client has it all: 204 tells an EventSource to stop reconnecting (it would
    // otherwise come back after the terminal event and hold an idle stream open for good).
    if (isTerminal(scenario.status) && from >= scenario.last_seq) {
      res.status(204).end();
      return;
    }

    open++;
    let closed = false;
    let last = from;
    let unsubscribe: (() => void) | null = null;
    const ping = setInterval(() => res.write(': ping\n\n'), config.sseHeartbeatMs);
    const group = groupOf(id);

    const close = () => {
      if (closed) return;
      closed = true;
      open--;
      clearInterval(ping);
      group.leave(member);
      unsubscribe?.();
      res.end();
    };
    const member: StreamMember = {
      get last() {
        return last;
      },
      deliver(rows) {
        if (closed) return;
        // The rows' shared bytes as they are: one new event (the common case) is written without
        // a copy, an encoding or an allocation per stream.
        let first: Buffer | null = null;
        let more: Buffer[] | null = null;
        let terminal = false;
        for (const row of rows) {
          if (row.seq <= last) continue;
          if (row.seq !== last + 1) break; // never skip a seq; the next read fills it
          if (first === null) first = row.bytes;
          else if (more === null) more = [first, row.bytes];
          else more.push(row.bytes);
          last = row.seq;
          if (TERMINAL_EVENTS.has(row.name)) {
            terminal = true;
            break;
          }
        }
        if (more) res.write(Buffer.concat(more));
        else if (first) res.write(first);
        if (terminal) close();
      },
    };
    group.join(member);
    req.on('close', close);
    res.on('error', close);

    openEventStream(res);
    req.socket.setNoDelay(true);

    unsubscribe = await listener.subscribe(channel, { wake: () => group.wake() });
    if (closed) {
      unsubscribe();
      return;
    }
    // Listened now: read what was committed before, whatever the group read meanwhile.
    group.catchUp();
  }

  router.route('/api/scenarios/:id/events').get(stream).all(methodNotAllowed('GET'));
  return router;
}
