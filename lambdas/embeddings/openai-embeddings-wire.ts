import { adapterFor } from '../providers/chat-adapters.js';
import { asRecord, type EmbeddingAdapter, type UpstreamVector } from './embedding-adapter.js';

/**
 * OpenAI's `POST /v1/embeddings` (docs/upstreams.md §1.10), also OpenRouter's under its base URL.
 * The upstream is asked for the encoding the caller asked for, so a vector passes through as the
 * provider wrote it: `base64` (little-endian float32, the official SDKs' default) or JSON numbers.
 */
export const openAiEmbeddingsAdapter: EmbeddingAdapter = {
  request: (target, texts, job) => ({
    url: `${target.baseUrl}/embeddings`,
    headers: {
      Authorization: `Bearer ${target.apiKey}`,
      'Content-Type': 'application/json',
      Accept: 'application/json',
    },
    body: JSON.stringify({
      model: target.model,
      input: texts,
      encoding_format: job.encoding,
      ...(job.dimensionsAsked ? { dimensions: job.dimensions } : {}),
      ...(job.user === undefined ? {} : { user: job.user }),
    }),
  }),

  read(body, count, dimensions) {
    const answer = asRecord(body);
    if (!answer || !Array.isArray(answer['data']) || answer['data'].length !== count) return undefined;
    const vectors: UpstreamVector[] = new Array<UpstreamVector>(count);
    for (const [position, item] of (answer['data'] as unknown[]).entries()) {
      const entry = asRecord(item);
      const index = typeof entry?.['index'] === 'number' ? entry['index'] : position;
      if (!Number.isInteger(index) || index < 0 || index >= count || vectors[index]) return undefined;
      const vector = vectorOf(entry?.['embedding'], dimensions);
      if (!vector) return undefined;
      vectors[index] = vector;
    }
    const tokens = asRecord(answer['usage'])?.['prompt_tokens'];
    return {
      vectors,
      ...(typeof tokens === 'number' && Number.isInteger(tokens) && tokens >= 0 ? { promptTokens: tokens } : {}),
    };
  },

  classifyError: (status, headers, body, provider) =>
    adapterFor(provider).classifyError(status, headers, body, provider),
};

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** A vector of exactly `dimensions` finite numbers, or the base64 of as many float32s. */
function vectorOf(embedding: unknown, dimensions: number): UpstreamVector | undefined {
  if (typeof embedding === 'string')
    return BASE64.test(embedding) && Buffer.from(embedding, 'base64').length === dimensions * 4
      ? { base64: embedding }
      : undefined;
  if (!Array.isArray(embedding) || embedding.length !== dimensions) return undefined;
  return embedding.every((value) => typeof value === 'number' && Number.isFinite(value))
    ? { values: embedding as number[] }
    : undefined;
}
