import { HttpError } from '../../../lambdas/http/errors.js';
import { validate } from '../../../lambdas/http/validation.js';
import { ResponsesError } from '../../../lambdas/responses/responses-errors.js';
import {
  MAX_INPUT_ITEMS,
  responsesRequestValidator,
  type ResponsesRequest,
} from '../../../lambdas/responses/responses-request.js';
import { chatRequestOf } from '../../../lambdas/responses/responses-translation.js';
import { ChatError } from '../../../lambdas/chat/chat-errors.js';

/**
 * The Responses body's checks: the schema (as the HTTP layer runs it) and the checks of the
 * translation, each refusal naming the caller's field, whatever the size or shape sent.
 */

/** The field a body is refused for, by the schema or by the translation's checks; undefined if taken. */
function refusedField(body: Record<string, unknown>): string | undefined {
  try {
    const request = validate(responsesRequestValidator, { model: 'gpt', ...body });
    chatRequestOf(request as ResponsesRequest);
    return undefined;
  } catch (error) {
    if (error instanceof HttpError) {
      expect(error.status).toBe(400);
      expect(error.message.startsWith(`${error.param}: `)).toBe(true);
      return error.param;
    }
    if (error instanceof ResponsesError || error instanceof ChatError) {
      expect(error.answer.status).toBe(400);
      expect(error.message.startsWith(`${error.field}: `)).toBe(true);
      return error.field;
    }
    throw error;
  }
}

const user = (content: unknown) => ({ role: 'user', content });

test.each<[string, Record<string, unknown>, string]>([
  ['no input', {}, 'input'],
  ['blank text input', { input: '  ' }, 'input'],
  ['an empty item list', { input: [] }, 'input'],
  ['input neither text nor items', { input: 5 }, 'input'],
  ['a message without content', { input: [{ role: 'user' }] }, 'input[0].content'],
  ['an unknown role', { input: [{ role: 'tool', content: 'x' }] }, 'input[0].role'],
  ['an unknown part', { input: [user([{ type: 'input_audio' }])] }, 'input[0].content[0].type'],
  ['a blank text part', { input: [user([{ type: 'input_text', text: '' }])] }, 'input[0].content[0].text'],
  [
    'an image URL of the wrong type',
    { input: [user([{ type: 'input_image', image_url: 5 }])] },
    'input[0].content[0].image_url',
  ],
  [
    'an image by file id',
    { input: [user([{ type: 'input_image', file_id: 'file-1' }])] },
    'input[0].content[0].file_id',
  ],
  ['an image with neither', { input: [user([{ type: 'input_image' }])] }, 'input[0].content[0].image_url'],
  ['a file', { input: [user([{ type: 'input_file', file_id: 'f' }])] }, 'input[0].content[0].type'],
  [
    'an image in a system message',
    { input: [{ role: 'system', content: [{ type: 'input_image', image_url: 'data:,' }] }, user('x')] },
    'input[0].content[0].type',
  ],
  ['output text from the user', { input: [user([{ type: 'output_text', text: 'x' }])] }, 'input[0].content[0].type'],
  ['a blank user message', { input: [user('')] }, 'input[0].content'],
  ['a user message of no parts', { input: [user([])] }, 'input[0].content'],
  [
    'a function call without a name',
    { input: [user('x'), { type: 'function_call', call_id: 'c', arguments: '{}' }] },
    'input[1].name',
  ],
  [
    'a function call output before its call',
    { input: [user('x'), { type: 'function_call_output', call_id: 'c', output: 'x' }] },
    'input[1].call_id',
  ],
  [
    'an image in a function call output',
    {
      input: [
        user('x'),
        { type: 'function_call', call_id: 'c', name: 'f', arguments: '{}' },
        { type: 'function_call_output', call_id: 'c', output: [{ type: 'input_image', image_url: 'data:,' }] },
      ],
    },
    'input[2].output[0].type',
  ],
  ['a built-in tool call item', { input: [{ type: 'file_search_call', id: 'fs' }] }, 'input[0].type'],
  ['an item reference', { input: [{ type: 'item_reference', id: 'msg_1' }] }, 'input[0].type'],
  ['only assistant turns', { input: [{ role: 'assistant', content: 'hi' }] }, 'input'],
  ['a built-in tool', { input: 'x', tools: [{ type: 'web_search_preview' }] }, 'tools[0].type'],
  [
    'a tool in chat’s nested shape',
    { input: 'x', tools: [{ type: 'function', function: { name: 'f' } }] },
    'tools[0].name',
  ],
  ['a tool name with spaces', { input: 'x', tools: [{ type: 'function', name: 'get weather' }] }, 'tools[0].name'],
  ['required with no tools', { input: 'x', tool_choice: 'required' }, 'tool_choice'],
  [
    'a forced tool not offered',
    { input: 'x', tools: [{ type: 'function', name: 'f' }], tool_choice: { type: 'function', name: 'g' } },
    'tool_choice.name',
  ],
  ['a hosted tool choice', { input: 'x', tool_choice: { type: 'file_search' } }, 'tool_choice'],
  ['a temperature above 2', { input: 'x', temperature: 3 }, 'temperature'],
  ['max_output_tokens of 0', { input: 'x', max_output_tokens: 0 }, 'max_output_tokens'],
  [
    '17 metadata pairs',
    { input: 'x', metadata: Object.fromEntries(Array.from({ length: 17 }, (_v, i) => [`k${i}`, 'v'])) },
    'metadata',
  ],
  ['a metadata value of 513 characters', { input: 'x', metadata: { k: 'v'.repeat(513) } }, 'metadata.k'],
  ['a metadata key of 65 characters', { input: 'x', metadata: { ['k'.repeat(65)]: 'v' } }, 'metadata'],
  ['a metadata value that is not text', { input: 'x', metadata: { k: 1 } }, 'metadata.k'],
  [
    'json_schema without a schema',
    { input: 'x', text: { format: { type: 'json_schema', name: 'n' } } },
    'text.format.schema',
  ],
  ['an unknown text format', { input: 'x', text: { format: { type: 'yaml' } } }, 'text.format.type'],
  ['an unknown reasoning effort', { input: 'x', reasoning: { effort: 'extreme' } }, 'reasoning.effort'],
  ['an unknown truncation', { input: 'x', truncation: 'middle' }, 'truncation'],
  ['a background response', { input: 'x', background: true }, 'background'],
  ['a conversation', { input: 'x', conversation: 'conv_1' }, 'conversation'],
  ['a stored prompt', { input: 'x', prompt: { id: 'pmpt_1' } }, 'prompt'],
  ['an empty previous_response_id', { input: 'x', previous_response_id: '' }, 'previous_response_id'],
  ['an unknown guardrail', { input: 'x', guardrails: { enabled: ['magic'] } }, 'guardrails.enabled[0]'],
])('%s is refused: %j names %s', (_what, body, field) => {
  expect(refusedField(body)).toBe(field);
});

