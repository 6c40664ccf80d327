import type { EmbeddingModel } from '../catalog/model-catalog.js';
import { compileConditional } from '../schema/compile.js';
import { invalidEmbeddings } from './embeddings-errors.js';

/**
 * The embeddings endpoint's body (docs/interface.md §4.12): OpenAI's `embeddings.create` request.
 * `input` is text: one string or a list of them. Token arrays (lists of integers) are refused with
 * a 400 naming the item: token ids belong to one tokenizer, and a gateway that routes between
 * providers cannot send them to any other.
 */
export interface EmbeddingsRequestBody {
  model: string;
  input: string | string[];
  encoding_format?: EncodingFormat;
  dimensions?: number;
  user?: string;
}

export const ENCODING_FORMATS = ['float', 'base64'] as const;
export type EncodingFormat = (typeof ENCODING_FORMATS)[number];

/** OpenAI's limit on inputs in one request. */
export const MAX_INPUTS = 2048;
/** Any one input, in characters, whatever the model (the model's own limit is checked after). */
export const MAX_INPUT_CHARS = 65_536;
/** All inputs of a request together, in UTF-8 bytes: the work one request may cause upstream. */
export const MAX_TOTAL_INPUT_BYTES = 1_048_576;
/**
 * An input of more UTF-8 bytes than this times the model's token limit is refused by the gateway:
 * no text of the tokenizers these models use averages 8 bytes a token. Below that the provider
 * counts, and its refusal comes back as a 400 naming the input too.
 */
export const MAX_BYTES_PER_TOKEN = 8;
/**
 * The answer must fit a buffered Lambda response (6 MB with its JSON framing): inputs times
 * dimensions, at the most bytes a value can take in the requested encoding, at most this many.
 */
export const MAX_ANSWER_BYTES = 5_000_000;
/** A float in JSON at its longest (`-1.2345678901234567e-7,`). */
const FLOAT_VALUE_BYTES = 24;
/** The per-embedding framing: `{"object":"embedding","index":2047,"embedding":""},`. */
const EMBEDDING_FRAME_BYTES = 64;

const MAX_USER_CHARS = 256;

const textInput = {
  type: 'string',
  minLength: 1,
  maxLength: MAX_INPUT_CHARS,
  'x-message': {
    type: 'must be a string: token arrays are not accepted, send the text',
    minLength: 'must not be empty',
    maxLength: `must be at most ${MAX_INPUT_CHARS} characters`,
  },
};

/** Unknown fields are refused, as the other routes do: a misspelt `dimension` would silently give full vectors. */
export const embeddingsRequestSchema = {
  type: 'object',
  required: ['model', 'input'],
  additionalProperties: false,
  properties: {
    model: {
      type: 'string',
      minLength: 1,
      maxLength: 200,
      description:
        'An embedding model (docs/interface.md §4.12): `text-embedding-3-small`, `text-embedding-3-large`, `gemini-embedding-001`, or a route’s id such as `openai/text-embedding-3-small`',
    },
    input: {
      ...textInput,
      type: ['string', 'array'],
      description:
        'The text to embed, or a list of texts (one embedding each, in order). Token arrays are not accepted.',
      items: textInput,
      minItems: 1,
      maxItems: MAX_INPUTS,
      'x-message': {
        type: 'must be a string or an array of strings (token arrays are not accepted)',
        minLength: 'must not be empty',
        maxLength: `must be at most ${MAX_INPUT_CHARS} characters`,
        minItems: 'must hold at least one text',
        maxItems: `must hold at most ${MAX_INPUTS} texts`,
      },
    },
    encoding_format: {
      type: 'string',
      enum: [...ENCODING_FORMATS],
      description: '`float` (the default) or `base64`: each vector as the base64 of its little-endian float32 values',
    },
    dimensions: {
      type: 'integer',
      minimum: 1,
      maximum: 3072,
      description: 'The vector length, at most the model’s own (a shortened vector is renormalised)',
    },
    user: { type: 'string', maxLength: MAX_USER_CHARS, description: 'Your end-user’s id, passed to OpenAI' },
  },
};

export const embeddingsRequestValidator = compileConditional<EmbeddingsRequestBody>(embeddingsRequestSchema);

/** What the core embeds, checked against the model: the texts in order, the length, the encoding. */
export interface EmbeddingsJob {
  readonly texts: readonly string[];
  readonly dimensions: number;
  /** True when the caller named `dimensions` (sent upstream only then). */
  readonly dimensionsAsked: boolean;
  readonly encoding: EncodingFormat;
  readonly user?: string;
}

const utf8Bytes = (text: string): number => Buffer.byteLength(text, 'utf8');

/**
 * The body checked against the model's limits: `dimensions` within its range, each input within
 * its token limit as far as bytes can tell, all inputs within MAX_TOTAL_INPUT_BYTES, the answer
 * within MAX_ANSWER_BYTES. Every refusal is a 400 naming the field.
 */
export function embeddingsJobOf(body: EmbeddingsRequestBody, model: EmbeddingModel): EmbeddingsJob {
  const texts = typeof body.input === 'string' ? [body.input] : body.input;
  const dimensions = body.dimensions ?? model.defaultDimensions;
  if (dimensions < model.minDimensions || dimensions > model.defaultDimensions)
    throw invalidEmbeddings(
      'dimensions',
      `dimensions: ${model.id} takes ${model.minDimensions} to ${model.defaultDimensions}`,
    );
  const perInput = model.maxInputTokens * MAX_BYTES_PER_TOKEN;
  let total = 0;
  for (const [index, text] of texts.entries()) {
    const bytes = utf8Bytes(text);
    const field = typeof body.input === 'string' ? 'input' : `input[${index}]`;
    if (bytes > perInput)
      throw invalidEmbeddings(field, `${field}: longer than ${model.id} takes (${model.maxInputTokens} tokens)`);
    total += bytes;
  }
  if (total > MAX_TOTAL_INPUT_BYTES)
    throw invalidEmbeddings('input', `input: at most ${MAX_TOTAL_INPUT_BYTES} bytes of text in all (UTF-8)`);
  const encoding = body.encoding_format ?? 'float';
  if (answerBytesBound(texts.length, dimensions, encoding) > MAX_ANSWER_BYTES)
    throw invalidEmbeddings(
      'input',
      `input: ${texts.length} embeddings of ${dimensions} dimensions as ${encoding} exceed one answer's ${MAX_ANSWER_BYTES} bytes; ` +
        'send fewer inputs, fewer dimensions, or encoding_format base64',
    );
  return {
    texts,
    dimensions,
    dimensionsAsked: body.dimensions !== undefined,
    encoding,
    ...(body.user === undefined ? {} : { user: body.user }),
  };
}

/** The answer's size at the most: each vector's values in the encoding, plus its framing. */
export function answerBytesBound(count: number, dimensions: number, encoding: EncodingFormat): number {
  const vector = encoding === 'base64' ? 4 * Math.ceil((dimensions * 4) / 3) : dimensions * FLOAT_VALUE_BYTES;
  return count * (vector + EMBEDDING_FRAME_BYTES);
}
