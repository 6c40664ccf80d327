import { EventStreamCodec } from '@smithy/core/event-streams';
import { Hash } from '@smithy/hash-node';
import { SignatureV4 } from '@smithy/signature-v4';
import { crc32 } from 'node:zlib';
import { costMicroUsd } from '../../../lambdas/catalog/model-catalog.js';
import type { UpstreamTarget } from '../../../lambdas/providers/chat-adapter.js';
import type { ChatCompletionChunk, ChatRequest } from '../../../lambdas/providers/chat-types.js';
import { bedrockAdapter } from '../../../lambdas/providers/bedrock/bedrock-adapter.js';
import { toConverseBody } from '../../../lambdas/providers/bedrock/bedrock-request.js';
import { canonicalPath } from '../../../lambdas/providers/bedrock/bedrock-signing.js';
import {
  BedrockEventSource,
  EventStreamDecoder,
  MAX_FRAME_BYTES,
} from '../../../lambdas/providers/bedrock/event-stream-decoder.js';
import { completeOnce, streamOnce } from '../../../lambdas/providers/upstream-call.js';
import { UpstreamError, type UpstreamFailure } from '../../../lambdas/providers/upstream-failure.js';
import { bedrockSimulator } from '../../../local/simulators/bedrock.js';
import { eventFrame, exceptionFrame } from '../../../local/simulators/event-stream-frames.js';
import { startSimulator, type RunningSimulator } from '../../../local/simulators/harness.js';
import { failure, finishOf, streamFailure, textOf } from './adapter-support.js';

const CREDENTIALS = { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY' };
const NOVA = 'amazon.nova-pro-v1:0';
const CLAUDE = 'global.anthropic.claude-sonnet-4-5-20250929-v1:0';
const utf8 = {
  to: (b: Uint8Array) => Buffer.from(b).toString('utf8'),
  from: (s: string) => new Uint8Array(Buffer.from(s)),
};
/** AWS's own codec (the SDK's): an oracle independent of the decoder and the simulator's encoder. */
const sdkCodec = new EventStreamCodec(utf8.to, utf8.from);

const sdkFrame = (eventType: string, payload: string, extra: Record<string, string> = {}) =>
  Buffer.from(
    sdkCodec.encode({
      headers: {
        ':event-type': { type: 'string', value: eventType },
        ':message-type': { type: 'string', value: 'event' },
        ':content-type': { type: 'string', value: 'application/json' },
        ...Object.fromEntries(Object.entries(extra).map(([k, v]) => [k, { type: 'string' as const, value: v }])),
      },
      body: utf8.from(payload),
    }),
  );

const malformedKind = (run: () => unknown): UpstreamFailure => {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(UpstreamError);
    return (error as UpstreamError).failure;
  }
  throw new Error('expected an UpstreamError');
};

