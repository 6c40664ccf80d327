import { randomUUID } from 'node:crypto';
import { logger } from '../config/logger.js';
import { ArenaError } from './arena-errors.js';
import type { ArenaEvent } from './arena-events.js';
import {
  checkArenaImageHost,
  planArena,
  type ArenaMode,
  type ArenaPlan,
  type ArenaRequestBody,
} from './arena-request.js';
import { superviseSession } from './session-continuation.js';
import { deploymentHostDeps, hostTiming, type HostPlacement } from './session-deployment.js';
import type { SequencedEvent } from './durable-events.js';
import { handoffEvent, HANDOFF_RETRY_MS } from './session-follow.js';
import { hostSession, type HostedSession } from './session-host.js';
import { sessionRecord } from './session-record.js';
import { newSession, type SessionState } from './session-state.js';
import { saveArenaSession } from '../store/arena-sessions.js';
import { createSessionMeta, encodeSessionPlan, putSessionPlan } from '../store/session-log.js';
import { accountOf, budgetsOf, type AccountCall } from '../http/call.js';
import { bare, sse, type Reply, type SseFrame } from '../http/reply.js';

/** When the function's deadline is unknown (no Lambda context): the route's own bound. */
const FALLBACK_RUN_MS = 900_000;

/**
 * A battle or fight session for one call: planned from the body (a refusal is a 400 naming
 * the field), kept in the session log (its plan and META), and played by this invocation as
 * its first host (session-host.ts). The live stream sends each event once the log has it,
 * with its id; the caller leaving does not stop the session, which it can read again on
 * `GET /api/v1/sessions/{id}/events`. A session that outlasts this invocation is handed on to
 * the session runner, and the stream ends with a `stream_handoff` frame and a `retry:` hint.
 * For a battle with `stream:false` the answer is docs/interface.md §2.10's body; that caller
 * waits for it on this call, so such a session is not handed on.
 */
export async function answerArena(call: AccountCall<ArenaRequestBody>, mode: ArenaMode): Promise<Reply> {
  const sessionId = `arena-${randomUUID()}`;
  const plan = planArena(mode, call.body, randomUUID());
  await checkArenaImageHost(plan);
  const now = Date.now();
  const owner = { ...accountOf(call), route: call.route.id };
  // The plan is kept for later hosts when the caller streams (a stream:false battle is never
  // handed on) and it fits an item.
  const encodedPlan = plan.stream ? encodeSessionPlan(plan) : undefined;
  const resumable = encodedPlan !== undefined;
  const placement: HostPlacement = {
    sessionId,
    holder: call.requestId,
    epoch: 1,
    owner,
    startedAt: call.startedAt,
    resumable,
    budgets: budgetsOf(call),
  };
  const timing = hostTiming(call.config, placement, call.deadline ?? now + FALLBACK_RUN_MS, now);
  const state = newSession(sessionId, plan);
  // The session's items are written side by side: one round trip before the first event.
  const [deps] = await Promise.all([
    deploymentHostDeps(call.config, placement, timing),
    encodedPlan && putSessionPlan({ accountId: owner.accountId, sessionId }, encodedPlan, now),
    saveArenaSession(sessionRecord(state, owner, call.startedAt, call.startedAt)),
    createSessionMeta(
      {
        sessionId,
        ...owner,
        mode: plan.mode,
        startedAt: call.startedAt.toISOString(),
        resumable,
        holder: call.requestId,
        leaseUntil: now + timing.leaseMs,
      },
      now,
    ),
  ]);
  const supervised = timing.mayHandOn
    ? superviseSession(call.config, { accountId: owner.accountId, sessionId })
    : Promise.resolve();
  const hosted = hostSession({ state, nextId: 1 }, deps);
  call.afterResponse.push(async () => {
    await hosted.outcome;
    await supervised.catch((error: unknown) =>
      logger.error('arena session runner did not start', { sessionId, error: (error as Error).message }),
    );
  });
  const headers = { 'X-Session-ID': sessionId };
  if (plan.stream) return sse(liveFrames(hosted, state), headers);
  const body = await battleBody(hosted.live, plan, sessionId, call.startedAt);
  await hosted.recorded;
  return bare(body, 200, headers);
}

/**
 * The live events as frames; if the session is still running when this host's part ends, a
 * last frame (no id: it is not a session event) says where it goes on, and `retry:` tells an
 * EventSource when to reconnect.
 */
async function* liveFrames(hosted: HostedSession, state: SessionState): AsyncGenerator<SseFrame> {
  let lastId = 0;
  for await (const { id, event } of hosted.live) {
    lastId = id;
    yield { id: String(id), data: event };
  }
  // The stream ends once the session's standing is recorded, so what the caller reads next agrees.
  await hosted.recorded;
  if (state.status === 'running') yield { retry: HANDOFF_RETRY_MS, data: handoffEvent(state.sessionId, lastId) };
}

/**
 * docs/interface.md §2.10: the answers in the order the models were asked for. An agent that failed is
 * listed under `errors` (an addition); when none answered, the call fails as the chat core's
 * failures do (429 if every agent was rate limited, else 503).
 */
async function battleBody(events: AsyncIterable<SequencedEvent>, plan: ArenaPlan, sessionId: string, startedAt: Date) {
  const answers = new Map<string, Extract<ArenaEvent, { type: 'agent_complete' }>>();
  const errors: { agent: string; code: string; error: string }[] = [];
  for await (const { event } of events) {
    if (event.type === 'agent_complete') answers.set(event.agent, event);
    if (event.type === 'error') errors.push({ agent: event.agent ?? '', code: event.code, error: event.error });
  }
  if (answers.size === 0)
    throw new ArenaError(
      errors.length > 0 && errors.every((e) => e.code === 'upstream_rate_limited') ? 'all_rate_limited' : 'no_answer',
      `No model could answer: ${errors.map((e) => `${e.agent}: ${e.error}`).join('; ')}`,
    );
  const responses = plan.agents.flatMap((agent) => {
    const answer = answers.get(agent.id);
    if (!answer) return [];
    const citations = answer.citations?.length ? { citations: answer.citations } : {};
    return [{ agent: agent.id, model: answer.model, message: answer.message, ...citations }];
  });
  return {
    id: sessionId,
    mode: 'battle',
    responses,
    created_at: Math.floor(startedAt.getTime() / 1000),
    ...(errors.length ? { errors } : {}),
  };
}
