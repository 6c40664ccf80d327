import type { SimExchange } from './harness.js';
import { badRequest, errorEnvelope, errorResponse, OK_JSON_HEADERS } from './gemini-output.js';
import { embeddingValues } from './embedding-vectors.js';

/**
 * Gemini's `POST /v1beta/models/{model}:batchEmbedContents` and `:embedContent` for the Gemini
 * simulator (docs/upstreams.md §3.10): `{requests:[{model:"models/<id>", content:{parts:[{text}]},
 * outputDimensionality?}]}` → `{embeddings:[{values:[...]}]}`, and one request → `{embedding:
 * {values}}`. No token counts, as the API reports none for these methods. Vectors are
 * deterministic (embedding-vectors.ts); a shortened one is the full vector's first values, not
 * renormalised, as Google documents. At most 100 requests a batch, each naming the path's model,
 * each text within 2048 tokens (four bytes a token here); `outputDimensionality` 128 to 3072.
 * Errors are Google's envelope (400 INVALID_ARGUMENT, 404 NOT_FOUND).
 */

export const GEMINI_EMBEDDING_MODELS: Readonly<Record<string, number>> = {
  'gemini-embedding-001': 3072,
  'text-embedding-004': 768,
};

const MAX_BATCH = 100;
const MAX_TEXT_TOKENS = 2048;
const MIN_DIMENSIONS = 128;

type Answer = { values: number[] } | string;

export async function batchEmbed(exchange: SimExchange, model: string): Promise<void> {
  const full = GEMINI_EMBEDDING_MODELS[model];
  if (full === undefined) return exchange.send(errorResponse(errorEnvelope(404, model), false));
  const requests = (exchange.body as { requests?: unknown } | undefined)?.requests;
  if (!Array.isArray(requests) || requests.length === 0)
    return exchange.send(errorResponse(badRequest('* BatchEmbedContentsRequest.requests: must not be empty'), false));
  if (requests.length > MAX_BATCH)
    return exchange.send(
      errorResponse(
        badRequest(`* BatchEmbedContentsRequest.requests: at most ${MAX_BATCH} requests can be in one batch`),
        false,
      ),
    );
  const embeddings: { values: number[] }[] = [];
  for (const [i, request] of requests.entries()) {
    const answer = embedOne(request, model, full, `requests[${i}]`);
    if (typeof answer === 'string') return exchange.send(errorResponse(badRequest(answer), false));
    embeddings.push(answer);
  }
  return exchange.send({ status: 200, headers: OK_JSON_HEADERS, body: JSON.stringify({ embeddings }, null, 2) });
}

export async function embedContent(exchange: SimExchange, model: string): Promise<void> {
  const full = GEMINI_EMBEDDING_MODELS[model];
  if (full === undefined) return exchange.send(errorResponse(errorEnvelope(404, model), false));
  const answer = embedOne({ model: `models/${model}`, ...(exchange.body as object) }, model, full, 'request');
  if (typeof answer === 'string') return exchange.send(errorResponse(badRequest(answer), false));
  return exchange.send({ status: 200, headers: OK_JSON_HEADERS, body: JSON.stringify({ embedding: answer }, null, 2) });
}

function embedOne(request: unknown, model: string, full: number, at: string): Answer {
  const { model: named, content, outputDimensionality } = (request ?? {}) as Record<string, unknown>;
  if (named !== `models/${model}`)
    return `* BatchEmbedContentsRequest.${at}.model: Model names should match the batch's: models/${model}`;
  const parts = (content as { parts?: unknown } | undefined)?.parts;
  if (!Array.isArray(parts) || parts.length === 0) return `* ${at}.content.parts: must not be empty`;
  const text = parts.map((part) => (part as { text?: unknown }).text).join('');
  if (parts.some((part) => typeof (part as { text?: unknown }).text !== 'string') || text === '')
    return `* ${at}.content.parts: only text parts are embedded, and the text must not be empty`;
  if (Math.ceil(Buffer.byteLength(text, 'utf8') / 4) > MAX_TEXT_TOKENS)
    return `* ${at}.content: The input token count exceeds the maximum number of tokens allowed ${MAX_TEXT_TOKENS}.`;
  let length = full;
  if (outputDimensionality !== undefined) {
    if (
      typeof outputDimensionality !== 'number' ||
      !Number.isInteger(outputDimensionality) ||
      outputDimensionality < MIN_DIMENSIONS ||
      outputDimensionality > full
    )
      return `* ${at}.output_dimensionality: must be from ${MIN_DIMENSIONS} to ${full}`;
    length = outputDimensionality;
  }
  return { values: embeddingValues(model, text, full, length, false) };
}
