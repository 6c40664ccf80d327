import { performance } from 'node:perf_hooks';
import { anthropicSimulator } from '../../../local/simulators/anthropic.js';
import type { CapturedRequest } from '../../../local/simulators/capture.js';
import { geminiSimulator } from '../../../local/simulators/gemini.js';
import { startSimulator, type RunningSimulator, type SimulatorDefinition } from '../../../local/simulators/harness.js';
import { openAiSimulator } from '../../../local/simulators/openai.js';
import { openRouterSimulator } from '../../../local/simulators/openrouter.js';
import {
  MAX_ANSWER_PACING_MS,
  MAX_FIRST_TOKEN_MS,
  MAX_TOKEN_MS,
  pacingOf,
  wholeAnswerMs,
} from '../../../local/simulators/pacing.js';

/**
 * Paced simulators (`[sim:first_token_ms=N]`, `[sim:token_ms=N]`) write as slowly as asked, for
 * every wire format, and their captured requests say when the answer started and ended. Only
 * lower bounds on time are asserted: a loaded machine can make a wait longer, never shorter.
 */

const FIRST_MS = 150;
const TOKEN_MS = 40;
const WORDS = 4;
const PACED = `Hi [sim:first_token_ms=${FIRST_MS}] [sim:token_ms=${TOKEN_MS}] [sim:words=${WORDS}]`;
/** Timers may fire up to a millisecond early relative to another process's clock reading. */
const SLACK_MS = 2;

interface Wire {
  readonly definition: SimulatorDefinition;
  readonly path: string;
  readonly headers: Record<string, string>;
  body(text: string, stream: boolean): unknown;
  /** Whether a stream event carries answer text. */
  hasText(data: string): boolean;
}

/** An OpenAI-compatible wire: chat completions under `prefix`. */
function chatCompletions(definition: SimulatorDefinition, prefix: string, model: string): Wire {
  return {
    definition,
    path: `${prefix}/chat/completions`,
    headers: { authorization: 'Bearer sk-test' },
    body: (text, stream) => ({ model, messages: [{ role: 'user', content: text }], stream }),
    hasText: (data) => /"content":"[^"]+"/.test(data),
  };
}

const WIRES: Record<string, Wire> = {
  openai: chatCompletions(openAiSimulator, '/v1', 'gpt-5'),
  openrouter: chatCompletions(openRouterSimulator, '/api/v1', 'openai/gpt-5'),
  anthropic: {
    definition: anthropicSimulator,
    path: '/v1/messages',
    headers: { 'x-api-key': 'sk-ant-test', 'anthropic-version': '2023-06-01' },
    body: (text, stream) => ({
      model: 'claude-sonnet-4-5',
      max_tokens: 256,
      messages: [{ role: 'user', content: text }],
      stream,
    }),
    hasText: (data) => data.includes('"text_delta"'),
  },
  gemini: {
    definition: geminiSimulator,
    path: '/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse',
    headers: { 'x-goog-api-key': 'gemini-test-key' },
    body: (text) => ({ contents: [{ role: 'user', parts: [{ text }] }] }),
    hasText: (data) => data.includes('"text"'),
  },
};

const sims: Record<string, RunningSimulator> = {};
beforeAll(async () => {
  for (const [name, wire] of Object.entries(WIRES)) sims[name] = await startSimulator(wire.definition);
});
afterAll(() => Promise.all(Object.values(sims).map((sim) => sim.close())));
beforeEach(() => {
  for (const sim of Object.values(sims)) sim.requests.length = 0;
});

const now = () => performance.timeOrigin + performance.now();

function post(name: string, text: string, stream: boolean, signal?: AbortSignal): Promise<Response> {
  const wire = WIRES[name]!;
  return fetch(sims[name]!.url + wire.path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...wire.headers },
    body: JSON.stringify(wire.body(text, stream)),
    ...(signal ? { signal } : {}),
  });
}

/** Every SSE event of a response with the time it arrived (epoch ms); comments left out. */
async function timedEvents(response: Response): Promise<{ data: string; at: number }[]> {
  const events: { data: string; at: number }[] = [];
  const decoder = new TextDecoder();
  let buffered = '';
  for await (const chunk of response.body!) {
    const at = now();
    buffered += decoder.decode(chunk as Uint8Array, { stream: true }).replaceAll('\r\n', '\n');
    const frames = buffered.split('\n\n');
    buffered = frames.pop()!;
    for (const frame of frames) if (!frame.startsWith(':')) events.push({ data: frame, at });
  }
  return events;
}

