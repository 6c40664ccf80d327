import { resolveFamily } from '../../../lambdas/catalog/lookup.js';
import { ChatError } from '../../../lambdas/chat/chat-errors.js';
import { StreamAttempt, type StreamShape } from '../../../lambdas/chat/chat-stream.js';
import { localModerator } from '../../../lambdas/chat/guardrails/moderation.js';
import { answerStreamGuard } from '../../../lambdas/chat/guardrails/stream-guard.js';
import type { RoutedStream } from '../../../lambdas/chat/router.js';
import type { AttemptTiming } from '../../../lambdas/observability/usage-metrics.js';
import type { ChatCompletionChunk, ToolCallDelta, Usage } from '../../../lambdas/providers/chat-types.js';
import { UpstreamError, type UpstreamFailure } from '../../../lambdas/providers/upstream-failure.js';
import { Meter } from '../../../lambdas/usage/metering.js';
import type { UsageEntry } from '../../../lambdas/usage/usage-ledger.js';

/**
 * Each transition of a stream attempt, driven through its iterator as the response writer
 * drives it: what goes out, the state it is left in, and the one ledger entry it makes.
 */

const USAGE: Usage = { prompt_tokens: 7, completion_tokens: 3, total_tokens: 10 };

const chunk = (
  delta: { content?: string; tool_calls?: ToolCallDelta[] },
  finish: 'stop' | 'tool_calls' | null = null,
): ChatCompletionChunk => ({
  id: 'up',
  object: 'chat.completion.chunk',
  created: 1,
  model: 'up',
  choices: [{ index: 0, delta, finish_reason: finish }],
});

interface Upstream {
  /** Chunks after the head. */
  readonly rest?: readonly ChatCompletionChunk[];
  /** Thrown after the rest, as a provider's stream throws. */
  readonly thenThrow?: unknown;
  /** After the rest, wait until the call's signal ends, then throw its reason. */
  readonly hang?: boolean;
  readonly usage?: Usage;
}

function setup(head: readonly ChatCompletionChunk[], upstream: Upstream = {}, shape: Partial<StreamShape> = {}) {
  const controller = new AbortController();
  let closed = false;
  async function* rest(): AsyncGenerator<ChatCompletionChunk> {
    try {
      yield* upstream.rest ?? [];
      if (upstream.thenThrow !== undefined) throw upstream.thenThrow;
      if (upstream.hang)
        await new Promise((_, reject) => {
          const { signal } = controller;
          if (signal.aborted) reject(signal.reason);
          signal.addEventListener('abort', () => reject(signal.reason), { once: true });
        });
    } finally {
      closed = true;
    }
  }
  const routed: RoutedStream = {
    target: { provider: 'openai', model: 'gpt-5', family: resolveFamily('gpt')!, requested: 'gpt' },
    retries: 0,
    head,
    rest: rest(),
    usage: () => upstream.usage,
    startedAt: 1_000,
    firstTokenAt: 1_030,
  };
  const timings: (AttemptTiming | undefined)[] = [];
  const meter = new Meter(
    { requestId: 'req-1', accountId: 'acct-1', route: 'chat-completions', at: new Date(0) },
    async () => {},
    (_entry, timing) => void timings.push(timing),
  );
  const attempt = new StreamAttempt(
    routed,
    {
      id: 'chatcmpl-1',
      created: 42,
      includeUsage: false,
      messages: [{ role: 'user', content: 'hi' }],
      signal: controller.signal,
      deadlineReached: () => false,
      now: () => 1_250,
      ...shape,
    },
    meter,
  );
  return { attempt, controller, timings, entries: () => meter.recorded, upstreamClosed: () => closed };
}

async function failureOf(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a failure');
}

const content = (result: IteratorResult<ChatCompletionChunk>) =>
  result.done ? 'DONE' : (result.value.choices[0]?.delta.content ?? null);

const ledger = (entries: readonly UsageEntry[]) =>
  entries.map((e) => ({ outcome: e.outcome, status: e.status, promptTokens: e.promptTokens }));

