import {
  agentTurn,
  MAX_TOOL_CALLS,
  type AgentTool,
  type ArenaChat,
  type TurnContext,
} from '../../../lambdas/arena/agent-turn.js';
import { turnRequestId } from '../../../lambdas/arena/arena-chat.js';
import type { ArenaEvent } from '../../../lambdas/arena/arena-events.js';
import type { ArenaAgent } from '../../../lambdas/arena/arena-request.js';
import type { GatewayChatRequest } from '../../../lambdas/chat/chat-request.js';
import type { ChatCompletionChunk, ToolCallDelta } from '../../../lambdas/providers/chat-types.js';

const agent: ArenaAgent = { id: 'gpt', label: 'Agent 1', alias: 'gpt', model: 'gpt-5', temperature: 0.7, seed: 1 };

const chunk = (delta: ChatCompletionChunk['choices'][0]['delta']): ChatCompletionChunk => ({
  id: 'c',
  object: 'chat.completion.chunk',
  created: 0,
  model: 'm',
  choices: [{ index: 0, delta, finish_reason: null }],
});

/** A model that calls `lookup` while it is offered (split across chunks), else answers. */
function model(callsWhileOffered: boolean): {
  chat: ArenaChat;
  seen: { request: GatewayChatRequest; turn: TurnContext }[];
} {
  const seen: { request: GatewayChatRequest; turn: TurnContext }[] = [];
  const chat: ArenaChat = async (request, turn) => {
    seen.push({ request, turn });
    const offered = (request.tools?.length ?? 0) > 0;
    const calling = offered && (callsWhileOffered || seen.length === 1);
    const pieces: ChatCompletionChunk[] = calling
      ? [
          chunk({ content: 'Let me check. ' }),
          chunk({
            tool_calls: [
              { index: 0, id: `call_${seen.length}`, type: 'function', function: { name: 'look' } },
            ] as ToolCallDelta[],
          }),
          chunk({ tool_calls: [{ index: 0, function: { name: 'up', arguments: '{"query":' } }] }),
          chunk({ tool_calls: [{ index: 0, function: { arguments: '"news"}' } }] }),
        ]
      : [chunk({ content: 'The answer.' })];
    return {
      kind: 'stream',
      routing: { model: 'gpt-5', retries: 0 },
      guardrailStatus: '',
      chunks: (async function* () {
        yield* pieces;
      })(),
    };
  };
  return { chat, seen };
}

const lookup: AgentTool = {
  definition: { type: 'function', function: { name: 'lookup', parameters: { type: 'object' } } },
  async *run(call, context) {
    yield { type: 'error', agent: context.agent, round: context.round, code: 'probe', error: call.function.arguments };
    return {
      content: 'result text',
      citations: [
        { url: 'https://a.example', title: 'A', snippet: 'a' },
        { url: 'https://b.example', title: 'B', snippet: 'b' },
      ],
    };
  },
};

async function collect(events: AsyncIterable<ArenaEvent>): Promise<ArenaEvent[]> {
  const all: ArenaEvent[] = [];
  for await (const event of events) all.push(event);
  return all;
}

describe('an agent turn with tools', () => {
  it('runs a call assembled from its deltas, gives the model the result, and cites what the tool returned', async () => {
    const { chat, seen } = model(false);
    const events = await collect(
      agentTurn(agent, 1, [{ role: 'user', content: 'hi' }], chat, new AbortController().signal, [lookup]),
    );
    expect(events.find((e) => e.type === 'error')).toMatchObject({ error: '{"query":"news"}' });
    expect(seen).toHaveLength(2);
    expect(seen.map((s) => s.turn.step)).toEqual([1, 2]);
    expect(seen[1]!.request.messages.slice(-2)).toEqual([
      {
        role: 'assistant',
        content: 'Let me check. ',
        tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'lookup', arguments: '{"query":"news"}' } }],
      },
      { role: 'tool', tool_call_id: 'call_1', content: 'result text' },
    ]);
    expect(events.at(-1)).toEqual({
      type: 'agent_complete',
      round: 1,
      agent: 'gpt',
      model: 'gpt-5',
      message: 'Let me check. The answer.',
      citations: [
        { url: 'https://a.example', title: 'A', snippet: 'a' },
        { url: 'https://b.example', title: 'B', snippet: 'b' },
      ],
    });
  });

  it(`withdraws the tools after ${MAX_TOOL_CALLS} calls, so a model that keeps calling must answer`, async () => {
    const { chat, seen } = model(true);
    const events = await collect(
      agentTurn(agent, 1, [{ role: 'user', content: 'hi' }], chat, new AbortController().signal, [lookup]),
    );
    expect(seen.map((s) => s.request.tools?.length ?? 0)).toEqual([1, 1, 1, 0]);
    expect(events.filter((e) => e.type === 'error')).toHaveLength(MAX_TOOL_CALLS);
    const complete = events.at(-1) as Extract<ArenaEvent, { type: 'agent_complete' }>;
    expect(complete.citations).toHaveLength(2); // once per URL
  });

  it('offers no tools when it has none, and the answer is one step', async () => {
    const { chat, seen } = model(true);
    const events = await collect(
      agentTurn(agent, 2, [{ role: 'user', content: 'hi' }], chat, new AbortController().signal),
    );
    expect(seen).toHaveLength(1);
    expect(seen[0]!.request.tools).toBeUndefined();
    expect(events.at(-1)).toMatchObject({ type: 'agent_complete', message: 'The answer.' });
  });
});

describe('turn request ids', () => {
  it('differ per round, agent, purpose and step, so no two calls share ledger keys', () => {
    const signal = new AbortController().signal;
    const ids = [
      turnRequestId('s', { round: 1, agent: 'gpt', purpose: 'answer', signal }),
      turnRequestId('s', { round: 1, agent: 'gpt', purpose: 'answer', step: 2, signal }),
      turnRequestId('s', { round: 1, agent: 'gpt', purpose: 'vote', signal }),
      turnRequestId('s', { round: 2, agent: 'gpt', purpose: 'answer', signal }),
      turnRequestId('s', { round: 1, agent: 'claude', purpose: 'answer', signal }),
    ];
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids[0]).toBe('s/r1/gpt/answer');
  });
});