describe.each(Object.keys(WIRES))('%s stream', (name) => {
  it('waits first_token_ms before its first event and token_ms between text events', async () => {
    const sent = now();
    const events = await timedEvents(await post(name, PACED, true));
    const texts = events.filter((event) => WIRES[name]!.hasText(event.data));
    expect(texts).toHaveLength(WORDS);
    expect(events[0]!.at - sent).toBeGreaterThanOrEqual(FIRST_MS - SLACK_MS);
    // Measured from when the request was sent, not between events: a read the client takes late
    // (of the first text event too) shortens every later gap it sees, but the k-th token can
    // never arrive before the first wait and k token waits have passed since the request left.
    for (let i = 1; i < texts.length; i++)
      expect(texts[i]!.at - sent).toBeGreaterThanOrEqual(FIRST_MS + i * TOKEN_MS - SLACK_MS);
  });

  it('captures when the request came, when the answer started and when it ended', async () => {
    await timedEvents(await post(name, PACED, true));
    const [request] = sims[name]!.requests as CapturedRequest[];
    const { receivedAt, firstByteAt, endedAt } = request!;
    expect(firstByteAt! - receivedAt).toBeGreaterThanOrEqual(FIRST_MS - SLACK_MS);
    expect(endedAt! - firstByteAt!).toBeGreaterThanOrEqual((WORDS - 1) * TOKEN_MS - SLACK_MS);
    expect(request).toMatchObject({ at: expect.any(String), closedBeforeEnd: false });
  });
});

describe('whole answers', () => {
  it.each(['openai', 'anthropic'])(
    '%s waits first_token_ms + token_ms × completion tokens before answering',
    async (name) => {
      const sent = now();
      const response = await post(name, PACED, false);
      expect(response.status).toBe(200);
      await response.text();
      expect(now() - sent).toBeGreaterThanOrEqual(FIRST_MS + WORDS * TOKEN_MS - SLACK_MS);
    },
  );

  it('gemini generateContent too', async () => {
    const sent = now();
    const response = await fetch(`${sims['gemini']!.url}/v1beta/models/gemini-2.5-pro:generateContent`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...WIRES['gemini']!.headers },
      body: JSON.stringify(WIRES['gemini']!.body(PACED, false)),
    });
    expect(response.status).toBe(200);
    await response.text();
    expect(now() - sent).toBeGreaterThanOrEqual(FIRST_MS + WORDS * TOKEN_MS - SLACK_MS);
  });
});

describe('capture timing', () => {
  it('keeps an upstream keep-alive comment out of firstByteAt', async () => {
    const response = await post('openrouter', PACED, true);
    const text = await response.text();
    expect(text.startsWith(': OPENROUTER PROCESSING')).toBe(true);
    const [request] = sims['openrouter']!.requests;
    expect(request!.firstByteAt! - request!.receivedAt).toBeGreaterThanOrEqual(FIRST_MS - SLACK_MS);
  });

  it('ends a request when the caller leaves mid-answer, with sub-millisecond epoch times', async () => {
    const leave = new AbortController();
    const slow = 'Hi [sim:first_token_ms=0] [sim:token_ms=200] [sim:words=50]';
    const response = await post('openai', slow, true, leave.signal);
    const reader = response.body!.getReader();
    await reader.read();
    leave.abort();
    await reader.read().catch(() => undefined);
    const request = sims['openai']!.requests[0]!;
    await until(() => request.endedAt !== undefined);
    expect(request.closedBeforeEnd).toBe(true);
    expect(request.receivedAt).toBeLessThanOrEqual(request.firstByteAt!);
    expect(request.firstByteAt).toBeLessThanOrEqual(request.endedAt!);
    // Epoch milliseconds of this moment, not a monotonic clock's.
    expect(Math.abs(request.receivedAt - Date.now())).toBeLessThan(60_000);
    const times = [request.receivedAt, request.firstByteAt!, request.endedAt!];
    expect(times.some((time) => !Number.isInteger(time))).toBe(true);
  });
});

describe('pacing bounds', () => {
  const directives = (entries: Record<string, string>) => new Map(Object.entries(entries));

  it('clamps each wait to its bound, so a caller cannot park a simulator', () => {
    expect(pacingOf(directives({ first_token_ms: '99999999', token_ms: '5000' }))).toEqual({
      firstTokenMs: MAX_FIRST_TOKEN_MS,
      tokenMs: MAX_TOKEN_MS,
    });
    const longest = { pacing: { firstTokenMs: MAX_FIRST_TOKEN_MS, tokenMs: MAX_TOKEN_MS }, completionTokens: 2048 };
    expect(wholeAnswerMs(longest)).toBe(MAX_ANSWER_PACING_MS);
  });

  it('ignores values that are not whole milliseconds', () => {
    for (const value of ['-5', 'abc', '1.5', '', '1e4'])
      expect(pacingOf(directives({ first_token_ms: value, token_ms: value }))).toEqual({ firstTokenMs: 0, tokenMs: 0 });
  });
});

async function until(condition: () => boolean): Promise<void> {
  for (let tries = 0; tries < 200 && !condition(); tries++) await new Promise((done) => setTimeout(done, 10));
}
