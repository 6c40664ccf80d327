import { context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
} from '@opentelemetry/sdk-trace-base';
import type { APIGatewayProxyResult } from 'aws-lambda';
import { tracedUpstream } from '../../../lambdas/chat/traced-upstream.js';
import { logger } from '../../../lambdas/config/logger.js';
import type { UpstreamCaller } from '../../../lambdas/chat/router.js';
import { defineHandler } from '../../../lambdas/http/define-handler.js';
import { bare } from '../../../lambdas/http/reply.js';
import { startCallSpan } from '../../../lambdas/observability/call-span.js';
import { tracer, untraced } from '../../../lambdas/observability/tracer.js';
import type { ChatAdapter, UpstreamTarget } from '../../../lambdas/providers/chat-adapter.js';
import type { ChatCompletion, ChatCompletionChunk, ChatRequest } from '../../../lambdas/providers/chat-types.js';
import { UpstreamError } from '../../../lambdas/providers/upstream-failure.js';
import { lambdaContext, publicGetEvent } from '../../support/lambda-invocation.js';

/**
 * The spans the gateway makes, recorded in process by the real SDK (InMemorySpanExporter), and
 * what the gateway does where no SDK is registered: nothing beyond the API's no-op.
 */

const target: UpstreamTarget = {
  provider: 'openai',
  baseUrl: 'https://api.openai.example/v1',
  apiKey: 'sk-upstream-key-never-in-a-span',
  model: 'gpt-test',
};
const request: ChatRequest = {
  model: 'gpt-test',
  messages: [{ role: 'user', content: 'a prompt never in a span' }],
  temperature: 0.5,
};
const options = { signal: new AbortController().signal, timeoutMs: 1000 };
const adapter = {} as ChatAdapter;

const completion: ChatCompletion = {
  id: 'c',
  object: 'chat.completion',
  created: 0,
  model: 'gpt-test-2026',
  choices: [{ index: 0, message: { role: 'assistant', content: 'an answer never in a span' }, finish_reason: 'stop' }],
  usage: { prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 },
};

const chunk = (content: string, finish: 'stop' | null = null): ChatCompletionChunk => ({
  id: '',
  object: 'chat.completion.chunk',
  created: 0,
  model: 'gpt-test-2026',
  choices: [{ index: 0, delta: { content }, finish_reason: finish }],
});

/** An upstream caller whose stream yields `chunks`, then fails with `failure` if given. */
function fakeUpstream(chunks: ChatCompletionChunk[], failure?: Error): UpstreamCaller {
  return {
    complete: async () => completion,
    stream: async () => ({
      chunks: (async function* () {
        yield* chunks;
        if (failure) throw failure;
      })(),
      usage: () => ({ prompt_tokens: 3, completion_tokens: chunks.length, total_tokens: 3 + chunks.length }),
    }),
  };
}

describe('with no SDK registered', () => {
  test('no call span is kept, and the upstream caller is called as it is', async () => {
    expect(startCallSpan({ id: 'r', method: 'GET', path: '/p' })).toBeUndefined();
    const upstream = fakeUpstream([]);
    const pending = upstream.complete(adapter, request, target, options);
    const direct: UpstreamCaller = { ...upstream, complete: () => pending };
    expect(tracedUpstream(direct).complete(adapter, request, target, options)).toBe(pending);
  });
});

