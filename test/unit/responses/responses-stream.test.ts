import { accumulateResponse } from 'openai/lib/responses/ResponseAccumulator';
import type { Response, ResponseStreamEvent } from 'openai/resources/responses/responses';
import { ChatError } from '../../../lambdas/chat/chat-errors.js';
import type { ChatCompletionChunk, ChunkChoice, Usage } from '../../../lambdas/providers/chat-types.js';
import type { ResponseObject } from '../../../lambdas/responses/response-object.js';
import { responseEvents, type ResponseEvent } from '../../../lambdas/responses/responses-stream.js';
import { responseShellOf } from '../../../lambdas/responses/responses-translation.js';

/**
 * The stream translator on scripted chunk sequences. The openai SDK's own accumulator (what
 * `responses.stream(...).finalResponse()` runs) is the oracle: it throws on any event that names
 * an item or part it was not told of, and what it rebuilds must be the last event's Response.
 */

const USAGE: Usage = { prompt_tokens: 9, completion_tokens: 4, total_tokens: 13 };

const chunk = (delta: ChunkChoice['delta'], finish: ChunkChoice['finish_reason'] = null): ChatCompletionChunk => ({
  id: 'chatcmpl-1',
  object: 'chat.completion.chunk',
  created: 1,
  model: 'gpt-5',
  choices: [{ index: 0, delta, finish_reason: finish }],
});
const usageChunk: ChatCompletionChunk = { ...chunk({}), choices: [], usage: USAGE };

async function* scripted(
  chunks: readonly ChatCompletionChunk[],
  failure?: unknown,
): AsyncGenerator<ChatCompletionChunk> {
  for (const next of chunks) yield next;
  if (failure) throw failure;
}

interface Run {
  readonly events: ResponseEvent[];
  readonly ended: ResponseObject[];
  /** What the SDK's accumulator rebuilt from the events. */
  readonly accumulated: Response;
}

async function run(chunks: AsyncIterable<ChatCompletionChunk>, signal = new AbortController().signal): Promise<Run> {
  let ids = 0;
  const ended: ResponseObject[] = [];
  const shell = responseShellOf({
    id: 'resp_1',
    createdAt: 100,
    model: 'gpt-5',
    request: { model: 'gpt', input: 'hi' },
    temperature: 0.7,
    store: true,
  });
  const events: ResponseEvent[] = [];
  for await (const event of responseEvents(chunks, {
    shell,
    ids: (prefix) => `${prefix}_${++ids}`,
    nowSeconds: () => 200,
    end: async (response) => {
      ended.push(response);
      return response;
    },
    signal,
  }))
    events.push(event);
  let snapshot: Response | undefined;
  for (const event of events) snapshot = accumulateResponse(event as unknown as ResponseStreamEvent, snapshot);
  return { events, ended, accumulated: snapshot! };
}

const typesOf = (events: readonly ResponseEvent[]) => events.map((event) => event.type);
const lastResponse = (events: readonly ResponseEvent[]) => events.at(-1)!['response'] as ResponseObject;
/** The accumulator's Response without the `output_text` convenience it adds. */
const withoutOutputText = ({ output_text: _text, ...rest }: Response & { output_text?: string }) => rest;

test('text: the grammar in order, numbered from 0, the deltas adding up to the done text and the final Response', async () => {
  const { events, ended, accumulated } = await run(
    scripted([chunk({ role: 'assistant', content: 'Hel' }), chunk({ content: 'lo.' }), chunk({}, 'stop'), usageChunk]),
  );
  expect(typesOf(events)).toEqual([
    'response.created',
    'response.in_progress',
    'response.output_item.added',
    'response.content_part.added',
    'response.output_text.delta',
    'response.output_text.delta',
    'response.output_text.done',
    'response.content_part.done',
    'response.output_item.done',
    'response.completed',
  ]);
  expect(events.map((event) => event.sequence_number)).toEqual(events.map((_event, i) => i));
  expect(events[0]!['response']).toMatchObject({ status: 'in_progress', output: [], usage: null });
  expect(events[6]).toMatchObject({ item_id: 'msg_1', output_index: 0, content_index: 0, text: 'Hello.' });
  const final = lastResponse(events);
  expect(final).toMatchObject({
    status: 'completed',
    completed_at: 200,
    output: [{ id: 'msg_1', type: 'message', status: 'completed', content: [{ type: 'output_text', text: 'Hello.' }] }],
    usage: { input_tokens: 9, output_tokens: 4, total_tokens: 13 },
  });
  expect(ended).toEqual([final]);
  expect(withoutOutputText(accumulated)).toEqual(final);
  expect(accumulated.output_text).toBe('Hello.');
});

