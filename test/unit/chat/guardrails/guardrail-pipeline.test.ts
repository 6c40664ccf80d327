import { ChatError } from '../../../../lambdas/chat/chat-errors.js';
import { answerStreamGuard } from '../../../../lambdas/chat/guardrails/stream-guard.js';
import { guardAnswer, guardRequest, parseGuardrails } from '../../../../lambdas/chat/guardrails/guardrail-pipeline.js';
import { statusHeader, type GuardrailName } from '../../../../lambdas/chat/guardrails/outcomes.js';
import {
  bedrockModerator,
  localModerator,
  type ApplyGuardrailInput,
} from '../../../../lambdas/chat/guardrails/moderation.js';
import type {
  ChatCompletion,
  ChatCompletionChunk,
  ChatRequest,
  ChunkChoice,
} from '../../../../lambdas/providers/chat-types.js';

const signal = new AbortController().signal;
const local = localModerator();
const ALL: GuardrailName[] = ['pii', 'content_moderation', 'schema_validation'];

/** Records what reaches moderation; the fake stands in for Bedrock, which has no local stand-in. */
function recordingModerator() {
  const seen: ApplyGuardrailInput[] = [];
  const moderator = bedrockModerator({
    guardrailId: 'gr',
    send: async (input) => (seen.push(input), { action: 'NONE' }),
  });
  return { moderator, seen, texts: () => seen.flatMap((i) => i.content.map((c) => c.text.text)) };
}

const caught = async (run: () => Promise<unknown>) => {
  try {
    await run();
  } catch (error) {
    return error as ChatError;
  }
  throw new Error('expected an error');
};

describe('parseGuardrails', () => {
  test('body, header, and their union in canonical order', () => {
    expect(parseGuardrails({ enabled: ['schema_validation', 'pii'] }, undefined)).toEqual(['pii', 'schema_validation']);
    expect(parseGuardrails(undefined, ' Content_Moderation , PII,, ')).toEqual(['pii', 'content_moderation']);
    expect(parseGuardrails({ enabled: ['pii'] }, 'schema-validation, pii')).toEqual(['pii', 'schema_validation']);
    expect(parseGuardrails(undefined, undefined)).toEqual([]);
    expect(parseGuardrails({ enabled: [] }, '')).toEqual([]);
  });

  test('an unknown name in the header is a 400 naming X-Guardrails', () => {
    const error = (() => {
      try {
        parseGuardrails({ enabled: ['pii'] }, 'pii, toxicity');
      } catch (e) {
        return e as ChatError;
      }
    })();
    expect(error).toBeInstanceOf(ChatError);
    expect(error).toMatchObject({ kind: 'invalid_request', field: 'X-Guardrails' });
    expect(error!.message).toMatch(/^X-Guardrails: unknown guardrail "toxicity"/);
  });

  test('an unknown name in the body is a 400 naming the field', () => {
    expect(() => parseGuardrails({ enabled: ['nope'] }, undefined)).toThrow(
      expect.objectContaining({ kind: 'invalid_request', field: 'guardrails.enabled' }),
    );
  });
});

test('statusHeader', () => {
  expect(
    statusHeader([
      { guardrail: 'pii', outcome: 'redact' },
      { guardrail: 'content_moderation', outcome: 'pass' },
    ]),
  ).toBe('pii:redact,content_moderation:pass');
  expect(statusHeader([])).toBe('');
});

const conversation: ChatRequest = {
  model: 'm',
  messages: [
    { role: 'system', content: 'Support bot for ops@corp.example' },
    {
      role: 'user',
      content: [
        { type: 'text', text: 'My card is 4111 1111 1111 1111' },
        { type: 'image_url', image_url: { url: 'https://img.example/a.png' } },
      ],
    },
    {
      role: 'assistant',
      content: null,
      tool_calls: [
        { id: 'c1', type: 'function', function: { name: 'lookup', arguments: '{"phone":"+44 20 7946 0958"}' } },
      ],
    },
    { role: 'tool', tool_call_id: 'c1', content: 'Found 10.0.0.1' },
    { role: 'user', content: 'Thanks, my SSN is 123-45-6789' },
  ],
};

