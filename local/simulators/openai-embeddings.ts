import type { SimExchange, SimResponse, SimRoute } from './harness.js';
import { base64Of, embeddingTokens, embeddingValues } from './embedding-vectors.js';

/**
 * `POST <prefix>/embeddings` for the OpenAI-compatible simulators (OpenAI's `/v1`, OpenRouter's
 * `/api/v1`), in OpenAI's shape (docs/upstreams.md §1.10): `{object:"list", data:[{object:
 * "embedding", index, embedding}], model, usage:{prompt_tokens, total_tokens}}`, each embedding
 * JSON numbers or, with `encoding_format: "base64"`, the base64 of its little-endian float32s.
 * Vectors are deterministic (embedding-vectors.ts); a shortened one is renormalised, as OpenAI's.
 *
 * Checked as OpenAI checks: `input` a non-empty string or a list of 1 to 2048 non-empty strings
 * (token arrays are taken, as OpenAI takes them, and embedded from their numbers), each within
 * the model's 8192 tokens (a token being four bytes here) and 300,000 tokens in all; `dimensions`
 * from 1 to the model's length, only for models that take it; an unknown model is the upstream's
 * own unknown-model answer. Injected faults apply (the route is faultable).
 */

export interface EmbeddingModelSpec {
  readonly id: string;
  readonly dimensions: number;
  /** Whether `dimensions` may shorten its vectors (not `text-embedding-ada-002`). */
  readonly shortens: boolean;
}

export interface EmbeddingsRouteOptions {
  readonly prefix: string;
  readonly models: readonly EmbeddingModelSpec[];
  readonly invalid: (message: string, param: string | null, code: string | null) => SimResponse;
  readonly unknownModel: (model: string) => SimResponse;
  readonly headers: () => Record<string, string>;
}

const MAX_INPUTS = 2048;
const MAX_INPUT_TOKENS = 8192;
const MAX_REQUEST_TOKENS = 300_000;

export function embeddingsRoute(options: EmbeddingsRouteOptions): SimRoute {
  return {
    method: 'POST',
    path: new RegExp(`^${options.prefix.replaceAll('/', '\\/')}\\/embeddings$`),
    faultable: true,
    handle: (exchange) => embed(exchange, options),
  };
}

async function embed(exchange: SimExchange, options: EmbeddingsRouteOptions): Promise<void> {
  const body = exchange.body;
  if (body === null || typeof body !== 'object' || Array.isArray(body))
    return exchange.send(options.invalid('We could not parse the JSON body of your request.', null, null));
  const { model, input, encoding_format = 'float', dimensions } = body as Record<string, unknown>;
  if (typeof model !== 'string')
    return exchange.send(
      options.invalid("Missing required parameter: 'model'.", 'model', 'missing_required_parameter'),
    );
  const spec = options.models.find((m) => m.id === model);
  if (!spec) return exchange.send(options.unknownModel(model));
  if (encoding_format !== 'float' && encoding_format !== 'base64')
    return exchange.send(
      options.invalid(
        `Invalid value: '${String(encoding_format)}'. Supported values are: 'float' and 'base64'.`,
        'encoding_format',
        'invalid_value',
      ),
    );
  const texts = textsOf(input);
  if (typeof texts === 'string') return exchange.send(options.invalid(texts, 'input', null));
  let length = spec.dimensions;
  if (dimensions !== undefined) {
    if (!spec.shortens)
      return exchange.send(options.invalid('This model does not support specifying dimensions.', 'dimensions', null));
    if (
      typeof dimensions !== 'number' ||
      !Number.isInteger(dimensions) ||
      dimensions < 1 ||
      dimensions > spec.dimensions
    )
      return exchange.send(
        options.invalid(
          `Invalid 'dimensions': must be an integer from 1 to ${spec.dimensions}.`,
          'dimensions',
          'invalid_value',
        ),
      );
    length = dimensions;
  }
  const tokens = texts.map(embeddingTokens);
  const longest = Math.max(...tokens);
  if (longest > MAX_INPUT_TOKENS)
    return exchange.send(
      options.invalid(
        `This model's maximum context length is ${MAX_INPUT_TOKENS} tokens, however you requested ${longest} tokens. Please reduce your prompt; or completion length.`,
        'input',
        'context_length_exceeded',
      ),
    );
  const total = tokens.reduce((sum, n) => sum + n, 0);
  if (total > MAX_REQUEST_TOKENS)
    return exchange.send(
      options.invalid(
        `Requested ${total} tokens, max ${MAX_REQUEST_TOKENS} tokens per request`,
        'input',
        'max_tokens_per_request',
      ),
    );
  const data = texts.map((text, index) => {
    const values = embeddingValues(spec.id, text, spec.dimensions, length, true);
    return { object: 'embedding', index, embedding: encoding_format === 'base64' ? base64Of(values) : values };
  });
  return exchange.send({
    status: 200,
    headers: { 'Content-Type': 'application/json', ...options.headers() },
    body: JSON.stringify({
      object: 'list',
      data,
      model: spec.id,
      usage: { prompt_tokens: total, total_tokens: total },
    }),
  });
}

/** The texts of a valid `input` (token arrays read as their numbers), or the 400's message. */
function textsOf(input: unknown): string[] | string {
  if (input === undefined) return "Missing required parameter: 'input'.";
  if (typeof input === 'string') return input === '' ? "'$.input' is invalid: must not be empty." : [input];
  if (!Array.isArray(input) || input.length === 0 || input.length > MAX_INPUTS)
    return `'$.input' is invalid. Please check the API reference: expected a string or an array of 1 to ${MAX_INPUTS} items.`;
  if (input.every((item) => typeof item === 'number' && Number.isInteger(item))) return [input.join(' ')];
  const texts: string[] = [];
  for (const [i, item] of input.entries()) {
    if (typeof item === 'string' && item !== '') texts.push(item);
    else if (Array.isArray(item) && item.length > 0 && item.every((n) => typeof n === 'number'))
      texts.push(item.join(' '));
    else return `'$.input[${i}]' is invalid: expected a non-empty string or token array.`;
  }
  return texts;
}