describe('event-stream decoder', () => {
  const frames = [
    sdkFrame('messageStart', '{"role":"assistant"}'),
    sdkFrame('contentBlockDelta', '{"contentBlockIndex":0,"delta":{"text":"héllo – ✓"}}'),
    sdkFrame('messageStop', '{"stopReason":"end_turn"}'),
  ];
  const stream = Buffer.concat(frames);

  test("reads the AWS SDK codec's frames, split at every byte offset", () => {
    for (let cut = 0; cut <= stream.length; cut++) {
      const decoder = new EventStreamDecoder();
      const messages = [...decoder.push(stream.subarray(0, cut)), ...decoder.push(stream.subarray(cut))];
      decoder.end();
      expect(messages.map((m) => m.headers[':event-type'])).toEqual([
        'messageStart',
        'contentBlockDelta',
        'messageStop',
      ]);
      expect(Buffer.from(messages[1]!.payload).toString('utf8')).toContain('héllo – ✓');
    }
  });

  test('one byte at a time, and every header value type the SDK writes', () => {
    const typed = Buffer.from(
      sdkCodec.encode({
        headers: {
          yes: { type: 'boolean', value: true },
          no: { type: 'boolean', value: false },
          b: { type: 'byte', value: -3 },
          s: { type: 'short', value: 300 },
          i: { type: 'integer', value: 70000 },
          bin: { type: 'binary', value: new Uint8Array([1, 2, 3]) },
          str: { type: 'string', value: 'text' },
          ts: { type: 'timestamp', value: new Date(1_700_000_000_000) },
          id: { type: 'uuid', value: '12345678-1234-1234-1234-123456789abc' },
        },
        body: utf8.from('{}'),
      }),
    );
    const decoder = new EventStreamDecoder();
    const messages = [...typed].flatMap((byte) => decoder.push(Uint8Array.of(byte)));
    expect(messages).toHaveLength(1);
    const headers = messages[0]!.headers;
    expect([headers['yes'], headers['no'], headers['b'], headers['s'], headers['i'], headers['str']]).toEqual([
      true,
      false,
      -3,
      300,
      70000,
      'text',
    ]);
    expect([...(headers['bin'] as Uint8Array)]).toEqual([1, 2, 3]);
    expect(headers['ts']).toBe(1_700_000_000_000n);
    expect(Buffer.from(headers['id'] as Uint8Array).toString('hex')).toBe('12345678123412341234123456789abc');
  });

  test("the simulator's encoder agrees with the SDK's codec", () => {
    const ours = eventFrame('metadata', '{"usage":{}}');
    const decoded = sdkCodec.decode(ours);
    expect(decoded.headers[':event-type']).toEqual({ type: 'string', value: 'metadata' });
    expect(utf8.to(decoded.body)).toBe('{"usage":{}}');
  });

  test('a bad prelude checksum, a bad message checksum, an oversize frame and a cut are upstream failures', () => {
    const badPrelude = Buffer.from(frames[0]!);
    badPrelude[9] ^= 0xff;
    expect(malformedKind(() => new EventStreamDecoder().push(badPrelude)).message).toMatch(/prelude checksum/);

    const badMessage = Buffer.from(frames[1]!);
    badMessage[badMessage.length - 10] ^= 0x01;
    expect(malformedKind(() => new EventStreamDecoder().push(badMessage)).message).toMatch(/message checksum/);

    // Only the prelude of a 2 MiB frame is needed (and held) to refuse it.
    const prelude = Buffer.alloc(12);
    prelude.writeUInt32BE(2 * MAX_FRAME_BYTES, 0);
    prelude.writeUInt32BE(0, 4);
    prelude.writeUInt32BE(crc32(prelude.subarray(0, 8)), 8);
    const oversize = malformedKind(() => new EventStreamDecoder().push(prelude));
    expect(oversize).toMatchObject({ kind: 'malformed' });
    expect(oversize.message).toMatch(/exceeds/);

    const lying = Buffer.alloc(12);
    lying.writeUInt32BE(20, 0);
    lying.writeUInt32BE(100, 4);
    lying.writeUInt32BE(crc32(lying.subarray(0, 8)), 8);
    expect(malformedKind(() => new EventStreamDecoder().push(lying)).message).toMatch(/inconsistent/);

    const cut = new EventStreamDecoder();
    expect(cut.push(stream.subarray(0, stream.length - 3))).toHaveLength(2);
    expect(malformedKind(() => cut.end())).toMatchObject({ kind: 'connection' });
  });

  test('exception frames become named events the translator fails with', () => {
    const source = new BedrockEventSource();
    const events = source.push(exceptionFrame('ThrottlingException', '{"message":"slow down"}'));
    expect(events).toEqual([{ event: 'exception:ThrottlingException', data: '{"message":"slow down"}' }]);
    const translator = bedrockAdapter.createStreamTranslator(target('http://unused', NOVA));
    expect(malformedKind(() => translator.onEvent(events[0]!))).toMatchObject({
      kind: 'rate_limit',
      providerCode: 'ThrottlingException',
    });
    const stalled = malformedKind(() =>
      translator.onEvent({ event: 'exception:ModelStreamErrorException', data: '{"message":"x"}' }),
    );
    expect(stalled).toMatchObject({ kind: 'overload' });
  });
});

