import { adapterFor } from '../providers/chat-adapters.js';
import { asRecord, type EmbeddingAdapter, type UpstreamVector } from './embedding-adapter.js';

/**
 * Gemini's `POST /v1beta/models/{model}:batchEmbedContents` (docs/upstreams.md §3.10): one
 * request per text, at most 100 a call (the catalog's `maxInputsPerCall`), `outputDimensionality`
 * when the caller named `dimensions`. The answer is JSON numbers only. Google truncates a shorter
 * vector without renormalising it; OpenAI's shortened vectors are unit length, so these are
 * scaled to unit length too, and a vector means the same whichever provider wrote it.
 */
export const geminiEmbeddingsAdapter: EmbeddingAdapter = {
  request: (target, texts, job) => {
    const model = target.model.replace(/^models\//, '');
    return {
      url: `${target.baseUrl}/models/${encodeURIComponent(model)}:batchEmbedContents`,
      headers: { 'content-type': 'application/json', 'x-goog-api-key': target.apiKey },
      body: JSON.stringify({
        requests: texts.map((text) => ({
          model: `models/${model}`,
          content: { parts: [{ text }] },
          ...(job.dimensionsAsked ? { outputDimensionality: job.dimensions } : {}),
        })),
      }),
    };
  },

  read(body, count, dimensions) {
    const answer = asRecord(body);
    const embeddings = answer?.['embeddings'];
    if (!Array.isArray(embeddings) || embeddings.length !== count) return undefined;
    const vectors: UpstreamVector[] = [];
    for (const embedding of embeddings) {
      const values = asRecord(embedding)?.['values'];
      if (!Array.isArray(values) || values.length !== dimensions) return undefined;
      if (!values.every((value) => typeof value === 'number' && Number.isFinite(value))) return undefined;
      vectors.push({ values: unitLength(values as number[]) });
    }
    // Not documented for this method; read when present, else the core estimates and flags it.
    const tokens = asRecord(answer?.['usageMetadata'])?.['promptTokenCount'];
    return {
      vectors,
      ...(typeof tokens === 'number' && Number.isInteger(tokens) && tokens >= 0 ? { promptTokens: tokens } : {}),
    };
  },

  classifyError: (status, headers, body, provider) =>
    adapterFor(provider).classifyError(status, headers, body, provider),
};

function unitLength(values: readonly number[]): number[] {
  let sum = 0;
  for (const value of values) sum += value * value;
  const norm = Math.sqrt(sum);
  return norm > 0 && Math.abs(norm - 1) > 1e-6 ? values.map((value) => value / norm) : [...values];
}
