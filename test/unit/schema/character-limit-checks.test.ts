import {
  arenaRequestValidator,
  MAX_HISTORY_CHARS,
  MAX_HISTORY_TURN_CHARS,
  MAX_MESSAGE_CHARS,
  singleModelRequest,
  type ArenaRequestBody,
} from '../../../lambdas/arena/arena-request.js';
import { chatRequestValidator } from '../../../lambdas/chat/chat-request.js';
import {
  compileBudget,
  loadLinearRegExp,
  linearRegExp,
  MAX_PATTERN_LENGTH,
} from '../../../lambdas/chat/guardrails/linear-regexp.js';
import { HttpError, httpErrorOf } from '../../../lambdas/http/errors.js';
import { DomainError } from '../../../lambdas/errors/domain-error.js';
import { validate } from '../../../lambdas/http/validation.js';
import { CREATE_ACCOUNT_BODY, LOGIN_BODY } from '../../../lambdas/identity/account-schemas.js';
import { CREATE_KEY_BODY, UPDATE_KEY_BODY } from '../../../lambdas/identity/key-schemas.js';
import { CREATE_PROVIDER_KEY_BODY } from '../../../lambdas/identity/provider-key-schemas.js';
import { MAX_IMAGE_URL_CHARS } from '../../../lambdas/fashion/fashion-images.js';
import { MAX_PROMPT_CHARS } from '../../../lambdas/fashion/fashion-models.js';
import { parseFashionRequest } from '../../../lambdas/fashion/fashion-request.js';
import { fashionRequestValidator } from '../../../lambdas/fashion/fashion-schema.js';
import {
  MAX_LYRICS_CHARACTERS,
  MAX_PROMPT_CHARACTERS,
  minimaxMusicBody,
  musicRequestValidator,
} from '../../../lambdas/media/music-request.js';
import {
  MAX_SPEECH_CHARACTERS,
  speechRequestOf,
  speechRequestValidator,
} from '../../../lambdas/media/speech-request.js';
import { MAX_FIRST_FRAME_URL_CHARS, MAX_VIDEO_PROMPT_CHARS } from '../../../lambdas/media/video-models.js';
import { parseVideoRequest, videoRequestValidator } from '../../../lambdas/media/video-request.js';
import { checkSearch, searchOptionsOf, searchRequestValidator } from '../../../lambdas/search/search-request.js';
import { MAX_QUERY_CHARS, MAX_SNIPPET_CHARS } from '../../../lambdas/search/search-types.js';
import { cutOnWordBoundary } from '../../../lambdas/search/snippet.js';
import { compile, type Validator } from '../../../lambdas/schema/compile.js';
import { characterCount } from '../../../lambdas/schema/text-length.js';

/**
 * Every character limit the API states counts characters as code points (lambdas/schema/
 * text-length.ts), whether a JSON schema or a hand check enforces it: N emoji (astral, two
 * UTF-16 units each) pass at a limit of N, N + 1 are a 400 naming the field. Each row runs
 * the route's own parsers in the route's order, and turns a domain refusal into HTTP with the
 * route's own mapping.
 */
const EMOJI = '😀';
const emoji = (n: number) => EMOJI.repeat(n);
/** An https URL of exactly `n` characters, its path made of emoji. */
const urlOf = (n: number, suffix = '') => `https://example.com/${emoji(n - 20 - suffix.length)}${suffix}`;

interface LimitedField {
  readonly route: string;
  /** The field the 400 names. */
  readonly field: string;
  readonly limit: number;
  /** A body whose limited field holds `n` characters. */
  readonly body: (n: number) => unknown;
  /** The route's parsers, in order; throws what the route would. */
  readonly parse: (body: unknown) => unknown;
}

function asHttp(error: unknown): unknown {
  return error instanceof DomainError ? httpErrorOf(error) : error;
}

function refusal(row: LimitedField, n: number): HttpError | undefined {
  try {
    row.parse(row.body(n));
    return undefined;
  } catch (error) {
    const answer = asHttp(error);
    if (answer instanceof HttpError) return answer;
    throw error;
  }
}

const compiled = (schema: object): Validator<unknown> => compile<unknown>(schema as never);
const schemaOnly = (validator: Validator<unknown>) => (body: unknown) => validate(validator, body);