function target(baseUrl: string, model: string, credentials = CREDENTIALS): UpstreamTarget {
  return { provider: 'bedrock', baseUrl, apiKey: '', model, signing: { region: 'us-east-1', credentials } };
}

describe('request translation', () => {
  test('system, turns, tools, tool results, images and inference settings', () => {
    const request: ChatRequest = {
      model: NOVA,
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'developer', content: [{ type: 'text', text: 'Use metric units.' }] },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Weather in Paris?' },
            { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0K' } },
          ],
        },
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            { id: 'call.1', type: 'function', function: { name: 'weather', arguments: '{"city":"Paris"}' } },
          ],
        },
        { role: 'tool', tool_call_id: 'call.1', content: '18°C' },
        { role: 'user', content: 'Thanks' },
      ],
      temperature: 1.5,
      max_tokens: 100,
      stop: ['END', ''],
      tools: [
        { type: 'function', function: { name: 'weather', description: 'Weather now', parameters: { properties: {} } } },
      ],
      tool_choice: 'required',
    };
    expect(toConverseBody(request)).toEqual({
      system: [{ text: 'Be brief.' }, { text: 'Use metric units.' }],
      messages: [
        {
          role: 'user',
          content: [{ text: 'Weather in Paris?' }, { image: { format: 'png', source: { bytes: 'iVBORw0K' } } }],
        },
        {
          role: 'assistant',
          content: [{ toolUse: { toolUseId: 'call_1', name: 'weather', input: { city: 'Paris' } } }],
        },
        {
          role: 'user',
          content: [{ toolResult: { toolUseId: 'call_1', content: [{ text: '18°C' }] } }, { text: 'Thanks' }],
        },
      ],
      inferenceConfig: { maxTokens: 100, temperature: 1, stopSequences: ['END'] },
      toolConfig: {
        tools: [
          {
            toolSpec: {
              name: 'weather',
              description: 'Weather now',
              inputSchema: { json: { properties: {}, type: 'object' } },
            },
          },
        ],
        toolChoice: { any: {} },
      },
    });
  });

  test('top_p below 1 wins over temperature; a named tool; none without tool blocks drops the tools', () => {
    const tools = [{ type: 'function' as const, function: { name: 'f' } }];
    const base: ChatRequest = { model: NOVA, messages: [{ role: 'assistant', content: 'Hi' }] };
    const named = toConverseBody({
      ...base,
      temperature: 0.2,
      top_p: 0.5,
      tools,
      tool_choice: { type: 'function', function: { name: 'f' } },
    });
    expect(named.inferenceConfig).toEqual({ topP: 0.5 });
    expect(named.toolConfig?.toolChoice).toEqual({ tool: { name: 'f' } });
    // An assistant opening gets a user turn first, as Converse requires.
    expect(named.messages[0]).toEqual({ role: 'user', content: [{ text: '.' }] });
    expect(toConverseBody({ ...base, tools, tool_choice: 'none' }).toolConfig).toBeUndefined();
  });

  test('a linked image is a 400 naming the part; an unknown image type too', () => {
    const asking = (url: string): ChatRequest => ({
      model: NOVA,
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'x' },
            { type: 'image_url', image_url: { url } },
          ],
        },
      ],
    });
    expect(malformedKind(() => toConverseBody(asking('https://example.com/cat.png')))).toMatchObject({
      kind: 'bad_request',
      message: expect.stringContaining('messages[0].content[1].image_url.url'),
    });
    expect(malformedKind(() => toConverseBody(asking('data:image/tiff;base64,AAAA'))).message).toMatch(/tiff/);
  });
});

