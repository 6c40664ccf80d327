/**
 * The embedding models callers address by name, their upstream routes, limits and prices. Data
 * and a lookup only. The chat families (families.ts) are text generators; these turn text into
 * vectors and are served only by `POST /api/v1/embeddings`.
 *
 * Prices are list prices for input tokens in integer micro-USD per 1M tokens (embeddings have no
 * output tokens): OpenAI `text-embedding-3-small` $0.02 and `text-embedding-3-large` $0.13,
 * Google `gemini-embedding-001` $0.15 (Google's announcement of the model; OpenRouter lists the
 * same three prices for its routes). Batch-API discounts are not modelled.
 */

import type { ProviderId } from './providers.js';

export interface EmbeddingRoute {
  readonly provider: ProviderId;
  /** The provider's own id for the model (OpenRouter's is `vendor/model`). */
  readonly model: string;
}

export interface EmbeddingModel {
  /** The id callers send and the catalog prices (OpenAI's and Google's own id). */
  readonly id: string;
  /** Who makes the model. */
  readonly owner: string;
  /** Release, Unix seconds. */
  readonly created: number;
  /** The most tokens one input may hold (the provider's limit). */
  readonly maxInputTokens: number;
  /** The vector's length when the caller names no `dimensions`. */
  readonly defaultDimensions: number;
  /** The smallest `dimensions` the provider accepts (the largest is the default). */
  readonly minDimensions: number;
  /** The most inputs one upstream call may carry; more are sent in several calls. */
  readonly maxInputsPerCall: number;
  /** Micro-USD per 1M input tokens. */
  readonly inputPerMTok: number;
  /** Preference order: the model's maker first, then OpenRouter. */
  readonly routes: readonly EmbeddingRoute[];
}

const model = (m: EmbeddingModel): EmbeddingModel =>
  Object.freeze({ ...m, routes: Object.freeze(m.routes.map((r) => Object.freeze({ ...r }))) });

export const EMBEDDING_MODELS: readonly EmbeddingModel[] = Object.freeze([
  model({
    id: 'text-embedding-3-small',
    owner: 'openai',
    created: 1705953180, // 2024-01-22
    maxInputTokens: 8191,
    defaultDimensions: 1536,
    minDimensions: 1,
    maxInputsPerCall: 2048,
    inputPerMTok: 20_000,
    routes: [
      { provider: 'openai', model: 'text-embedding-3-small' },
      { provider: 'openrouter', model: 'openai/text-embedding-3-small' },
    ],
  }),
  model({
    id: 'text-embedding-3-large',
    owner: 'openai',
    created: 1705953180, // 2024-01-22
    maxInputTokens: 8191,
    defaultDimensions: 3072,
    minDimensions: 1,
    maxInputsPerCall: 2048,
    inputPerMTok: 130_000,
    routes: [
      { provider: 'openai', model: 'text-embedding-3-large' },
      { provider: 'openrouter', model: 'openai/text-embedding-3-large' },
    ],
  }),
  model({
    id: 'gemini-embedding-001',
    owner: 'google',
    created: 1747699200, // 2025-05-20
    maxInputTokens: 2048,
    defaultDimensions: 3072,
    // Google recommends 768, 1536 or 3072 and documents truncation from the end (MRL).
    minDimensions: 128,
    // batchEmbedContents takes at most 100 requests a call.
    maxInputsPerCall: 100,
    inputPerMTok: 150_000,
    routes: [
      { provider: 'google', model: 'gemini-embedding-001' },
      { provider: 'openrouter', model: 'google/gemini-embedding-001' },
    ],
  }),
]);

const byName = new Map<string, EmbeddingModel>();
for (const m of EMBEDDING_MODELS) {
  byName.set(m.id, m);
  for (const route of m.routes) byName.set(route.model, m);
}

/**
 * The embedding model `name` denotes: its id or any of its routes' model ids
 * (`openai/text-embedding-3-small`), exact; Google's resource form `models/<id>` is accepted too.
 */
export function resolveEmbeddingModel(name: string): EmbeddingModel | undefined {
  const trimmed = name.trim();
  return byName.get(trimmed) ?? byName.get(trimmed.replace(/^models\//, ''));
}

/** Each route's model id and the model's own id, priced at the model's input rate. */
export const EMBEDDING_PRICES: Readonly<
  Record<string, { readonly inputPerMTok: number; readonly outputPerMTok: number }>
> = Object.freeze(
  Object.fromEntries(
    EMBEDDING_MODELS.flatMap((m) =>
      [m.id, ...m.routes.map((r) => r.model)].map((id) => [
        id,
        Object.freeze({ inputPerMTok: m.inputPerMTok, outputPerMTok: 0 }),
      ]),
    ),
  ),
);
