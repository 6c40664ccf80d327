/**
 * One agent's answer in a round: agent_start, its text as agent_delta events while the model
 * writes, then agent_complete, or an error event naming the agent (after the router's own
 * retries and fallbacks) and nothing more from it this round. The call goes through the chat
 * core, so routing, retries, image descriptions and metering are the gateway's own.
 *
 * The turn is a loop of model steps: a step whose answer calls one of the agent's tools (web
 * search) runs them, lets them emit their own events, and asks again with the results; after
 * MAX_TOOL_CALLS calls the tools are withdrawn, so the model has to answer. The answer's text is
 * every step's text, and its citations those the tools returned, once per URL.
 */
import type { ChatResult } from '../chat/chat-core.js';
import { ChatError } from '../chat/chat-errors.js';
import { BudgetError } from '../usage/budget-errors.js';
import type { GatewayChatRequest } from '../chat/chat-request.js';
import type { ChatMessage, ToolCall, ToolDefinition } from '../providers/chat-types.js';
import { logger } from '../config/logger.js';
import type { ArenaEvent, Citation } from './arena-events.js';
import type { ArenaAgent } from './arena-request.js';
import { ToolCallAssembler } from './tool-calls.js';

/** What a call of the chat core is for: usage entries carry it, the caller binds the rest. */
export interface TurnContext {
  readonly round: number;
  readonly agent: string;
  readonly purpose: 'answer' | 'vote' | 'synthesis';
  /** The model step within an answer (1, then one more after each round of tool calls). */
  readonly step?: number;
  readonly signal: AbortSignal;
}

/** What a tool gives back: the text the model reads, and the sources it may cite. */
export interface ToolOutcome {
  readonly content: string;
  readonly citations?: readonly Citation[];
}

/** A function the gateway itself runs for an agent (web search): the same on every provider. */
export interface AgentTool {
  readonly definition: ToolDefinition;
  /** Runs one call, emitting the tool's own events; a failure is an outcome the model reads. */
  run(
    call: ToolCall,
    context: { agent: string; round: number; signal: AbortSignal },
  ): AsyncGenerator<ArenaEvent, ToolOutcome>;
}

/** Tool calls one answer may make; then the tools are withdrawn and the model must answer. */
export const MAX_TOOL_CALLS = 3;

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
  tools: readonly AgentTool[] = [],
): AsyncGenerator<ArenaEvent> {
  yield { type: 'agent_start', round, agent: agent.id, model: agent.model };
  // The consumer may have ended the session while this turn was paused at its first event.
  if (signal.aborted) return;
  const conversation = [...messages];
  const citations = new Map<string, Citation>();
  let text = '';
  let toolCalls = 0;
  try {
    for (let step = 1; ; step++) {
      const offered = toolCalls < MAX_TOOL_CALLS ? tools : [];
      const request: GatewayChatRequest = {
        model: agent.alias,
        messages: [...conversation],
        stream: true,
        temperature: agent.temperature,
        seed: agent.seed,
        max_tokens: ANSWER_MAX_TOKENS,
        ...(offered.length ? { tools: offered.map((tool) => tool.definition), tool_choice: 'auto' as const } : {}),
      };
      const result = await chat(request, { round, agent: agent.id, purpose: 'answer', step, signal });
      if (result.kind !== 'stream') throw new Error('an agent turn asked for a stream');
      const calls = new ToolCallAssembler();
      let stepText = '';
      for await (const chunk of result.chunks) {
        const delta = chunk.choices[0]?.delta;
        if (delta?.tool_calls) calls.add(delta.tool_calls);
        if (!delta?.content) continue;
        stepText += delta.content;
        yield { type: 'agent_delta', round, agent: agent.id, delta: delta.content };
      }
      text += stepText;
      const called = calls.whole();
      if (called.length === 0 || offered.length === 0) {
        yield {
          type: 'agent_complete',
          round,
          agent: agent.id,
          model: result.routing.model,
          message: text,
          ...(citations.size ? { citations: [...citations.values()] } : {}),
        };
        return;
      }
      conversation.push({ role: 'assistant', content: stepText || null, tool_calls: called });
      for (const call of called) {
        toolCalls++;
        const tool = tools.find((candidate) => candidate.definition.function.name === call.function.name);
        const outcome: ToolOutcome =
          toolCalls > MAX_TOOL_CALLS
            ? { content: 'Error: no more tool calls in this answer; answer with what you have.' }
            : tool
              ? yield* tool.run(call, { agent: agent.id, round, signal })
              : { content: `Error: there is no tool named ${call.function.name}; answer without it.` };
        for (const citation of outcome.citations ?? [])
          if (!citations.has(citation.url)) citations.set(citation.url, citation);
        conversation.push({ role: 'tool', tool_call_id: call.id, content: outcome.content });
      }
    }
  } catch (error) {
    // The session is over (the caller left): nobody is listening for this agent's failure.
    if (signal.aborted) return;
    yield agentError(agent.id, round, error);
  }
}

/** The error event for an agent's failure: the core's own message, or a neutral one for a bug. */
export function agentError(agent: string, round: number, error: unknown): ArenaEvent {
  if (error instanceof ChatError) return { type: 'error', agent, round, code: error.kind, error: error.message };
  // The caller's budget could not hold the turn's call, which was never made.
  if (error instanceof BudgetError)
    return { type: 'error', agent, round, code: 'budget_exceeded', error: error.message };
  logger.error('arena agent turn failed', {
    agent,
    round,
    error: error instanceof Error ? error.stack : String(error),
  });
  return { type: 'error', agent, round, code: 'internal_error', error: 'Internal error in this agent turn' };
}
