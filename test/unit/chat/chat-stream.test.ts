import { resolveFamily } from '../../../lambdas/catalog/lookup.js';
import { CHUNKS_PER_TURN, chatStreamChunks } from '../../../lambdas/chat/chat-stream.js';
import { Meter } from '../../../lambdas/usage/metering.js';
import type { RoutedStream } from '../../../lambdas/chat/router.js';
import type { ChatCompletionChunk } from '../../../lambdas/providers/chat-types.js';
import type { UsageEntry } from '../../../lambdas/usage/usage-ledger.js';

/**
 * A stream whose upstream chunks are all there already (a fast upstream, read ahead) must still
 * let the event loop turn while it is relayed: otherwise the whole answer goes out in one
 * synchronous run and every other request on the instance waits for it.
 */

const chunk = (content: string): ChatCompletionChunk => ({
  id: 'up',
  object: 'chat.completion.chunk',
  created: 1,
  model: 'up',
  choices: [{ index: 0, delta: { content }, finish_reason: null }],
});

/** An upstream stream whose every chunk is ready at once: each `next()` resolves in microtasks. */
function readyStream(contents: readonly string[]): RoutedStream {
  async function* rest(): AsyncGenerator<ChatCompletionChunk> {
    for (const content of contents.slice(1)) yield chunk(content);
  }
  return {
    target: { provider: 'openai', model: 'gpt-5', family: resolveFamily('gpt')!, requested: 'gpt' },
    retries: 0,
    head: [chunk(contents[0]!)],
    rest: rest(),
    usage: () => ({ prompt_tokens: 1, completion_tokens: contents.length, total_tokens: contents.length + 1 }),
    startedAt: 0,
    firstTokenAt: 0,
  };
}

/** Relays the stream, counting the chunks that went out between two turns of the event loop. */
async function mostChunksInOneTurn(contents: readonly string[]): Promise<{ most: number; text: string }> {
  const ledger: UsageEntry[] = [];
  const meter = new Meter(
    { requestId: 'r', accountId: 'a', route: 'chat-completions', at: new Date(0) },
    async (e) => void ledger.push(e),
  );
  let sinceTurn = 0;
  let most = 0;
  let done = false;
  const turn = () => {
    most = Math.max(most, sinceTurn);
    sinceTurn = 0;
    if (!done) setImmediate(turn);
  };
  setImmediate(turn);
  let text = '';
  const chunks = chatStreamChunks(
    readyStream(contents),
    {
      id: 'chatcmpl-1',
      created: 1,
      includeUsage: false,
      messages: [{ role: 'user', content: 'hi' }],
      signal: new AbortController().signal,
      deadlineReached: () => false,
      now: () => 0,
    },
    meter,
  );
  for await (const out of chunks) {
    sinceTurn++;
    text += out.choices[0]?.delta.content ?? '';
  }
  done = true;
  return { most: Math.max(most, sinceTurn), text };
}

test('a stream that is all there already gives the event loop a turn every few chunks', async () => {
  const words = Array.from({ length: 4000 }, (_, i) => ` word${i}`);
  const { most, text } = await mostChunksInOneTurn(words);
  expect(text).toBe(words.join(''));
  expect(most).toBeLessThanOrEqual(CHUNKS_PER_TURN + 1);
});

test('large chunks count by their text: a turn at least every 64 KiB', async () => {
  const pieces = Array.from({ length: 200 }, () => 'x'.repeat(16 * 1024));
  const { most, text } = await mostChunksInOneTurn(pieces);
  expect(text.length).toBe(200 * 16 * 1024);
  expect(most).toBeLessThanOrEqual(5);
});
