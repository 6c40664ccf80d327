import { jest } from '@jest/globals';
import { resolveFamily } from '../../../lambdas/catalog/model-catalog.js';
import { ChatError } from '../../../lambdas/chat/chat-errors.js';
import { Meter } from '../../../lambdas/usage/metering.js';
import { chatFrames } from '../../../lambdas/chat/chat-reply.js';
import { METRIC } from '../../../lambdas/observability/metric-names.js';
import type { ChatCompletionChunk } from '../../../lambdas/providers/chat-types.js';
import type { Attempt } from '../../../lambdas/chat/router.js';

/**
 * The failures the 5xx alarm cannot see publish their own metrics, which the stack's alarms
 * read (test/infra/monitoring.cases.ts checks the alarms' names against the same constants): a
 * stream that ends in a server error frame after its 200, and a usage entry nobody took.
 */

/** The names of the metrics in the EMF lines written while `run` runs. */
async function metricsWritten(run: () => Promise<unknown>): Promise<string[]> {
  const lines: string[] = [];
  const write = jest.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    lines.push(String(chunk));
    return true;
  });
  try {
    await run();
  } finally {
    write.mockRestore();
  }
  return lines
    .filter((line) => line.includes('"_aws"'))
    .flatMap((line) =>
      (
        JSON.parse(line) as { _aws: { CloudWatchMetrics: { Metrics: { Name: string }[] }[] } }
      )._aws.CloudWatchMetrics.flatMap((set) => set.Metrics.map((metric) => metric.Name)),
    );
}

async function* failing(error: Error): AsyncGenerator<ChatCompletionChunk> {
  yield* [];
  throw error;
}

const drain = async (frames: AsyncIterable<unknown>) => {
  for await (const _frame of frames);
};

test('a stream that fails upstream after its 200 is counted; a refusal of the content is not', async () => {
  const signal = new AbortController().signal;
  expect(
    await metricsWritten(() => drain(chatFrames(failing(new ChatError('upstream_stream_failed', 'cut')), signal))),
  ).toEqual([METRIC.streamsFailed]);
  expect(await metricsWritten(() => drain(chatFrames(failing(new Error('our fault')), signal)))).toEqual([
    METRIC.streamsFailed,
  ]);
  expect(
    await metricsWritten(() => drain(chatFrames(failing(new ChatError('content_blocked', 'no')), signal))),
  ).toEqual([]);
});

test('a usage entry that neither the ledger nor the retry queue took is counted once', async () => {
  const meter = new Meter({ requestId: 'r-lost', accountId: 'a', route: 'chat-completions', at: new Date() }, () =>
    Promise.reject(new Error('queue refused too')),
  );
  const attempt: Attempt = {
    target: { provider: 'openai', model: 'gpt-5', family: resolveFamily('gpt')!, requested: 'gpt' },
    durationMs: 1,
    usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
  };
  meter.attempt(attempt);
  expect(await metricsWritten(() => meter.flush())).toEqual([METRIC.usageNotRecorded]);
});