test('tool calls: text closed where calls begin, parallel calls by index, arguments in pieces', async () => {
  const { events, accumulated } = await run(
    scripted([
      chunk({ role: 'assistant', content: 'Checking.' }),
      chunk({
        tool_calls: [{ index: 0, id: 'call_a', type: 'function', function: { name: 'weather', arguments: '' } }],
      }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: '{"city":' } }] }),
      chunk({
        tool_calls: [{ index: 1, id: 'call_b', type: 'function', function: { name: 'time', arguments: '{}' } }],
      }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: '"Oslo"}' } }] }),
      chunk({}, 'tool_calls'),
      usageChunk,
    ]),
  );
  expect(typesOf(events)).toEqual([
    'response.created',
    'response.in_progress',
    'response.output_item.added',
    'response.content_part.added',
    'response.output_text.delta',
    'response.output_text.done',
    'response.content_part.done',
    'response.output_item.done',
    'response.output_item.added',
    'response.function_call_arguments.delta',
    'response.output_item.added',
    'response.function_call_arguments.delta',
    'response.function_call_arguments.delta',
    'response.function_call_arguments.done',
    'response.output_item.done',
    'response.function_call_arguments.done',
    'response.output_item.done',
    'response.completed',
  ]);
  const final = lastResponse(events);
  expect(final.output).toEqual([
    expect.objectContaining({ type: 'message', id: 'msg_1' }),
    {
      type: 'function_call',
      id: 'fc_2',
      call_id: 'call_a',
      name: 'weather',
      arguments: '{"city":"Oslo"}',
      status: 'completed',
    },
    { type: 'function_call', id: 'fc_3', call_id: 'call_b', name: 'time', arguments: '{}', status: 'completed' },
  ]);
  expect(events[13]).toMatchObject({ item_id: 'fc_2', output_index: 1, name: 'weather', arguments: '{"city":"Oslo"}' });
  expect(withoutOutputText(accumulated)).toEqual(final);
});

test('a length finish: the items and the Response incomplete for max_output_tokens', async () => {
  const { events, accumulated } = await run(
    scripted([chunk({ content: 'Once upon' }), chunk({}, 'length'), usageChunk]),
  );
  expect(typesOf(events).at(-1)).toBe('response.incomplete');
  const final = lastResponse(events);
  expect(final).toMatchObject({ status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } });
  expect(final.output[0]!.status).toBe('incomplete');
  expect(withoutOutputText(accumulated)).toEqual(final);
});

test('an upstream failure mid-stream: the open items closed incomplete, then response.failed with the error', async () => {
  const failure = new ChatError('upstream_stream_failed', 'The model stream failed after it started (reset): gone');
  const { events, ended, accumulated } = await run(scripted([chunk({ content: 'Half an ans' })], failure));
  expect(typesOf(events).slice(-4)).toEqual([
    'response.output_text.done',
    'response.content_part.done',
    'response.output_item.done',
    'response.failed',
  ]);
  const final = lastResponse(events);
  expect(final).toMatchObject({
    status: 'failed',
    error: { code: 'server_error', message: failure.message },
    output: [{ status: 'incomplete', content: [{ text: 'Half an ans' }] }],
  });
  expect(ended).toEqual([final]);
  expect(withoutOutputText(accumulated)).toEqual(final);
});

test('a guardrail that blocks the answer mid-stream: incomplete for content_filter, nothing of it kept', async () => {
  const blocked = new ChatError('content_blocked', 'The answer was blocked by content moderation');
  const { events } = await run(scripted([chunk({ content: 'Something bad' })], blocked));
  expect(typesOf(events).at(-1)).toBe('response.incomplete');
  expect(lastResponse(events)).toMatchObject({
    status: 'incomplete',
    incomplete_details: { reason: 'content_filter' },
    output: [],
    error: null,
  });
});

test('our own failure mid-stream fails the response without telling internals', async () => {
  const { events } = await run(scripted([chunk({ content: 'x' })], new TypeError('a defect')));
  expect(lastResponse(events)).toMatchObject({
    status: 'failed',
    error: { code: 'server_error', message: expect.not.stringContaining('defect') },
  });
});

test('a caller that left is told nothing: the stream ends with its abort', async () => {
  const controller = new AbortController();
  controller.abort();
  await expect(
    run(scripted([chunk({ content: 'x' })], new DOMException('aborted', 'AbortError')), controller.signal),
  ).rejects.toThrow('aborted');
});

test('an answer with no text and no calls still completes, with no output items', async () => {
  const { events, accumulated } = await run(scripted([chunk({ role: 'assistant' }), chunk({}, 'stop')]));
  expect(typesOf(events)).toEqual(['response.created', 'response.in_progress', 'response.completed']);
  expect(lastResponse(events)).toMatchObject({ status: 'completed', output: [], usage: null });
  expect(withoutOutputText(accumulated)).toEqual(lastResponse(events));
});
