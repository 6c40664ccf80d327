import { cacheVerdict, type CachePolicy } from '../../../lambdas/chat/response-cache.js';
import type { ChatCompletion } from '../../../lambdas/providers/chat-types.js';

/** Which whole answers the cache keeps, and the X-Cache each goes out with. */

const policy: CachePolicy = { read: true, ttlSeconds: 60 };

type AnswerMessage = ChatCompletion['choices'][number]['message'];

const answer = (...messages: AnswerMessage[]): ChatCompletion => ({
  id: 'chatcmpl-1',
  object: 'chat.completion',
  created: 1,
  model: 'gpt-5',
  choices: messages.map((message, index) => ({ index, message, finish_reason: 'stop' })),
  usage: { prompt_tokens: 7, completion_tokens: 3, total_tokens: 10 },
});

const text: AnswerMessage = { role: 'assistant', content: 'It is sunny.' };
const toolCall: AnswerMessage = {
  role: 'assistant',
  content: null,
  tool_calls: [{ id: 'c1', type: 'function', function: { name: 'weather', arguments: '{"city":"Oslo"}' } }],
};

test('a plain answer is a MISS and is stored', () => {
  expect(cacheVerdict(answer(text), policy)).toEqual({ cache: 'MISS', store: true });
});

test('an answer with tool calls is BYPASS and never stored, whatever the policy', () => {
  expect(cacheVerdict(answer(toolCall), policy)).toEqual({ cache: 'BYPASS', store: false });
  expect(cacheVerdict(answer(toolCall), { ...policy, write: true })).toEqual({ cache: 'BYPASS', store: false });
});

test('one choice calling a tool is enough to bypass the whole answer', () => {
  expect(cacheVerdict(answer(text, toolCall), policy)).toEqual({ cache: 'BYPASS', store: false });
});

test('an empty tool_calls list is no tool call', () => {
  expect(cacheVerdict(answer({ ...text, tool_calls: [] }), policy)).toEqual({ cache: 'MISS', store: true });
});

test('write: false (the arena) stores nothing, though the answer is still a MISS', () => {
  expect(cacheVerdict(answer(text), { ...policy, write: false })).toEqual({ cache: 'MISS', store: false });
});