describe('with the SDK registered', () => {
  const exporter = new InMemorySpanExporter();
  beforeAll(() => {
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }));
  });
  afterAll(() => {
    trace.disable();
    context.disable();
  });
  beforeEach(() => exporter.reset());

  const spans = () => exporter.getFinishedSpans();
  const named = (name: string): ReadableSpan => {
    const found = spans().find((span) => span.name === name);
    if (!found) throw new Error(`no span ${name} among ${spans().map((span) => span.name)}`);
    return found;
  };

  test("a handler's model call is a child of its call span, with the GenAI attributes and nothing said", async () => {
    const handler = defineHandler('openapi-get', {
      handle: async () => {
        const answer = await tracedUpstream(fakeUpstream([])).complete(adapter, request, target, options);
        return bare({ model: answer.model }, 200);
      },
    });
    const result = (await handler(publicGetEvent, lambdaContext())) as APIGatewayProxyResult;
    expect(result.statusCode).toBe(200);

    const callSpan = named('GET /api/v1/openapi.json');
    const modelSpan = named('chat gpt-test');
    expect(modelSpan.parentSpanContext?.spanId).toBe(callSpan.spanContext().spanId);
    expect(modelSpan.spanContext().traceId).toBe(callSpan.spanContext().traceId);
    expect(callSpan.attributes).toMatchObject({
      route: 'openapi-get',
      'http.route': '/api/v1/openapi.json',
      'http.response.status_code': 200,
      'aws.xray.annotations': ['route'],
    });
    expect(modelSpan.attributes).toEqual({
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'openai',
      'gen_ai.request.model': 'gpt-test',
      'gen_ai.request.temperature': 0.5,
      'server.address': 'api.openai.example',
      'gen_ai.response.model': 'gpt-test-2026',
      'gen_ai.usage.input_tokens': 11,
      'gen_ai.usage.output_tokens': 7,
      'gen_ai.response.finish_reasons': ['stop'],
    });
  });

  test('a handler that throws leaves a 500 call span marked failed', async () => {
    logger.setLogLevel('SILENT');
    const handler = defineHandler('openapi-get', {
      handle: async () => {
        throw new Error('a bug');
      },
    });
    const result = (await handler(publicGetEvent, lambdaContext())) as APIGatewayProxyResult;
    expect(result.statusCode).toBe(500);
    const callSpan = named('GET /api/v1/openapi.json');
    expect(callSpan.status.code).toBe(2);
    expect(callSpan.attributes).toMatchObject({ 'http.response.status_code': 500, 'error.type': '500' });
  });

  test('a stream read to its end ends its span with the usage and finish reason', async () => {
    const stream = await tracedUpstream(fakeUpstream([chunk('a'), chunk('b', 'stop')])).stream(
      adapter,
      request,
      target,
      options,
    );
    expect(spans()).toEqual([]);
    const read: string[] = [];
    for await (const next of stream.chunks) read.push(next.choices[0]!.delta.content ?? '');
    expect(read).toEqual(['a', 'b']);
    expect(named('chat gpt-test').attributes).toMatchObject({
      'gen_ai.response.model': 'gpt-test-2026',
      'gen_ai.usage.input_tokens': 3,
      'gen_ai.usage.output_tokens': 2,
      'gen_ai.response.finish_reasons': ['stop'],
    });
  });

  test('a stream that fails mid-way ends its span failed, with the kind of failure', async () => {
    const cut = new UpstreamError({ kind: 'connection', message: 'cut' });
    const stream = await tracedUpstream(fakeUpstream([chunk('a')], cut)).stream(adapter, request, target, options);
    const iterator = stream.chunks[Symbol.asyncIterator]();
    await iterator.next();
    await expect(iterator.next()).rejects.toBe(cut);
    const span = named('chat gpt-test');
    expect(span.status.code).toBe(2);
    expect(span.attributes).toMatchObject({ 'error.type': 'connection', 'gen_ai.usage.output_tokens': 1 });
  });

  test('a stream its reader leaves ends its span once, not failed', async () => {
    const stream = await tracedUpstream(fakeUpstream([chunk('a'), chunk('b')])).stream(
      adapter,
      request,
      target,
      options,
    );
    const iterator = stream.chunks[Symbol.asyncIterator]();
    await iterator.next();
    await iterator.return?.();
    await iterator.return?.();
    expect(spans()).toHaveLength(1);
    expect(spans()[0]!.status.code).toBe(0);
    expect(spans()[0]!.attributes['error.type']).toBeUndefined();
  });

  test('a call that fails before any answer ends its span failed', async () => {
    const refused = new UpstreamError({ kind: 'rate_limit', message: 'slow down' });
    const upstream: UpstreamCaller = { ...fakeUpstream([]), complete: async () => Promise.reject(refused) };
    await expect(tracedUpstream(upstream).complete(adapter, request, target, options)).rejects.toBe(refused);
    expect(named('chat gpt-test').attributes['error.type']).toBe('rate_limit');
  });

  test("nothing is recorded inside untraced (a webhook to a caller's URL), and all is again after it", () => {
    const inside = untraced(() => tracer.startSpan('inside'));
    const after = tracer.startSpan('after');
    expect([inside.isRecording(), after.isRecording()]).toEqual([false, true]);
    inside.end();
    after.end();
    expect(spans().map((span) => span.name)).toEqual(['after']);
  });
});
