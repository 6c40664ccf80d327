import { randomUUID } from 'node:crypto';
import { arenaChat } from './arena-chat.js';
import { ArenaError } from './arena-errors.js';
import { arenaSearch, searchAvailable } from './arena-search.js';
import type { ArenaEvent } from './arena-events.js';
import {
  checkArenaImageHost,
  planArena,
  type ArenaMode,
  type ArenaPlan,
  type ArenaRequestBody,
} from './arena-request.js';
import { runSession } from './orchestrator.js';
import { SessionEventSink, type SequencedEvent } from './session-events.js';
import { sessionRecord } from './session-record.js';
import { newSession } from './session-state.js';
import { webSearchTool } from './web-search-tool.js';
import { deploymentChatDeps } from '../chat/chat-deployment.js';
import { deploymentSearchDeps } from '../search/search-deployment.js';
import { saveArenaSession } from '../store/arena-sessions.js';
import { accountOf, type AccountCall } from '../http/call.js';
import { endedByTimeout } from '../http/middlewares/request-context.js';
import { bare, sse, type Reply, type SseFrame } from '../http/reply.js';

/**
 * A battle or fight session for one call: planned from the body (a refusal is a 400 naming
 * the field), played through the chat core, and answered as SSE frames with increasing ids, or
 * for a battle with `stream:false` as docs/interface.md §2.10's body. Every turn's usage and the session
 * record are written after the response; the caller leaving aborts every upstream call.
 */
export async function answerArena(call: AccountCall<ArenaRequestBody>, mode: ArenaMode): Promise<Reply> {
  const sessionId = `arena-${randomUUID()}`;
  const plan = planArena(mode, call.body, randomUUID());
  await checkArenaImageHost(plan);
  const account = accountOf(call);
  const state = newSession(sessionId, plan);
  const defer = (task: () => Promise<void>) => void call.afterResponse.push(task);
  const deadlineReached = () => endedByTimeout(call.signal);
  const context = { account, sessionId, route: call.route.id, deadlineReached, defer };
  const chatDeps = deploymentChatDeps(call.config);
  const searchDeps = deploymentSearchDeps(call.config);
  const chat = arenaChat(context, chatDeps);
  // Agents search by themselves where the deployment has a search provider (docs/interface.md §4.3).
  const search = { search: searchDeps, recordUsage: chatDeps.recordUsage, now: Date.now };
  const tools = (await searchAvailable(searchDeps)) ? [webSearchTool(arenaSearch(context, search), Date.now)] : [];
  defer(() => saveArenaSession(sessionRecord(state, { ...account, route: call.route.id }, call.startedAt, new Date())));
  const events = new SessionEventSink(sessionId).sequence(
    runSession(state, { chat, tools, deadlineReached }, call.signal),
  );
  const headers = { 'X-Session-ID': sessionId };
  if (plan.stream) return sse(framesOf(events), headers);
  return bare(await battleBody(events, plan, sessionId, call.startedAt), 200, headers);
}

async function* framesOf(events: AsyncIterable<SequencedEvent>): AsyncGenerator<SseFrame> {
  for await (const { id, event } of events) yield { id: String(id), data: event };
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