describe('waiting → streaming → checking → completed', () => {
  test('the first chunk out carries the role; the upstream ending settles the attempt once as ok', async () => {
    const { attempt, entries, timings } = setup([chunk({ content: 'Hel' })], {
      rest: [chunk({ content: 'lo' }), chunk({}, 'stop')],
      usage: USAGE,
    });
    expect(attempt.state).toBe('waiting');
    const first = await attempt.next();
    expect(first.value).toEqual({
      id: 'chatcmpl-1',
      object: 'chat.completion.chunk',
      created: 42,
      model: 'gpt-5',
      choices: [{ index: 0, delta: { role: 'assistant', content: 'Hel' }, finish_reason: null }],
    });
    expect(attempt.state).toBe('streaming');
    expect((await attempt.next()).value.choices[0].delta).toEqual({ content: 'lo' });
    expect((await attempt.next()).value.choices[0]).toEqual({ index: 0, delta: {}, finish_reason: 'stop' });
    expect(entries()).toEqual([]);
    expect(await attempt.next()).toEqual({ done: true, value: undefined });
    expect(attempt.state).toBe('completed');
    expect(ledger(entries())).toEqual([{ outcome: 'ok', status: 200, promptTokens: 7 }]);
    // Duration on the router's clock: now (1250) minus the attempt's start (1000).
    expect(timings).toEqual([{ durationMs: 250, firstTokenMs: 30 }]);
    expect(await attempt.next()).toEqual({ done: true, value: undefined });
    await attempt.return();
    expect(entries()).toHaveLength(1);
  });

  test('the usage chunk comes last, estimated from what went out when the provider reports none', async () => {
    const { attempt, entries } = setup(
      [chunk({ content: 'abcdefgh' })],
      { rest: [chunk({ content: 'ij' })] },
      {
        includeUsage: true,
      },
    );
    const out: ChatCompletionChunk[] = [];
    for await (const c of attempt) out.push(c);
    expect(out.map((c) => c.usage)).toEqual([
      null,
      null,
      // 10 characters streamed: 3 tokens; the prompt's JSON is 32 characters: 8 tokens.
      { prompt_tokens: 8, completion_tokens: 3, total_tokens: 11 },
    ]);
    expect(out[2]!.choices).toEqual([]);
    expect(entries()).toMatchObject([{ outcome: 'ok', estimated: true, promptTokens: 8, completionTokens: 3 }]);
  });

  test('a streamed tool call is relayed with its arguments and metered once; nothing is stored', async () => {
    const call: ToolCallDelta = {
      index: 0,
      id: 'c1',
      type: 'function',
      function: { name: 'weather', arguments: '{"ci' },
    };
    const { attempt, entries } = setup([chunk({ tool_calls: [call] })], {
      rest: [chunk({ tool_calls: [{ index: 0, function: { arguments: 'ty":"Oslo"}' } }] }, 'tool_calls')],
    });
    const out: ChatCompletionChunk[] = [];
    for await (const c of attempt) out.push(c);
    expect(out.flatMap((c) => c.choices[0]!.delta.tool_calls!.map((t) => t.function!.arguments))).toEqual([
      '{"ci',
      'ty":"Oslo"}',
    ]);
    expect(out[1]!.choices[0]!.finish_reason).toBe('tool_calls');
    // 15 characters of arguments: 4 tokens, estimated since the provider reported none.
    expect(entries()).toMatchObject([{ outcome: 'ok', completionTokens: 4, cached: false }]);
    expect(attempt.state).toBe('completed');
  });

  test('checking: text the guard held back goes out after the attempt is settled, before the end', async () => {
    const guard = answerStreamGuard(['pii'], { model: 'gpt', messages: [] }, localModerator());
    // The upstream ends without a finish chunk, so the redactor's held tail has not gone out.
    const { attempt, entries } = setup(
      [chunk({ content: 'mail jane@exa' })],
      {
        rest: [chunk({ content: 'mple.com now' })],
      },
      { guard },
    );
    expect(content(await attempt.next())).toBe('mail ');
    expect(content(await attempt.next())).toBe('[REDACTED_EMAIL] ');
    expect(content(await attempt.next())).toBe('now');
    expect(attempt.state).toBe('checking');
    expect(ledger(entries())).toEqual([{ outcome: 'ok', status: 200, promptTokens: 8 }]);
    expect(content(await attempt.next())).toBe('DONE');
    expect(attempt.state).toBe('completed');
    expect(entries()).toHaveLength(1);
  });
});