test('what OpenAI SDKs send is taken: easy messages, typed items, nulls for unset fields', () => {
  expect(
    refusedField({
      input: [
        { role: 'developer', content: 'Be brief.' },
        { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'hi' }] },
        { type: 'reasoning', id: 'rs_1', summary: [] },
        {
          type: 'message',
          id: 'msg_1',
          role: 'assistant',
          status: 'completed',
          content: [{ type: 'output_text', text: 'hello', annotations: [] }],
        },
        { type: 'function_call', id: 'fc_1', call_id: 'call_1', name: 'f', arguments: '{}', status: 'completed' },
        { type: 'function_call_output', call_id: 'call_1', output: [{ type: 'input_text', text: '42' }] },
      ],
      instructions: null,
      temperature: null,
      top_p: null,
      max_output_tokens: null,
      previous_response_id: null,
      metadata: null,
      store: true,
      stream: false,
      parallel_tool_calls: null,
      truncation: 'auto',
      include: ['reasoning.encrypted_content'],
      reasoning: { effort: 'low', summary: null },
      text: {
        format: { type: 'json_schema', name: 'answer', schema: { type: 'object' }, strict: true },
        verbosity: 'low',
      },
      tools: [{ type: 'function', name: 'f', description: null, parameters: null, strict: null }],
      tool_choice: { type: 'function', name: 'f' },
      background: false,
    }),
  ).toBeUndefined();
});

describe('adversarial sizes and depths', () => {
  test(`${MAX_INPUT_ITEMS + 1} input items are refused naming input, ${MAX_INPUT_ITEMS} taken`, () => {
    const items = Array.from({ length: MAX_INPUT_ITEMS + 1 }, () => user('x'));
    expect(refusedField({ input: items })).toBe('input');
    expect(refusedField({ input: items.slice(1) })).toBeUndefined();
  });

  test('1,001 parts in one message are refused naming its content', () => {
    const parts = Array.from({ length: 1001 }, () => ({ type: 'input_text', text: 'x' }));
    expect(refusedField({ input: [user(parts)] })).toBe('input[0].content');
  });

  test('a text beyond a million characters is refused naming it', () => {
    expect(refusedField({ input: 'x'.repeat(1_000_001) })).toBe('input');
    expect(refusedField({ input: [user([{ type: 'input_text', text: 'x'.repeat(1_000_001) }])] })).toBe(
      'input[0].content[0].text',
    );
  });

  test('501 images are refused naming input', () => {
    const images = Array.from({ length: 501 }, () => ({
      type: 'input_image',
      image_url: 'data:image/png;base64,AA==',
    }));
    expect(refusedField({ input: [user(images)] })).toBe('input');
  });

  test('a tool schema nested 200 deep is refused naming the tool’s parameters', () => {
    let parameters: Record<string, unknown> = { type: 'string' };
    for (let i = 0; i < 100; i++) parameters = { type: 'object', properties: { a: parameters } };
    expect(refusedField({ input: 'x', tools: [{ type: 'function', name: 'f', parameters }] })).toBe(
      'tools[0].parameters',
    );
  });

  test('a text format schema of 20,000 values is refused naming it', () => {
    const properties = Object.fromEntries(Array.from({ length: 10_000 }, (_v, i) => [`p${i}`, { type: 'string' }]));
    expect(
      refusedField({
        input: 'x',
        text: { format: { type: 'json_schema', name: 'n', schema: { type: 'object', properties } } },
      }),
    ).toBe('text.format.schema');
  });

  test('a body nested beyond 128 levels is refused before any walk, naming where', () => {
    let deep: unknown = 'x';
    for (let i = 0; i < 200; i++) deep = [deep];
    expect(refusedField({ input: 'x', metadata: { k: deep } })).toBe('metadata');
    expect(refusedField({ input: deep })).toBe('input[0][0]');
  });
});
