import OpenAI from 'openai';
import { bearer, call, type Answer } from './support/http.js';
import { ledgerEntries } from './support/ledger-entries.js';
import { useGateway } from './support/gateway-fixture.js';

/**
 * The fault matrix: every simulator fault kind × {stream, non-stream} × {with fallback,
 * without}. The primary is `deepseek` (one route, through OpenRouter), so "without fallback"
 * really has nowhere else to go; the fallback is `claude` (Anthropic).
 */
const local = useGateway({
  account: 'faults',
  key: { via: 'admin', body: { type: 'secret', rateLimit: 10000 } },
  simulator: 'openrouter',
  resetEach: true,
});

const PRIMARY_MODEL = 'deepseek/deepseek-v3.2';
const FALLBACK_MODEL = 'claude-sonnet-4-5';

interface Expectation {
  /** Failure class recorded for each failed attempt on the primary. */
  outcome: string;
  /** Attempts on the primary (1 + retries) before giving up. */
  primaryAttempts: number;
  /** Status when no fallback exists. */
  status: number;
  code: string;
  /** Whether a fallback may serve (false for the caller's own mistakes). */
  fallsBack: boolean;
}

const transient = (outcome: string): Expectation => ({
  outcome,
  primaryAttempts: 2,
  status: 503,
  code: 'SERVICE_UNAVAILABLE',
  fallsBack: true,
});

const beforeFirstToken: [string, Expectation][] = [
  ['status:500', transient('overload')],
  ['status:503', transient('overload')],
  [
    'status:429',
    { outcome: 'rate_limit', primaryAttempts: 2, status: 429, code: 'RATE_LIMIT_EXCEEDED', fallsBack: true },
  ],
  ['status:400', { outcome: 'bad_request', primaryAttempts: 1, status: 400, code: 'BAD_REQUEST', fallsBack: false }],
  ['status:402', { outcome: 'quota', primaryAttempts: 1, status: 503, code: 'SERVICE_UNAVAILABLE', fallsBack: true }],
  ['delay_headers:2500', transient('timeout')],
  ['delay_first_token:2500', transient('timeout')],
  ['reset_after_chunks:0', transient('connection')],
  ['malformed_chunk', transient('malformed')],
];

async function ask(stream: boolean, fallback: boolean): Promise<Answer> {
  return call(local.gateway.url('/api/v1/chat/completions'), {
    headers: bearer(local.key),
    body: {
      model: 'deepseek',
      messages: [{ role: 'user', content: `matrix ${Math.random()}` }],
      stream,
      retries: 1,
      timeout: 1000,
      ...(fallback ? { fallback: ['claude'] } : {}),
    },
  });
}

