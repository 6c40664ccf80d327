/**
 * One agent's answer in a round: agent_start, its text as agent_delta events while the model
 * writes, then agent_complete, or an error event naming the agent (after the router's own
 * retries and fallbacks) and nothing more from it this round. The call goes through the chat
 * core, so routing, retries, image descriptions and metering are the gateway's own.
 *
 * The turn is a loop of model steps so that a tool loop (web search, next) fits in: a step
 * whose answer calls tools runs them, emits their events and asks again with the results.
 * Today agents are offered no tools, so every turn is one step.
 */
import type { ChatResult } from '../gateway/chat-core.js';
import { ChatError } from '../gateway/chat-errors.js';
import type { GatewayChatRequest } from '../gateway/chat-request.js';
import type { ChatMessage } from '../providers/chat/types.js';
import { logger } from '../config/logger.js';
import type { ArenaEvent } from './arena-events.js';
import type { ArenaAgent } from './arena-request.js';

/** What a call of the chat core is for: usage entries carry it, the caller binds the rest. */
export interface TurnContext {
  readonly round: number;
  readonly agent: string;
  readonly purpose: 'answer' | 'vote';
  readonly signal: AbortSignal;
}

/** The chat core, bound to the caller's account, the session and its after-response work. */
export type ArenaChat = (request: GatewayChatRequest, turn: TurnContext) => Promise<ChatResult>;

/** An answer's length bound: a session's work stays bounded whatever the models do. */
export const ANSWER_MAX_TOKENS = 2048;

export async function* agentTurn(
  agent: ArenaAgent,
  round: number,
  messages: readonly ChatMessage[],
  chat: ArenaChat,
  signal: AbortSignal,
): AsyncGenerator<ArenaEvent> {
  yield { type: 'agent_start', round, agent: agent.id, model: agent.model };
  try {
    const request: GatewayChatRequest = {
      model: agent.alias,
      messages: [...messages],
      stream: true,
      temperature: agent.temperature,
      seed: agent.seed,
      max_tokens: ANSWER_MAX_TOKENS,
    };
    const result = await chat(request, { round, agent: agent.id, purpose: 'answer', signal });
    if (result.kind !== 'stream') throw new Error('an agent turn asked for a stream');
    let text = '';
    for await (const chunk of result.chunks) {
      const delta = chunk.choices[0]?.delta.content;
      if (!delta) continue;
      text += delta;
      yield { type: 'agent_delta', round, agent: agent.id, delta };
    }
    yield { type: 'agent_complete', round, agent: agent.id, model: result.routing.model, message: text };
  } catch (error) {
    // The session is over (the caller left): nobody is listening for this agent's failure.
    if (signal.aborted) return;
    yield agentError(agent.id, round, error);
  }
}

/** The error event for an agent's failure: the core's own message, or a neutral one for a bug. */
export function agentError(agent: string, round: number, error: unknown): ArenaEvent {
  if (error instanceof ChatError) return { type: 'error', agent, round, code: error.kind, error: error.message };
  logger.error('arena agent turn failed', {
    agent,
    round,
    error: error instanceof Error ? error.stack : String(error),
  });
  return { type: 'error', agent, round, code: 'internal_error', error: 'Internal error in this agent turn' };
}