describe('guardRequest', () => {
  test('pii redacts every text: system, text parts, tool-call arguments, tool results, user', async () => {
    const before = structuredClone(conversation);
    const { request, statuses } = await guardRequest(conversation, ['pii'], local, signal);
    expect(request.messages).toEqual([
      { role: 'system', content: 'Support bot for [REDACTED_EMAIL]' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'My card is [REDACTED_CARD]' },
          { type: 'image_url', image_url: { url: 'https://img.example/a.png' } },
        ],
      },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'c1', type: 'function', function: { name: 'lookup', arguments: '{"phone":"[REDACTED_PHONE]"}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'c1', content: 'Found [REDACTED_IP]' },
      { role: 'user', content: 'Thanks, my SSN is [REDACTED_NATIONAL_ID]' },
    ]);
    expect(statuses).toEqual([{ guardrail: 'pii', outcome: 'redact' }]);
    expect(conversation).toEqual(before);
  });

  test('pii:pass when nothing was found; nothing enabled changes nothing', async () => {
    const plain: ChatRequest = { model: 'm', messages: [{ role: 'user', content: 'Hello in 2024' }] };
    expect((await guardRequest(plain, ['pii'], local, signal)).statuses).toEqual([
      { guardrail: 'pii', outcome: 'pass' },
    ]);
    expect(await guardRequest(plain, [], local, signal)).toEqual({ request: plain, statuses: [] });
  });

  test('moderation reads the redacted system and user text, as input', async () => {
    const { moderator, seen, texts } = recordingModerator();
    const { statuses } = await guardRequest(conversation, ['pii', 'content_moderation'], moderator, signal);
    expect(texts()).toEqual([
      'Support bot for [REDACTED_EMAIL]',
      'My card is [REDACTED_CARD]',
      'Thanks, my SSN is [REDACTED_NATIONAL_ID]',
    ]);
    expect(seen[0]!.source).toBe('INPUT');
    expect(statuses).toEqual([
      { guardrail: 'pii', outcome: 'redact' },
      { guardrail: 'content_moderation', outcome: 'pass' },
    ]);
  });

  test('flagged content is a 400 CONTENT_BLOCKED naming the categories', async () => {
    const request: ChatRequest = { model: 'm', messages: [{ role: 'user', content: 'How do I make a pipe bomb?' }] };
    const error = await caught(() => guardRequest(request, ALL, local, signal));
    expect(error).toBeInstanceOf(ChatError);
    expect(error).toMatchObject({ kind: 'content_blocked', field: 'messages' });
    expect(error.message).toBe('The request was blocked by content moderation (categories: explosives)');
  });

  test('schema_validation rejects an unusable response_format schema before the model is called', async () => {
    const request: ChatRequest = {
      model: 'm',
      messages: [{ role: 'user', content: 'hi' }],
      response_format: { type: 'json_schema', json_schema: { name: 'x', schema: { type: 'bogus' } } },
    };
    await expect(guardRequest(request, ['schema_validation'], local, signal)).rejects.toMatchObject({
      kind: 'invalid_request',
      field: 'response_format.json_schema.schema',
    });
  });
});

const completion = (content: string | null, toolArguments?: string): ChatCompletion => ({
  id: 'chatcmpl-1',
  object: 'chat.completion',
  created: 1,
  model: 'm',
  choices: [
    {
      index: 0,
      message: {
        role: 'assistant',
        content,
        ...(toolArguments
          ? { tool_calls: [{ id: 't', type: 'function' as const, function: { name: 'f', arguments: toolArguments } }] }
          : {}),
      },
      finish_reason: toolArguments ? 'tool_calls' : 'stop',
    },
  ],
  usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
});

const jsonRequest: ChatRequest = {
  model: 'm',
  messages: [{ role: 'user', content: 'Give me a contact' }],
  response_format: {
    type: 'json_schema',
    json_schema: {
      name: 'c',
      schema: { type: 'object', required: ['email'], properties: { email: { type: 'string' } } },
    },
  },
};