describe('responses, usage and errors', () => {
  test('text and tool use, stop reasons, usage with cache tokens priced as by hand', () => {
    const completion = bedrockAdapter.parseResponse(
      {
        output: {
          message: {
            role: 'assistant',
            content: [
              { text: 'Let me check.' },
              { toolUse: { toolUseId: 't1', name: 'weather', input: { city: 'Oslo' } } },
            ],
          },
        },
        stopReason: 'tool_use',
        usage: {
          inputTokens: 1000,
          outputTokens: 200,
          totalTokens: 4200,
          cacheReadInputTokens: 2000,
          cacheWriteInputTokens: 1000,
        },
      },
      target('http://unused', CLAUDE),
    );
    expect(completion.choices[0]).toMatchObject({
      finish_reason: 'tool_calls',
      message: {
        content: 'Let me check.',
        tool_calls: [{ id: 't1', function: { name: 'weather', arguments: '{"city":"Oslo"}' } }],
      },
    });
    expect(completion.usage).toEqual({
      prompt_tokens: 4000,
      completion_tokens: 200,
      total_tokens: 4200,
      prompt_tokens_details: { cached_tokens: 2000, cache_write_tokens: 1000 },
    });
    // By hand, $ per 1M: 1000 uncached × 3 + 2000 read × 0.30 + 1000 written × 3.75 + 200 out × 15
    // = 0.003 + 0.0006 + 0.00375 + 0.003 = $0.01035 = 10 350 micro-USD.
    const { usage } = completion;
    expect(
      costMicroUsd(CLAUDE, {
        promptTokens: usage.prompt_tokens,
        completionTokens: usage.completion_tokens,
        cachedTokens: usage.prompt_tokens_details!.cached_tokens!,
        cacheWriteTokens: usage.prompt_tokens_details!.cache_write_tokens!,
      }),
    ).toEqual({ microUsd: 10_350, priced: true });
    // Nova Pro: 1000 × 0.80 + 2000 × 0.20 + 1000 × 0.80 (writes cost input) + 200 × 3.20 = 2 640 micro-USD.
    expect(
      costMicroUsd(NOVA, { promptTokens: 4000, completionTokens: 200, cachedTokens: 2000, cacheWriteTokens: 1000 })
        .microUsd,
    ).toBe(2_640);
    for (const [reason, finish] of [
      ['end_turn', 'stop'],
      ['stop_sequence', 'stop'],
      ['max_tokens', 'length'],
      ['guardrail_intervened', 'content_filter'],
      ['content_filtered', 'content_filter'],
      ['something_new', 'stop'],
    ])
      expect(
        bedrockAdapter.parseResponse(
          { output: { message: { content: [{ text: 'x' }] } }, stopReason: reason },
          target('http://u', NOVA),
        ).choices[0]!.finish_reason,
      ).toBe(finish);
    expect(
      malformedKind(() => bedrockAdapter.parseResponse({ message: 'odd' }, target('http://u', NOVA))),
    ).toMatchObject({
      kind: 'malformed',
    });
  });

  test('error names decide the kind; the status when there is none', () => {
    const headers = (type?: string, retryAfter?: string) => {
      const values: Record<string, string> = {};
      if (type) values['x-amzn-errortype'] = `${type}:http://internal.amazon.com/coral/com.amazon.bedrock/`;
      if (retryAfter) values['retry-after'] = retryAfter;
      return {
        get: (name: string) => values[name.toLowerCase()] ?? null,
        has: (name: string) => name.toLowerCase() in values,
      };
    };
    const classify = (status: number, type?: string, body = '{"message":"m"}', retryAfter?: string) =>
      bedrockAdapter.classifyError(status, headers(type, retryAfter), body, 'bedrock');
    expect(classify(429, 'ThrottlingException', '{"message":"m"}', '2')).toMatchObject({
      kind: 'rate_limit',
      providerCode: 'ThrottlingException',
      retryAfterMs: 2000,
      message: 'bedrock answered 429: m',
    });
    expect(classify(429, 'ModelNotReadyException').kind).toBe('overload');
    expect(classify(400, 'ValidationException').kind).toBe('bad_request');
    expect(classify(403, 'AccessDeniedException').kind).toBe('auth');
    expect(classify(408, 'ModelTimeoutException').kind).toBe('overload');
    expect(classify(503, 'ServiceUnavailableException').kind).toBe('overload');
    expect(classify(424, 'ModelErrorException').kind).toBe('overload');
    expect(classify(400, 'ServiceQuotaExceededException').kind).toBe('quota');
    expect(classify(502, undefined, '<html>Bad Gateway</html>')).toMatchObject({
      kind: 'overload',
      message: 'bedrock answered 502: Bad Gateway',
    });
    expect(classify(403).kind).toBe('auth');
  });
});

