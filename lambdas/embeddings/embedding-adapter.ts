import type { ProviderId } from '../catalog/model-catalog.js';
import type { HeaderReader, UpstreamFailure } from '../providers/upstream-failure.js';
import type { EmbeddingsJob } from './embeddings-request.js';

/** Where one upstream call goes: the route's provider and model, the endpoint and key in use. */
export interface EmbeddingTarget {
  readonly provider: ProviderId;
  readonly model: string;
  readonly baseUrl: string;
  readonly apiKey: string;
}

/** One vector as the upstream gave it: JSON numbers, or (OpenAI's `base64`) little-endian float32 bytes. */
export type UpstreamVector = { readonly values: readonly number[] } | { readonly base64: string };

export interface EmbeddingBatch {
  /** One per text, in the texts' order. */
  readonly vectors: readonly UpstreamVector[];
  /** The upstream's count of input tokens; undefined when it reported none. */
  readonly promptTokens?: number;
}

/**
 * One embedding wire format: the request it sends for a batch of texts and how it reads the
 * answer. Transport, retries, fallback, metering and encoding are the core's.
 */
export interface EmbeddingAdapter {
  request(
    target: EmbeddingTarget,
    texts: readonly string[],
    job: EmbeddingsJob,
  ): { url: string; headers: Record<string, string>; body: string };
  /** A 2xx body (parsed JSON) as vectors of `dimensions` values each; undefined when it is not one. */
  read(body: unknown, count: number, dimensions: number): EmbeddingBatch | undefined;
  /** A non-2xx answer classified as the provider's chat adapter classifies it (the same envelopes). */
  classifyError(status: number, headers: HeaderReader, body: string, provider: ProviderId): UpstreamFailure;
}

/** A JSON object's members, or undefined for anything else (arrays included). */
export function asRecord(value: unknown): Record<string, unknown> | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}
