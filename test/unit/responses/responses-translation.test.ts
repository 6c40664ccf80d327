import type { ChatCompletion } from '../../../lambdas/providers/chat-types.js';
import type { ResponsesRequest } from '../../../lambdas/responses/responses-request.js';
import {
  chatRequestOf,
  outputAsInput,
  responseOf,
  type ResponseShell,
} from '../../../lambdas/responses/responses-translation.js';

/** Both directions: a Responses request into the chat core's request, its answer into a Response. */

const request = (fields: Partial<ResponsesRequest>): ResponsesRequest => ({ model: 'claude', input: 'hi', ...fields });

describe('a Responses request as a chat request', () => {
  test('text input, instructions and the sampling fields', () => {
    const { chat, origins } = chatRequestOf(
      request({
        instructions: 'Be brief.',
        temperature: 0.2,
        top_p: 0.9,
        max_output_tokens: 100,
        user: 'u-1',
        parallel_tool_calls: false,
        fallback: ['gpt'],
        retries: 1,
        timeout: 5000,
      }),
    );
    expect(chat).toEqual({
      model: 'claude',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'hi' },
      ],
      temperature: 0.2,
      top_p: 0.9,
      max_completion_tokens: 100,
      user: 'u-1',
      parallel_tool_calls: false,
      fallback: ['gpt'],
      retries: 1,
      timeout: 5000,
    });
    expect(origins).toEqual(['instructions', 'input']);
  });

  test('the temperature defaults as chat completions’ (docs/interface.md §2.2), streams ask for usage', () => {
    const { chat } = chatRequestOf(request({ stream: true }));
    expect(chat).toMatchObject({ temperature: 0.7, stream: true, stream_options: { include_usage: true } });
  });

  test('items: parts, images, an assistant turn with its calls, their outputs; reasoning dropped', () => {
    const { chat, origins, items } = chatRequestOf(
      request({
        input: [
          { role: 'developer', content: [{ type: 'input_text', text: 'Use tools.' }] },
          {
            role: 'user',
            content: [
              { type: 'input_text', text: 'Weather here?' },
              { type: 'input_image', image_url: 'https://example.com/a.png', detail: 'high' },
            ],
          },
          { type: 'reasoning' },
          { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Checking.' }] },
          { type: 'function_call', call_id: 'call_1', name: 'weather', arguments: '{"city":"Oslo"}' },
          { type: 'function_call', call_id: 'call_2', name: 'weather', arguments: '{"city":"Rome"}' },
          { type: 'function_call_output', call_id: 'call_1', output: 'rain' },
          { type: 'function_call_output', call_id: 'call_2', output: [{ type: 'input_text', text: 'sun' }] },
        ],
      }),
    );
    expect(chat.messages).toEqual([
      { role: 'developer', content: [{ type: 'text', text: 'Use tools.' }] },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Weather here?' },
          { type: 'image_url', image_url: { url: 'https://example.com/a.png', detail: 'high' } },
        ],
      },
      {
        role: 'assistant',
        content: 'Checking.',
        tool_calls: [
          { id: 'call_1', type: 'function', function: { name: 'weather', arguments: '{"city":"Oslo"}' } },
          { id: 'call_2', type: 'function', function: { name: 'weather', arguments: '{"city":"Rome"}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'call_1', content: 'rain' },
      { role: 'tool', tool_call_id: 'call_2', content: [{ type: 'text', text: 'sun' }] },
    ]);
    expect(origins).toEqual(['input[0]', 'input[1]', 'input[3]', 'input[6]', 'input[7]']);
    expect(items.map((item) => item.type ?? 'message')).toEqual([
      'message',
      'message',
      'message',
      'function_call',
      'function_call',
      'function_call_output',
      'function_call_output',
    ]);
  });

  test('a conversation continued: the history first, its calls answerable by this input', () => {
    const history = outputAsInput([
      {
        type: 'function_call',
        id: 'fc_1',
        call_id: 'call_9',
        name: 'weather',
        arguments: '{}',
        status: 'completed',
      },
    ]);
    const { chat, origins } = chatRequestOf(
      request({ input: [{ type: 'function_call_output', call_id: 'call_9', output: 'snow' }] }),
      [{ type: 'message', role: 'user', content: 'Weather?' }, ...history],
    );
    expect(chat.messages).toEqual([
      { role: 'user', content: 'Weather?' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'call_9', type: 'function', function: { name: 'weather', arguments: '{}' } }],
      },
      { role: 'tool', tool_call_id: 'call_9', content: 'snow' },
    ]);
    expect(origins).toEqual(['previous_response_id', 'previous_response_id', 'input[0]']);
  });

  test('tools in the flat shape, tool_choice and text.format become chat’s', () => {
    const parameters = { type: 'object', properties: { city: { type: 'string' } } };
    const schema = { type: 'object', properties: { answer: { type: 'string' } } };
    const { chat } = chatRequestOf(
      request({
        tools: [{ type: 'function', name: 'weather', description: 'The weather', parameters, strict: true }],
        tool_choice: { type: 'function', name: 'weather' },
        text: { format: { type: 'json_schema', name: 'answer', schema, strict: true } },
      }),
    );
    expect(chat.tools).toEqual([
      { type: 'function', function: { name: 'weather', description: 'The weather', parameters, strict: true } },
    ]);
    expect(chat.tool_choice).toEqual({ type: 'function', function: { name: 'weather' } });
    expect(chat.response_format).toEqual({
      type: 'json_schema',
      json_schema: { name: 'answer', schema, strict: true },
    });
    expect(chatRequestOf(request({ text: { format: { type: 'json_object' } } })).chat.response_format).toEqual({
      type: 'json_object',
    });
    expect(chatRequestOf(request({ text: { format: { type: 'text' } } })).chat.response_format).toBeUndefined();
  });
});