describe('signing', () => {
  test('matches the AWS SDK signer for a model id with ":" (signed as %253A)', async () => {
    const call = bedrockAdapter.buildRequest(
      { model: CLAUDE, messages: [{ role: 'user', content: 'hi' }] },
      target('https://bedrock-runtime.us-east-1.amazonaws.com', CLAUDE),
      true,
    );
    const url = new URL(call.url);
    expect(url.pathname).toBe('/model/global.anthropic.claude-sonnet-4-5-20250929-v1%3A0/converse-stream');
    expect(canonicalPath(url.pathname)).toBe(
      '/model/global.anthropic.claude-sonnet-4-5-20250929-v1%253A0/converse-stream',
    );
    const amzDate = call.headers['x-amz-date']!;
    const signedAt = new Date(
      Date.UTC(
        +amzDate.slice(0, 4),
        +amzDate.slice(4, 6) - 1,
        +amzDate.slice(6, 8),
        +amzDate.slice(9, 11),
        +amzDate.slice(11, 13),
        +amzDate.slice(13, 15),
      ),
    );
    const { authorization, ...unsigned } = call.headers;
    const sdk = new SignatureV4({
      credentials: CREDENTIALS,
      region: 'us-east-1',
      service: 'bedrock',
      sha256: Hash.bind(null, 'sha256'),
      applyChecksum: false,
    });
    const signed = await sdk.sign(
      {
        method: 'POST',
        protocol: 'https:',
        hostname: url.hostname,
        path: url.pathname,
        headers: unsigned,
        body: call.body,
      },
      { signingDate: signedAt },
    );
    expect(authorization).toBe(signed.headers['authorization']);
    expect(authorization).toMatch(/Credential=AKIDEXAMPLE\/\d{8}\/us-east-1\/bedrock\/aws4_request/);
  });

  test('a session token is sent and signed', () => {
    const call = bedrockAdapter.buildRequest(
      { model: NOVA, messages: [{ role: 'user', content: 'hi' }] },
      target('https://bedrock-runtime.us-east-1.amazonaws.com', NOVA, {
        ...CREDENTIALS,
        sessionToken: 'token123',
      } as never),
      false,
    );
    expect(call.headers['x-amz-security-token']).toBe('token123');
    expect(call.headers['authorization']).toMatch(/SignedHeaders=[^,]*x-amz-security-token/);
  });
});