describe.each([
  ['non-stream', false],
  ['stream', true],
])('%s', (_mode, stream) => {
  test.each(beforeFirstToken)(
    '%s without fallback',
    async (fault, expected) => {
      await local.simulator.fault(fault, 10, PRIMARY_MODEL);
      const answer = await ask(stream, false);
      // Nothing reached the client before the failure, so it gets a real status, not a stream.
      expect(answer.status).toBe(expected.status);
      expect(answer.body.error).toMatchObject({ code: expected.code });
      if (expected.status === 429) expect(Number(answer.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      const entries = await ledgerEntries(
        local.gateway,
        local.account.accountId,
        answer.headers.get('x-request-id')!,
        expected.primaryAttempts,
      );
      expect(entries.map((e) => [e.model, e.outcome])).toEqual(
        Array(expected.primaryAttempts).fill([PRIMARY_MODEL, expected.outcome]),
      );
    },
    20_000,
  );

  test.each(beforeFirstToken)(
    '%s with fallback',
    async (fault, expected) => {
      await local.simulator.fault(fault, 10, PRIMARY_MODEL);
      const answer = await ask(stream, true);
      if (!expected.fallsBack) {
        expect(answer.status).toBe(expected.status);
        const entries = await ledgerEntries(
          local.gateway,
          local.account.accountId,
          answer.headers.get('x-request-id')!,
          1,
        );
        expect(entries).toHaveLength(1);
        return;
      }
      expect(answer.status).toBe(200);
      expect(answer.headers.get('x-model-used')).toBe(FALLBACK_MODEL);
      expect(answer.headers.get('x-fallback-from')).toBe('deepseek');
      expect(answer.headers.get('x-retry-count')).toBe(String(expected.primaryAttempts - 1));
      if (stream) {
        expect(streamedText(answer.text)).toContain(`Simulated reply from ${FALLBACK_MODEL}`);
        expect(answer.text.trim().endsWith('data: [DONE]')).toBe(true);
      } else {
        expect(answer.body.model).toBe(FALLBACK_MODEL);
      }
      const entries = await ledgerEntries(
        local.gateway,
        local.account.accountId,
        answer.headers.get('x-request-id')!,
        expected.primaryAttempts + 1,
      );
      expect(entries.map((e) => [e.model, e.outcome])).toEqual([
        ...Array(expected.primaryAttempts).fill([PRIMARY_MODEL, expected.outcome]),
        [FALLBACK_MODEL, 'ok'],
      ]);
    },
    20_000,
  );
});

describe('a stream that fails after its first token', () => {
  test.each([
    ['reset_after_chunks:3', 'connection'],
    ['malformed_chunk:3', 'malformed'],
  ])(
    '%s: the client gets the text so far, then a final error frame; fallback does not apply',
    async (fault, outcome) => {
      for (const fallback of [false, true]) {
        await local.simulator.fault(fault, 1, PRIMARY_MODEL);
        const answer = await ask(true, fallback);
        expect(answer.status).toBe(200);
        expect(answer.headers.get('x-model-used')).toBe(PRIMARY_MODEL);
        const frames = answer.text.split('\n\n').filter(Boolean);
        const last = JSON.parse(frames.at(-1)!.replace(/^data: /, ''));
        expect(last.error).toMatchObject({ code: 'UPSTREAM_STREAM_FAILED', type: 'server_error' });
        expect(answer.text).not.toContain('[DONE]');
        expect(answer.text).toContain('"content":"Simulated"');
        const entries = await ledgerEntries(
          local.gateway,
          local.account.accountId,
          answer.headers.get('x-request-id')!,
          1,
        );
        expect(entries.map((e) => [e.model, e.outcome])).toEqual([[PRIMARY_MODEL, outcome]]);
        // The provider reported no usage before the cut: the entry is an estimate, flagged.
        expect(entries[0]!.estimated).toBe(true);
        expect(entries[0]!.completionTokens).toBeGreaterThan(0);
      }
    },
  );

  test('the official SDK raises it instead of ending quietly', async () => {
    await local.simulator.fault('reset_after_chunks:3', 1, PRIMARY_MODEL);
    const client = new OpenAI({ apiKey: local.key, baseURL: local.gateway.url('/api/v1'), maxRetries: 0 });
    const stream = await client.chat.completions.create({
      model: 'deepseek',
      messages: [{ role: 'user', content: 'cut' }],
      stream: true,
    });
    const error = await (async () => {
      for await (const chunk of stream) void chunk;
    })().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.APIError);
  });
});

test('one transient failure is retried on the same target and reported', async () => {
  await local.simulator.fault('status:503', 1, PRIMARY_MODEL);
  const answer = await ask(false, false);
  expect(answer.status).toBe(200);
  expect(answer.headers.get('x-retry-count')).toBe('1');
  expect(answer.headers.get('x-fallback-from')).toBeNull();
  expect(answer.headers.get('x-model-used')).toBe(PRIMARY_MODEL);
  const entries = await ledgerEntries(local.gateway, local.account.accountId, answer.headers.get('x-request-id')!, 2);
  expect(entries.map((e) => e.outcome)).toEqual(['overload', 'ok']);
});

test('a client that disconnects mid-stream aborts the upstream call and is still metered', async () => {
  // Every write in 2-byte pieces: the 400-word answer would take many seconds to arrive.
  await local.simulator.fault('fragment_bytes:2', 1, PRIMARY_MODEL);
  const controller = new AbortController();
  const response = await fetch(local.gateway.url('/api/v1/chat/completions'), {
    method: 'POST',
    headers: { ...bearer(local.key), 'Content-Type': 'application/json' },
    body: JSON.stringify({
      model: 'deepseek',
      stream: true,
      messages: [{ role: 'user', content: 'long [sim:words=400]' }],
    }),
    signal: controller.signal,
  });
  const reader = response.body!.getReader();
  await reader.read();
  controller.abort();
  const requestId = response.headers.get('x-request-id')!;
  const entries = await ledgerEntries(local.gateway, local.account.accountId, requestId, 1);
  expect(entries).toHaveLength(1);
  expect(entries[0]!.model).toBe(PRIMARY_MODEL);
  expect(['client_closed', 'ok']).toContain(entries[0]!.outcome);
  // It was cut short, not allowed to finish: the attempt says so, and the upstream saw the
  // gateway hang up before the answer was complete.
  expect(entries[0]!.outcome).toBe('client_closed');
  // The simulator records how the request ended once it sees the hang-up, however long a busy
  // machine takes: should it never, the test's timeout ends the wait.
  let upstream = (await local.simulator.requests()).at(-1);
  while (upstream?.closedBeforeEnd === undefined) {
    await new Promise((done) => setTimeout(done, 50));
    upstream = (await local.simulator.requests()).at(-1);
  }
  expect(upstream?.closedBeforeEnd).toBe(true);
});

function streamedText(sse: string): string {
  return sse
    .split('\n\n')
    .map((frame) => frame.replace(/^data: /, ''))
    .filter((data) => data.startsWith('{'))
    .map((data) => JSON.parse(data).choices?.[0]?.delta?.content ?? '')
    .join('');
}

test('a client that leaves during a non-streamed answer: the attempt is metered once, the server lives on', async () => {
  await local.simulator.fault('delay_headers:1500', 1, PRIMARY_MODEL);
  const requestId = `leaving-client-${Date.now()}`;
  const controller = new AbortController();
  const pending = fetch(local.gateway.url('/api/v1/chat/completions'), {
    method: 'POST',
    headers: { ...bearer(local.key), 'Content-Type': 'application/json', 'X-Request-ID': requestId },
    body: JSON.stringify({ model: 'deepseek', messages: [{ role: 'user', content: 'slow' }] }),
    signal: controller.signal,
  }).catch((error: unknown) => error);
  await new Promise((done) => setTimeout(done, 300));
  controller.abort();
  await pending;
  // The upstream still answered (and bills): the attempt is an ordinary one.
  const entries = await ledgerEntries(local.gateway, local.account.accountId, requestId, 1);
  await new Promise((done) => setTimeout(done, 1_500));
  expect(
    (await ledgerEntries(local.gateway, local.account.accountId, requestId, 1)).map((e) => [e.model, e.outcome]),
  ).toEqual([[PRIMARY_MODEL, 'ok']]);
  expect(entries.length).toBeLessThanOrEqual(1);
  expect((await call(local.gateway.url('/api/health'))).status).toBe(200);
});