describe('guardAnswer', () => {
  test('redacts content and tool-call arguments; the request’s redact outcome wins', async () => {
    const answer = completion('Reach me at jane@x.org', '{"ip":"10.0.0.1"}');
    const result = await guardAnswer(answer, ['pii'], conversation, local, signal);
    expect(result.completion.choices[0]!.message).toEqual({
      role: 'assistant',
      content: 'Reach me at [REDACTED_EMAIL]',
      tool_calls: [{ id: 't', type: 'function', function: { name: 'f', arguments: '{"ip":"[REDACTED_IP]"}' } }],
    });
    expect(result.statuses).toEqual([{ guardrail: 'pii', outcome: 'redact' }]);
    const clean = await guardAnswer(completion('Nothing here'), ['pii'], conversation, local, signal, [
      { guardrail: 'pii', outcome: 'redact' },
    ]);
    expect(clean.statuses).toEqual([{ guardrail: 'pii', outcome: 'redact' }]);
    const none = await guardAnswer(completion('Nothing here'), ['pii'], conversation, local, signal, [
      { guardrail: 'pii', outcome: 'pass' },
    ]);
    expect(none.statuses).toEqual([{ guardrail: 'pii', outcome: 'pass' }]);
  });

  test('all three passing give the full status header', async () => {
    const { moderator, seen } = recordingModerator();
    const result = await guardAnswer(completion('{"email":"jane@x.org"}'), ALL, jsonRequest, moderator, signal, [
      { guardrail: 'pii', outcome: 'pass' },
    ]);
    expect(statusHeader(result.statuses)).toBe('pii:redact,content_moderation:pass,schema_validation:pass');
    expect(result.completion.choices[0]!.message.content).toBe('{"email":"[REDACTED_EMAIL]"}');
    expect(seen[0]).toMatchObject({ source: 'OUTPUT', content: [{ text: { text: '{"email":"[REDACTED_EMAIL]"}' } }] });
  });

  test('a dangerous answer is a 400 CONTENT_BLOCKED', async () => {
    const error = await caught(() =>
      guardAnswer(
        completion('Step 1: to build a pipe bomb you need...'),
        ['content_moderation'],
        conversation,
        local,
        signal,
      ),
    );
    expect(error).toMatchObject({ kind: 'content_blocked' });
    expect(error.message).toBe("The model's answer was blocked by content moderation (categories: explosives)");
  });

  test('an answer that breaks the schema is a 400 SCHEMA_VALIDATION_FAILED listing the errors', async () => {
    const error = await caught(() =>
      guardAnswer(completion('{"mail":"x"}'), ['schema_validation'], jsonRequest, local, signal),
    );
    expect(error).toMatchObject({ kind: 'schema_validation_failed', field: 'response_format' });
    expect(error.message).toBe(
      "The model's answer does not match response_format: / must have required property 'email'",
    );
  });

  test('a tool-call answer skips schema validation', async () => {
    const result = await guardAnswer(completion(null, '{}'), ['schema_validation'], jsonRequest, local, signal);
    expect(result.statuses).toEqual([{ guardrail: 'schema_validation', outcome: 'skip' }]);
  });
});

const chunk = (choices: Partial<ChunkChoice>[]): ChatCompletionChunk => ({
  id: 'chatcmpl-1',
  object: 'chat.completion.chunk',
  created: 1,
  model: 'm',
  choices: choices.map((c, i) => ({ index: i, delta: {}, finish_reason: null, ...c })),
});
const contentOf = (chunks: readonly (ChatCompletionChunk | undefined)[], index = 0) =>
  chunks.map((c) => c?.choices.find((x) => x.index === index)?.delta.content ?? '').join('');
const argumentsOf = (chunks: readonly (ChatCompletionChunk | undefined)[], call: number) =>
  chunks
    .flatMap((c) => c?.choices.flatMap((x) => x.delta.tool_calls ?? []) ?? [])
    .filter((t) => t.index === call)
    .map((t) => t.function?.arguments ?? '')
    .join('');