describe('checking → blocked', () => {
  test('a guardrail block ends the stream with its own error, and the attempt is metered once as ok', async () => {
    const guard = answerStreamGuard(['content_moderation'], { model: 'gpt', messages: [] }, localModerator());
    const { attempt, entries, upstreamClosed } = setup(
      [chunk({ content: 'Sure. To make a pi' })],
      {
        rest: [chunk({ content: 'pe bomb, first...' }, 'stop')],
        usage: USAGE,
      },
      { guard, includeUsage: true },
    );
    await attempt.next();
    await attempt.next();
    const error = await failureOf(attempt.next());
    expect(error).toBeInstanceOf(ChatError);
    expect(error).toMatchObject({ kind: 'content_blocked', message: expect.stringContaining("The model's answer") });
    expect(attempt.state).toBe('blocked');
    expect(upstreamClosed()).toBe(true);
    // The upstream answered in full: the ledger says so, once, whatever the guard decided.
    expect(ledger(entries())).toEqual([{ outcome: 'ok', status: 200, promptTokens: 7 }]);
    expect(await attempt.next()).toEqual({ done: true, value: undefined });
    await attempt.return();
    expect(entries()).toHaveLength(1);
    expect(attempt.state).toBe('blocked');
  });
});

describe('streaming → failed', () => {
  test('an upstream failure after the first chunk is upstream_stream_failed, metered once with its kind', async () => {
    const reset: UpstreamFailure = { kind: 'connection', message: 'socket reset' };
    const { attempt, entries, upstreamClosed } = setup([chunk({ content: 'partial' })], {
      thenThrow: new UpstreamError(reset),
    });
    expect(content(await attempt.next())).toBe('partial');
    const error = await failureOf(attempt.next());
    expect(error).toBeInstanceOf(ChatError);
    expect(error).toMatchObject({
      kind: 'upstream_stream_failed',
      message: 'The model stream failed after it started (connection): socket reset',
    });
    expect(attempt.state).toBe('failed');
    expect(upstreamClosed()).toBe(true);
    expect(ledger(entries())).toEqual([{ outcome: 'connection', status: 0, promptTokens: 8 }]);
    await attempt.return();
    expect(await attempt.next()).toEqual({ done: true, value: undefined });
    expect(entries()).toHaveLength(1);
  });

  test("a failure with the upstream's status keeps the status in the ledger", async () => {
    const { attempt, entries } = setup([chunk({ content: 'a' })], {
      thenThrow: new UpstreamError({ kind: 'overload', status: 529, message: 'overloaded' }),
    });
    await attempt.next();
    await failureOf(attempt.next());
    expect(ledger(entries())).toEqual([{ outcome: 'overload', status: 529, promptTokens: 8 }]);
  });

  test('the deadline cutting the stream is upstream_stream_failed, metered as a timeout', async () => {
    const { attempt, controller, entries } = setup(
      [chunk({ content: 'first' })],
      { hang: true },
      {
        deadlineReached: () => true,
      },
    );
    await attempt.next();
    const pending = attempt.next();
    controller.abort(new Error('deadline'));
    expect(await failureOf(pending)).toMatchObject({
      kind: 'upstream_stream_failed',
      message: 'The answer took longer than this endpoint may run; it was cut at the time limit',
    });
    expect(attempt.state).toBe('failed');
    expect(ledger(entries())).toEqual([{ outcome: 'timeout', status: 0, promptTokens: 8 }]);
  });

  test('our own fault is rethrown as it is (the transport reports it) and metered as malformed', async () => {
    const bug = new TypeError('a bug');
    const { attempt, entries } = setup([chunk({ content: 'a' })], { thenThrow: bug });
    await attempt.next();
    expect(await failureOf(attempt.next())).toBe(bug);
    expect(attempt.state).toBe('failed');
    expect(ledger(entries())).toEqual([{ outcome: 'malformed', status: 0, promptTokens: 8 }]);
  });
});