const createKey = compiled(CREATE_KEY_BODY);
const updateKey = compiled(UPDATE_KEY_BODY);
const createProviderKey = compiled(CREATE_PROVIDER_KEY_BODY);
const createAccount = compiled(CREATE_ACCOUNT_BODY);
const login = compiled(LOGIN_BODY);

const search = (body: unknown) => {
  const valid = validate(searchRequestValidator, body);
  checkSearch(valid.query, searchOptionsOf(valid));
};
const music = (body: unknown) => minimaxMusicBody(validate(musicRequestValidator, body));
const video = (body: unknown) => parseVideoRequest(validate(videoRequestValidator, body));
const fashion = (body: unknown) => parseFashionRequest(validate(fashionRequestValidator, body));
const arenaChat = (body: unknown) =>
  singleModelRequest({ ...validate<ArenaRequestBody>(arenaRequestValidator, body), model: 'gpt' });
const chat = (fields: Record<string, unknown>) => ({
  model: 'gpt',
  messages: [{ role: 'user', content: 'Hi' }],
  ...fields,
});

/** Prior turns holding `n` characters together, none over the per-turn limit. */
function history(n: number): { role: 'user'; content: string }[] {
  const turns: { role: 'user'; content: string }[] = [];
  for (let left = n; left > 0; left -= MAX_HISTORY_TURN_CHARS)
    turns.push({ role: 'user', content: emoji(Math.min(left, MAX_HISTORY_TURN_CHARS)) });
  return turns;
}

const LIMITED_FIELDS: readonly LimitedField[] = [
  { route: 'search', field: 'query', limit: MAX_QUERY_CHARS, body: (n) => ({ query: emoji(n) }), parse: search },
  {
    route: 'speech',
    field: 'text',
    limit: MAX_SPEECH_CHARACTERS,
    body: (n) => ({ text: emoji(n) }),
    parse: (body) => speechRequestOf(validate(speechRequestValidator, body)),
  },
  { route: 'music', field: 'prompt', limit: MAX_PROMPT_CHARACTERS, body: (n) => ({ prompt: emoji(n) }), parse: music },
  { route: 'music', field: 'lyrics', limit: MAX_LYRICS_CHARACTERS, body: (n) => ({ lyrics: emoji(n) }), parse: music },
  { route: 'video', field: 'prompt', limit: MAX_VIDEO_PROMPT_CHARS, body: (n) => ({ prompt: emoji(n) }), parse: video },
  {
    route: 'video',
    field: 'first_frame_image',
    limit: MAX_FIRST_FRAME_URL_CHARS,
    body: (n) => ({ prompt: 'A cat', first_frame_image: urlOf(n) }),
    parse: video,
  },
  {
    route: 'fashion',
    field: 'inputs.prompt',
    limit: MAX_PROMPT_CHARS,
    body: (n) => ({ model_name: 'model-create', inputs: { prompt: emoji(n) } }),
    parse: fashion,
  },
  {
    route: 'fashion',
    field: 'inputs.product_image',
    limit: MAX_IMAGE_URL_CHARS,
    body: (n) => ({ model_name: 'product-to-model', inputs: { product_image: urlOf(n) } }),
    parse: fashion,
  },
  {
    route: 'fashion',
    field: 'inputs.lora_url',
    limit: MAX_IMAGE_URL_CHARS,
    body: (n) => ({ model_name: 'model-create', inputs: { prompt: 'A model', lora_url: urlOf(n, '.safetensors') } }),
    parse: fashion,
  },
  {
    route: 'arena',
    field: 'message',
    limit: MAX_MESSAGE_CHARS,
    body: (n) => ({ message: emoji(n) }),
    parse: arenaChat,
  },
  {
    route: 'arena',
    field: 'messages[0].content',
    limit: MAX_HISTORY_TURN_CHARS,
    body: (n) => ({ message: 'Hi', messages: [{ role: 'user', content: emoji(n) }] }),
    parse: arenaChat,
  },
  {
    route: 'arena',
    field: 'messages',
    limit: MAX_HISTORY_CHARS,
    body: (n) => ({ message: 'Hi', messages: history(n) }),
    parse: arenaChat,
  },
  {
    route: 'chat',
    field: 'messages[0].content',
    limit: 1_000_000,
    body: (n) => chat({ messages: [{ role: 'user', content: emoji(n) }] }),
    parse: schemaOnly(chatRequestValidator as Validator<unknown>),
  },
  {
    route: 'chat',
    field: 'stop',
    limit: 1000,
    body: (n) => chat({ stop: emoji(n) }),
    parse: schemaOnly(chatRequestValidator as Validator<unknown>),
  },
  {
    route: 'chat',
    field: 'user',
    limit: 256,
    body: (n) => chat({ user: emoji(n) }),
    parse: schemaOnly(chatRequestValidator as Validator<unknown>),
  },
  { route: 'keys', field: 'name', limit: 100, body: (n) => ({ name: emoji(n) }), parse: schemaOnly(createKey) },
  { route: 'keys update', field: 'name', limit: 100, body: (n) => ({ name: emoji(n) }), parse: schemaOnly(updateKey) },
  {
    route: 'provider keys',
    field: 'apiKey',
    limit: 4096,
    body: (n) => ({ provider: 'openai', slug: 'mine', apiKey: emoji(n) }),
    parse: schemaOnly(createProviderKey),
  },
  {
    route: 'provider keys',
    field: 'displayName',
    limit: 100,
    body: (n) => ({ provider: 'openai', slug: 'mine', apiKey: 'sk-12345678', displayName: emoji(n) }),
    parse: schemaOnly(createProviderKey),
  },
  {
    route: 'admin accounts',
    field: 'name',
    limit: 100,
    body: (n) => ({ email: 'ada@example.com', name: emoji(n) }),
    parse: schemaOnly(createAccount),
  },
  {
    route: 'login',
    field: 'password',
    limit: 256,
    body: (n) => ({ email: 'ada@example.com', password: emoji(n) }),
    parse: schemaOnly(login),
  },
];