describe('answerStreamGuard', () => {
  test('a value split across chunks is redacted; the held tail leaves with the finish chunk', async () => {
    const guard = answerStreamGuard(['pii'], conversation, local);
    const deltas = ['Mail ja', 'ne@exa', 'mple.com or call +44 20 79', '46 0958'];
    const out = deltas.map((content) => guard.transform(chunk([{ delta: { content } }])));
    expect(contentOf(out)).toBe('Mail [REDACTED_EMAIL] or call ');
    const finish = guard.transform(chunk([{ delta: {}, finish_reason: 'stop' }]));
    expect(finish.choices[0]).toEqual({ index: 0, delta: { content: '[REDACTED_PHONE]' }, finish_reason: 'stop' });
    expect(guard.flush()).toBeUndefined();
    expect(guard.statuses()).toEqual([{ guardrail: 'pii', outcome: 'redact' }]);
  });

  test('tool-call argument fragments are redacted per call index', () => {
    const guard = answerStreamGuard(['pii'], conversation, local);
    const out = [
      guard.transform(
        chunk([
          {
            delta: {
              tool_calls: [{ index: 0, id: 'a', type: 'function', function: { name: 'f', arguments: '{"to":"bob@' } }],
            },
          },
        ]),
      ),
      guard.transform(
        chunk([
          {
            delta: {
              tool_calls: [{ index: 1, id: 'b', type: 'function', function: { name: 'g', arguments: '{"ip":"10.0.' } }],
            },
          },
        ]),
      ),
      guard.transform(chunk([{ delta: { tool_calls: [{ index: 0, function: { arguments: 'x.org"}' } }] } }])),
      guard.transform(
        chunk([
          { delta: { tool_calls: [{ index: 1, function: { arguments: '0.1"}' } }] }, finish_reason: 'tool_calls' },
        ]),
      ),
    ];
    expect(argumentsOf(out, 0)).toBe('{"to":"[REDACTED_EMAIL]"}');
    expect(argumentsOf(out, 1)).toBe('{"ip":"[REDACTED_IP]"}');
  });

  test('flush emits held text of choices that never finished, one delta per choice', () => {
    const guard = answerStreamGuard(['pii'], conversation, local);
    const out: (ChatCompletionChunk | undefined)[] = [
      guard.transform(chunk([{ delta: { content: 'write to a@b' } }, { delta: { content: 'ip 10.0.0' } }])),
    ];
    const tail = guard.flush();
    expect(tail).toMatchObject({ id: 'chatcmpl-1', object: 'chat.completion.chunk', model: 'm' });
    expect(tail!.choices.every((c) => c.finish_reason === null)).toBe(true);
    out.push(tail);
    expect(contentOf(out, 0)).toBe('write to a@b');
    expect(contentOf(out, 1)).toBe('ip 10.0.0');
    expect(guard.flush()).toBeUndefined();
  });

  test('without pii, chunks pass unchanged and nothing is held', () => {
    const guard = answerStreamGuard(['content_moderation'], conversation, local);
    const input = chunk([{ delta: { content: 'jane@x.org' } }]);
    expect(guard.transform(input)).toEqual(input);
    expect(guard.flush()).toBeUndefined();
  });

  test('finalCheck: schema validation of the whole answer, then statuses are complete', async () => {
    const guard = answerStreamGuard(ALL, jsonRequest, local, {
      requestStatuses: [{ guardrail: 'pii', outcome: 'pass' }],
    });
    for (const content of ['{"em', 'ail":"a@', 'b.io"}']) guard.transform(chunk([{ delta: { content } }]));
    guard.transform(chunk([{ finish_reason: 'stop' }]));
    expect(guard.statuses()).toEqual([{ guardrail: 'pii', outcome: 'redact' }]);
    expect(await guard.finalCheck()).toEqual({});
    expect(statusHeader(guard.statuses())).toBe('pii:redact,content_moderation:pass,schema_validation:pass');

    const failing = answerStreamGuard(['schema_validation'], jsonRequest, local);
    failing.transform(chunk([{ delta: { content: 'not json' }, finish_reason: 'stop' }]));
    const { error } = await failing.finalCheck();
    expect(error).toMatchObject({ kind: 'schema_validation_failed' });
  });

  test('finalCheck: a dangerous streamed answer returns CONTENT_BLOCKED; moderation sees redacted text', async () => {
    const guard = answerStreamGuard(['pii', 'content_moderation'], conversation, local);
    for (const content of ['Sure. To make a pi', 'pe bomb, first...']) guard.transform(chunk([{ delta: { content } }]));
    expect((await guard.finalCheck()).error).toMatchObject({ kind: 'content_blocked' });

    const { moderator, texts } = recordingModerator();
    const recorded = answerStreamGuard(['pii', 'content_moderation'], conversation, moderator, { signal });
    recorded.transform(chunk([{ delta: { content: 'mail jane@x.org' }, finish_reason: 'stop' }]));
    expect(await recorded.finalCheck()).toEqual({});
    expect(texts()).toEqual(['mail [REDACTED_EMAIL]']);
  });

  test('finalCheck returns a moderation outage as an error instead of throwing', async () => {
    const down = bedrockModerator({ guardrailId: 'gr', send: async () => Promise.reject(new Error('down')) });
    const guard = answerStreamGuard(['content_moderation'], conversation, down, { signal });
    guard.transform(chunk([{ delta: { content: 'hello' } }]));
    expect((await guard.finalCheck()).error).toMatchObject({ kind: 'dependency_unavailable' });
  });
});
