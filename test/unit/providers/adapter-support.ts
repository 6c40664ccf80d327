import type { ChatAdapter, UpstreamTarget } from '../../../lambdas/providers/chat-adapter.js';
import type { ChatCompletionChunk, ChatRequest } from '../../../lambdas/providers/chat-types.js';
import { streamOnce } from '../../../lambdas/providers/upstream-call.js';
import { UpstreamError, type UpstreamFailure } from '../../../lambdas/providers/upstream-failure.js';

/** Shared helpers of the per-provider conformance tests. */
export const textOf = (chunks: ChatCompletionChunk[]) => chunks.map((c) => c.choices[0]?.delta.content ?? '').join('');
export const finishOf = (chunks: ChatCompletionChunk[]) =>
  chunks.map((c) => c.choices[0]?.finish_reason).filter(Boolean);

/** The UpstreamError a call fails with (and a test failure if it does not fail so). */
export async function failure(promise: Promise<unknown>): Promise<UpstreamFailure> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(UpstreamError);
    return (error as UpstreamError).failure;
  }
  throw new Error('expected an UpstreamError');
}

/** Streams until the failure, keeping the chunks that arrived before it. */
export async function streamFailure(
  adapter: ChatAdapter,
  request: ChatRequest,
  target: UpstreamTarget,
  timeoutMs = 2000,
): Promise<{ failure: UpstreamFailure; chunks: ChatCompletionChunk[] }> {
  const chunks: ChatCompletionChunk[] = [];
  const result = await failure(
    (async () => {
      const stream = await streamOnce(adapter, request, target, { signal: new AbortController().signal, timeoutMs });
      for await (const chunk of stream.chunks) chunks.push(chunk);
    })(),
  );
  return { failure: result, chunks };
}