describe('a chat answer as a Response', () => {
  const shell: ResponseShell = {
    id: 'resp_1',
    createdAt: 1_700_000_000,
    model: 'claude-sonnet-4-5',
    request: request({ instructions: 'Be brief.', metadata: { a: 'b' }, tools: [] }),
    temperature: 0.7,
    store: true,
  };
  let next = 0;
  const ids = (prefix: string) => `${prefix}_${++next}`;
  const answer = (
    message: ChatCompletion['choices'][0]['message'],
    finish: ChatCompletion['choices'][0]['finish_reason'],
  ): ChatCompletion => ({
    id: 'chatcmpl-1',
    object: 'chat.completion',
    created: 1,
    model: 'claude-sonnet-4-5',
    choices: [{ index: 0, message, finish_reason: finish }],
    usage: {
      prompt_tokens: 10,
      completion_tokens: 5,
      total_tokens: 15,
      prompt_tokens_details: { cached_tokens: 4 },
      completion_tokens_details: { reasoning_tokens: 2 },
    },
  });

  test('text: one message item, the usage in the Responses names, the request restated', () => {
    const response = responseOf(shell, answer({ role: 'assistant', content: 'Hello.' }, 'stop'), ids, 1_700_000_005);
    expect(response).toMatchObject({
      id: 'resp_1',
      object: 'response',
      created_at: 1_700_000_000,
      completed_at: 1_700_000_005,
      status: 'completed',
      model: 'claude-sonnet-4-5',
      instructions: 'Be brief.',
      metadata: { a: 'b' },
      temperature: 0.7,
      tool_choice: 'auto',
      parallel_tool_calls: true,
      text: { format: { type: 'text' } },
      truncation: 'disabled',
      store: true,
      error: null,
      incomplete_details: null,
      previous_response_id: null,
      output: [
        {
          type: 'message',
          role: 'assistant',
          status: 'completed',
          content: [{ type: 'output_text', text: 'Hello.', annotations: [], logprobs: [] }],
        },
      ],
      usage: {
        input_tokens: 10,
        input_tokens_details: { cached_tokens: 4 },
        output_tokens: 5,
        output_tokens_details: { reasoning_tokens: 2 },
        total_tokens: 15,
      },
    });
    expect(response.output[0]!.id).toMatch(/^msg_/);
  });

  test('tool calls: one function_call item each, with the upstream call id', () => {
    const response = responseOf(
      shell,
      answer(
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            { id: 'toolu_1', type: 'function', function: { name: 'weather', arguments: '{"city":"Oslo"}' } },
            { id: 'toolu_2', type: 'function', function: { name: 'weather', arguments: '{"city":"Rome"}' } },
          ],
        },
        'tool_calls',
      ),
      ids,
      1,
    );
    expect(response.status).toBe('completed');
    expect(response.output).toEqual([
      expect.objectContaining({ type: 'function_call', call_id: 'toolu_1', name: 'weather', status: 'completed' }),
      expect.objectContaining({ type: 'function_call', call_id: 'toolu_2', arguments: '{"city":"Rome"}' }),
    ]);
    expect(response.output.map((item) => item.id)).toEqual([
      expect.stringMatching(/^fc_/),
      expect.stringMatching(/^fc_/),
    ]);
  });

  test('a length finish is incomplete for max_output_tokens; a filter’s for content_filter', () => {
    const cut = responseOf(shell, answer({ role: 'assistant', content: 'Hel' }, 'length'), ids, 1);
    expect(cut).toMatchObject({ status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } });
    expect(cut.output[0]!.status).toBe('incomplete');
    const filtered = responseOf(shell, answer({ role: 'assistant', content: '' }, 'content_filter'), ids, 1);
    expect(filtered).toMatchObject({
      status: 'incomplete',
      incomplete_details: { reason: 'content_filter' },
      output: [],
    });
  });

  test('its output, continued, reads back as the same turns', () => {
    const response = responseOf(
      shell,
      answer(
        {
          role: 'assistant',
          content: 'Let me look.',
          tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{}' } }],
        },
        'tool_calls',
      ),
      ids,
      1,
    );
    const { chat } = chatRequestOf(
      request({ input: [{ type: 'function_call_output', call_id: 'c1', output: 'done' }] }),
      [{ role: 'user', content: 'Go' }, ...outputAsInput(response.output)],
    );
    expect(chat.messages.slice(1)).toEqual([
      {
        role: 'assistant',
        content: 'Let me look.',
        tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{}' } }],
      },
      { role: 'tool', tool_call_id: 'c1', content: 'done' },
    ]);
  });
});