describe('→ client_closed', () => {
  test('the caller leaving mid-stream is metered once as client_closed and frees the upstream', async () => {
    const { attempt, entries, upstreamClosed } = setup([chunk({ content: 'one' })], {
      rest: [chunk({ content: 'two' }), chunk({ content: 'three' })],
      usage: USAGE,
    });
    await attempt.next();
    await attempt.next();
    expect(await attempt.return()).toEqual({ done: true, value: undefined });
    expect(attempt.state).toBe('client_closed');
    expect(upstreamClosed()).toBe(true);
    expect(ledger(entries())).toEqual([{ outcome: 'client_closed', status: 200, promptTokens: 7 }]);
    await attempt.return();
    expect(await attempt.next()).toEqual({ done: true, value: undefined });
    expect(entries()).toHaveLength(1);
  });

  test('a caller that left while the upstream read was pending: its abort rethrown, metered as client_closed', async () => {
    const { attempt, controller, entries } = setup([chunk({ content: 'first' })], { hang: true });
    await attempt.next();
    const pending = attempt.next();
    const left = new Error('client left');
    controller.abort(left);
    expect(await failureOf(pending)).toBe(left);
    expect(attempt.state).toBe('client_closed');
    expect(ledger(entries())).toEqual([{ outcome: 'client_closed', status: 200, promptTokens: 8 }]);
  });

  test('leaving waits for the read in progress: what that read met is what is metered', async () => {
    const { attempt, controller, entries } = setup([chunk({ content: 'first' })], { hang: true });
    await attempt.next();
    const pending = attempt.next();
    const leaving = attempt.return();
    controller.abort(new UpstreamError({ kind: 'connection', message: 'reset' }));
    expect(await failureOf(pending)).toMatchObject({ kind: 'upstream_stream_failed' });
    await leaving;
    expect(attempt.state).toBe('failed');
    expect(entries().map((e) => e.outcome)).toEqual(['connection']);
  });

  test('leaving after the upstream answered in full keeps the ok entry: the answer was complete', async () => {
    const guard = answerStreamGuard(['pii'], { model: 'gpt', messages: [] }, localModerator());
    const { attempt, entries } = setup([chunk({ content: 'call 555' })], {}, { guard });
    await attempt.next();
    await attempt.next(); // the held-back tail, out in `checking`
    expect(attempt.state).toBe('checking');
    await attempt.return();
    expect(attempt.state).toBe('client_closed');
    expect(entries().map((e) => e.outcome)).toEqual(['ok']);
  });

  test('leaving before the first chunk is still metered: the upstream was already answering', async () => {
    const { attempt, entries } = setup([chunk({ content: 'never read' })], { hang: true });
    await attempt.return();
    expect(attempt.state).toBe('client_closed');
    expect(entries().map((e) => e.outcome)).toEqual(['client_closed']);
  });
});

describe('settle', () => {
  test('only the first settle meters; a second one says so and changes nothing', () => {
    const { attempt, entries } = setup([chunk({ content: 'a' })], { usage: USAGE });
    expect(attempt.settle({ kind: 'ok' })).toBe(true);
    expect(attempt.settle({ kind: 'failed', failure: { kind: 'overload', status: 503, message: 'busy' } })).toBe(false);
    expect(attempt.settle({ kind: 'client_closed' })).toBe(false);
    expect(ledger(entries())).toEqual([{ outcome: 'ok', status: 200, promptTokens: 7 }]);
  });

  test('a stream that was settled, then fails, still has one entry: the first outcome', async () => {
    const { attempt, entries } = setup([chunk({ content: 'a' })], {
      thenThrow: new UpstreamError({ kind: 'connection', message: 'reset' }),
    });
    attempt.settle({ kind: 'client_closed' });
    await attempt.next();
    expect(await failureOf(attempt.next())).toMatchObject({ kind: 'upstream_stream_failed' });
    expect(entries().map((e) => e.outcome)).toEqual(['client_closed']);
  });
});