describe('against the simulator over loopback (signatures checked)', () => {
  let sim: RunningSimulator;
  beforeAll(async () => {
    sim = await startSimulator(bedrockSimulator(CREDENTIALS), 0);
  });
  afterAll(() => sim.close());
  afterEach(async () => {
    await fetch(`${sim.url}/__sim/faults`, { method: 'DELETE' });
  });
  const options = () => ({ signal: new AbortController().signal, timeoutMs: 5000 });
  const ask = (text: string, extra: Partial<ChatRequest> = {}): ChatRequest => ({
    model: NOVA,
    messages: [{ role: 'user', content: text }],
    ...extra,
  });

  test('a whole answer', async () => {
    const completion = await completeOnce(
      bedrockAdapter,
      ask('[sim:reply=Hello there] [sim:cache_read=3]'),
      target(sim.url, NOVA),
      options(),
    );
    expect(completion.choices[0]).toMatchObject({ message: { content: 'Hello there' }, finish_reason: 'stop' });
    expect(completion.usage.prompt_tokens_details?.cached_tokens).toBe(3);
  });

  test('a stream, in 7-byte pieces, with a tool call', async () => {
    await fetch(`${sim.url}/__sim/faults`, { method: 'POST', body: JSON.stringify({ fault: 'fragment_bytes:7' }) });
    const tools = [
      {
        type: 'function' as const,
        function: { name: 'weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } },
      },
    ];
    const stream = await streamOnce(bedrockAdapter, ask('[sim:tool]', { tools }), target(sim.url, NOVA), options());
    const chunks: ChatCompletionChunk[] = [];
    for await (const chunk of stream.chunks) chunks.push(chunk);
    const calls = chunks.flatMap((c) => c.choices[0]!.delta.tool_calls ?? []);
    expect(calls[0]).toMatchObject({ index: 0, id: expect.stringMatching(/^tooluse_/), function: { name: 'weather' } });
    expect(JSON.parse(calls.map((c) => c.function?.arguments ?? '').join(''))).toEqual(expect.any(Object));
    expect(finishOf(chunks)).toEqual(['tool_calls']);
    expect(stream.usage()?.completion_tokens).toBeGreaterThan(0);
  });

  test('streamed text; an exception frame mid-stream; a cut before messageStop', async () => {
    const stream = await streamOnce(bedrockAdapter, ask('[sim:words=5]'), target(sim.url, NOVA), options());
    const chunks: ChatCompletionChunk[] = [];
    for await (const chunk of stream.chunks) chunks.push(chunk);
    expect(textOf(chunks).trim().split(/\s+/)).toHaveLength(5);

    const thrown = await streamFailure(
      bedrockAdapter,
      ask('[sim:stream_error=ModelStreamErrorException]'),
      target(sim.url, NOVA),
    );
    expect(thrown.failure).toMatchObject({ kind: 'overload', providerCode: 'ModelStreamErrorException' });

    await fetch(`${sim.url}/__sim/faults`, { method: 'POST', body: JSON.stringify({ fault: 'reset_after_chunks:2' }) });
    const cut = await streamFailure(bedrockAdapter, ask('[sim:words=5]'), target(sim.url, NOVA));
    expect(cut.failure.kind).toBe('connection');

    await fetch(`${sim.url}/__sim/faults`, { method: 'POST', body: JSON.stringify({ fault: 'malformed_chunk:1' }) });
    expect((await streamFailure(bedrockAdapter, ask('[sim:words=5]'), target(sim.url, NOVA))).failure.kind).toBe(
      'malformed',
    );
  });

  test('injected errors, a wrong secret, a bare Claude id', async () => {
    await fetch(`${sim.url}/__sim/faults`, { method: 'POST', body: JSON.stringify({ fault: 'status:429' }) });
    expect(await failure(completeOnce(bedrockAdapter, ask('hi'), target(sim.url, NOVA), options()))).toMatchObject({
      kind: 'rate_limit',
      providerCode: 'ThrottlingException',
    });
    await fetch(`${sim.url}/__sim/faults`, {
      method: 'POST',
      body: JSON.stringify({ fault: 'error:ModelNotReadyException' }),
    });
    expect((await failure(completeOnce(bedrockAdapter, ask('hi'), target(sim.url, NOVA), options()))).kind).toBe(
      'overload',
    );
    const wrong = target(sim.url, NOVA, { ...CREDENTIALS, secretAccessKey: 'not-the-secret' });
    expect(await failure(completeOnce(bedrockAdapter, ask('hi'), wrong, options()))).toMatchObject({
      kind: 'auth',
      providerCode: 'InvalidSignatureException',
    });
    const bare = 'anthropic.claude-sonnet-4-5-20250929-v1:0';
    expect(
      await failure(completeOnce(bedrockAdapter, ask('hi', { model: bare }), target(sim.url, bare), options())),
    ).toMatchObject({
      kind: 'bad_request',
      message: expect.stringContaining('inference profile'),
    });
  });
});
