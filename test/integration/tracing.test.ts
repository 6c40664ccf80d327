import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bearer, call, type Answer } from './support/http.js';
import { useGateway } from './support/gateway-fixture.js';

/**
 * The spans a deployment exports, recorded from the real runtime. The runtime is started with the
 * OpenTelemetry SDK preloaded (test/support/otel-span-recorder.mjs: a BasicTracerProvider and the
 * AsyncLocalStorage context manager, registered through the recorder's own copy of the API), as
 * the OpenTelemetry layer preloads its SDK into a function, and each finished span is written to
 * a file. Chat completions, whole and streamed, and one that falls back: one span per call of the
 * route, one per upstream model call as its child, with the GenAI attributes; no prompt, answer
 * or key in any attribute.
 */
const dir = mkdtempSync(join(tmpdir(), 'gateway-spans-'));
const RECORD = join(dir, 'spans.jsonl');
const RECORDER = fileURLToPath(new URL('../support/otel-span-recorder.mjs', import.meta.url));

const local = useGateway({
  env: {
    NODE_OPTIONS: `${process.env['NODE_OPTIONS'] ?? ''} --import ${RECORDER}`.trim(),
    OTEL_SPAN_RECORD_FILE: RECORD,
    POWERTOOLS_LOG_LEVEL: 'WARN',
  },
  account: 'tracing',
  key: { via: 'admin', body: { type: 'secret', rateLimit: 10000 } },
  simulator: 'openrouter',
  resetEach: true,
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const PRIMARY_MODEL = 'deepseek/deepseek-v3.2';
const FALLBACK_MODEL = 'claude-sonnet-4-5';

interface RecordedSpan {
  readonly name: string;
  readonly kind: number;
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId?: string;
  readonly attributes: Record<string, unknown>;
  readonly status: { code: number };
}

/** SpanKind and SpanStatusCode as the API numbers them. */
const KIND = { internal: 0, client: 2 } as const;
const STATUS_ERROR = 2;

const recorded = (): RecordedSpan[] =>
  existsSync(RECORD)
    ? readFileSync(RECORD, 'utf8')
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => JSON.parse(line) as RecordedSpan)
    : [];

/**
 * The call's span and the spans of its trace. A stream's call span ends after its last byte, so
 * it may land a moment after the client has read it all: the file is read until it is there.
 */
async function traceOf(answer: Answer): Promise<{ callSpan: RecordedSpan; spans: RecordedSpan[] }> {
  const requestId = answer.headers.get('x-request-id');
  for (let waited = 0; waited < 10_000; waited += 20) {
    const spans = recorded();
    const callSpan = spans.find((span) => span.attributes['gateway.request.id'] === requestId);
    if (callSpan) return { callSpan, spans: spans.filter((span) => span.traceId === callSpan.traceId) };
    await new Promise((done) => setTimeout(done, 20));
  }
  throw new Error(`no call span for request ${requestId} in ${RECORD}`);
}

const modelSpansUnder = (callSpan: RecordedSpan, spans: RecordedSpan[]) =>
  spans.filter((span) => span.parentSpanId === callSpan.spanId && span.kind === KIND.client);

/** No attribute of any span holds the prompt, the answer, the caller's key or the provider key sent upstream. */
async function expectNothingSecret(spans: RecordedSpan[], secrets: readonly string[]): Promise<void> {
  const sentKeys = (await local.simulator.requests())
    .map((request) => String(request.headers['authorization'] ?? '').replace(/^Bearer /, ''))
    .filter((key) => key !== '');
  const values = spans.flatMap((span) => Object.values(span.attributes).flat().map(String));
  for (const secret of [...secrets, ...sentKeys, local.key]) {
    expect(values.filter((value) => value.includes(secret))).toEqual([]);
  }
}

const ask = (body: Record<string, unknown>) =>
  call(local.gateway.url('/api/v1/chat/completions'), { headers: bearer(local.key), body });

function streamedText(sse: string): string {
  return sse
    .split('\n\n')
    .map((frame) => frame.replace(/^data: /, ''))
    .filter((data) => data.startsWith('{'))
    .map((data) => JSON.parse(data).choices?.[0]?.delta?.content ?? '')
    .join('');
}

function expectCallSpan(callSpan: RecordedSpan, status: number): void {
  expect(callSpan).toMatchObject({ name: 'POST /api/v1/chat/completions', kind: KIND.internal });
  expect(callSpan.attributes).toMatchObject({
    route: 'chat-completions',
    'http.route': '/api/v1/chat/completions',
    'http.request.method': 'POST',
    'http.response.status_code': status,
    accountId: local.account.accountId,
    'aws.xray.annotations': ['route', 'accountId'],
  });
}

describe.each([
  ['whole', false],
  ['streamed', true],
])('a %s chat completion', (_mode, stream) => {
  test('is one call span with one model call span under it, in the GenAI conventions', async () => {
    const prompt = `tracing prompt ${Math.random()}`;
    const answer = await ask({
      model: 'deepseek',
      messages: [{ role: 'user', content: prompt }],
      stream,
      temperature: 0.3,
      max_tokens: 64,
    });
    expect(answer.status).toBe(200);
    const text = stream ? streamedText(answer.text) : (answer.body.choices[0].message.content as string);
    expect(text).not.toBe('');

    const { callSpan, spans } = await traceOf(answer);
    expectCallSpan(callSpan, 200);
    expect(callSpan.parentSpanId).toBeUndefined();
    const [modelSpan, ...others] = modelSpansUnder(callSpan, spans);
    expect(others).toEqual([]);
    expect(modelSpan).toMatchObject({ name: `chat ${PRIMARY_MODEL}`, traceId: callSpan.traceId });
    expect(modelSpan!.status.code).not.toBe(STATUS_ERROR);
    expect(modelSpan!.attributes).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'openrouter',
      'gen_ai.request.model': PRIMARY_MODEL,
      'gen_ai.request.temperature': 0.3,
      'gen_ai.request.max_tokens': 64,
      'gen_ai.response.finish_reasons': ['stop'],
    });
    expect(typeof modelSpan!.attributes['gen_ai.response.model']).toBe('string');
    expect(modelSpan!.attributes['gen_ai.usage.input_tokens']).toBeGreaterThan(0);
    expect(modelSpan!.attributes['gen_ai.usage.output_tokens']).toBeGreaterThan(0);
    expect(modelSpan!.attributes['error.type']).toBeUndefined();
    await expectNothingSecret(spans, [prompt, text]);
  });

  test('that falls back has a failed span per attempt on the primary, then the fallback', async () => {
    await local.simulator.fault('status:503', 10, PRIMARY_MODEL);
    const prompt = `fallback prompt ${Math.random()}`;
    const answer = await ask({
      model: 'deepseek',
      messages: [{ role: 'user', content: prompt }],
      stream,
      retries: 1,
      timeout: 5000,
      fallback: ['claude'],
    });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('x-fallback-from')).toBe('deepseek');
    const text = stream ? streamedText(answer.text) : (answer.body.choices[0].message.content as string);

    const { callSpan, spans } = await traceOf(answer);
    expectCallSpan(callSpan, 200);
    const modelSpans = modelSpansUnder(callSpan, spans);
    expect(modelSpans.map((span) => [span.name, span.attributes['error.type'] ?? null, span.status.code])).toEqual([
      [`chat ${PRIMARY_MODEL}`, 'overload', STATUS_ERROR],
      [`chat ${PRIMARY_MODEL}`, 'overload', STATUS_ERROR],
      [`chat ${FALLBACK_MODEL}`, null, 0],
    ]);
    expect(modelSpans[2]!.attributes).toMatchObject({
      'gen_ai.provider.name': 'anthropic',
      'gen_ai.request.model': FALLBACK_MODEL,
    });
    expect(modelSpans[2]!.attributes['gen_ai.usage.output_tokens']).toBeGreaterThan(0);
    await expectNothingSecret(spans, [prompt, text]);
  });
});

test('a call that fails upstream is a 5xx call span, its model spans failed', async () => {
  await local.simulator.fault('status:503', 10, PRIMARY_MODEL);
  const answer = await ask({ model: 'deepseek', messages: [{ role: 'user', content: 'no luck' }], retries: 0 });
  expect(answer.status).toBe(503);
  const { callSpan, spans } = await traceOf(answer);
  expectCallSpan(callSpan, 503);
  expect(callSpan.status.code).toBe(STATUS_ERROR);
  expect(callSpan.attributes['error.type']).toBe('503');
  expect(modelSpansUnder(callSpan, spans).map((span) => span.attributes['error.type'])).toEqual(['overload']);
});