describe.each(LIMITED_FIELDS)('$route $field: at most $limit characters', (row) => {
  test(`${row.limit} emoji pass`, () => {
    expect(refusal(row, row.limit)).toBeUndefined();
  });

  test(`${row.limit + 1} emoji are a 400 naming ${row.field}`, () => {
    const refused = refusal(row, row.limit + 1);
    expect(refused?.status).toBe(400);
    expect(refused?.param).toBe(row.field);
    expect(refused?.message).toContain(`${row.field}: `);
    expect(refused?.message).toMatch(/characters/);
  });
});

test('a caller schema pattern may hold 1000 characters of emoji, not 1001', async () => {
  await loadLinearRegExp();
  // A class of one repeated emoji compiles to a single instruction, so only the length decides.
  const pattern = (n: number) => `[${emoji(n - 2)}]`;
  expect(() => linearRegExp(pattern(MAX_PATTERN_LENGTH), compileBudget())).not.toThrow();
  expect(() => linearRegExp(pattern(MAX_PATTERN_LENGTH + 1), compileBudget())).toThrow(
    `a pattern may be at most ${MAX_PATTERN_LENGTH} characters long`,
  );
});

test('a snippet keeps up to 500 emoji whole and cuts longer text to 500 characters, never half an emoji', () => {
  const words = (n: number) => Array.from({ length: n }, () => emoji(3)).join(' ');
  expect(cutOnWordBoundary(emoji(MAX_SNIPPET_CHARS))).toBe(emoji(MAX_SNIPPET_CHARS));
  expect(cutOnWordBoundary(words(125))).toBe(words(125));
  for (const text of [emoji(MAX_SNIPPET_CHARS + 1), words(126), `a${emoji(700)}`, `a ${emoji(700)}`]) {
    const snippet = cutOnWordBoundary(text);
    expect(characterCount(snippet)).toBeLessThanOrEqual(MAX_SNIPPET_CHARS);
    expect(characterCount(snippet)).toBeGreaterThan(MAX_SNIPPET_CHARS / 2);
    expect(snippet.endsWith('…')).toBe(true);
    expect(snippet).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/);
  }
  expect(cutOnWordBoundary(words(126))).toBe(`${words(124)}…`);
});
