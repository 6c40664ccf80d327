import { createHash } from 'node:crypto';
import type { SimExchange, SimResponse, SimRoute } from './harness.js';
import { randomId } from './openai-wire.js';

/**
 * OpenAI's moderation endpoint, `POST /v1/moderations`, for the OpenAI simulator: the request
 * and answer shapes of the official `openai` SDK's `moderations.create` (its
 * `ModerationCreateParams` and `ModerationCreateResponse`, the authority here, as upstreams.md
 * does not cover the endpoint).
 *
 * - `input`: a string, a list of strings (one result each), or a list of multi-modal parts
 *   `{type:"text", text}` / `{type:"image_url", image_url:{url}}` (one result for them all).
 *   Anything else is OpenAI's 400 `invalid_request_error` with `param: "input"`.
 * - `model`: `omni-moderation-latest` (the default), `omni-moderation-2024-09-26`,
 *   `text-moderation-latest` or `text-moderation-stable`; another id is a 404 `model_not_found`.
 *   The legacy text models have no `illicit` categories: those read `null` (as the SDK types
 *   them; unconfirmed against the live API).
 * - The answer: `{id: "modr-…", model, results: [{flagged, categories, category_scores,
 *   category_applied_input_types}]}` with all thirteen categories in each map.
 *
 * Flagging is deterministic, by directive, so tests say what they want: a text holding
 * `[sim:flag]` is flagged for `violence`; `[sim:flag=hate,self-harm/intent]` for those
 * categories (names that are not categories are ignored; none left means `violence`). Flagged
 * categories score 0.9 and up, the others below 0.001, both from a hash of the text, so the
 * same input always scores the same. Images are never flagged, but count in
 * `category_applied_input_types` for the categories that read images.
 */

export const MODERATION_CATEGORIES = [
  'harassment',
  'harassment/threatening',
  'hate',
  'hate/threatening',
  'illicit',
  'illicit/violent',
  'self-harm',
  'self-harm/instructions',
  'self-harm/intent',
  'sexual',
  'sexual/minors',
  'violence',
  'violence/graphic',
] as const;
export type ModerationCategory = (typeof MODERATION_CATEGORIES)[number];

/** The categories the omni model also reads images for (the SDK's CategoryAppliedInputTypes). */
const IMAGE_CATEGORIES: ReadonlySet<ModerationCategory> = new Set([
  'self-harm',
  'self-harm/instructions',
  'self-harm/intent',
  'sexual',
  'violence',
  'violence/graphic',
]);
const LEGACY_ABSENT: ReadonlySet<ModerationCategory> = new Set(['illicit', 'illicit/violent']);
const MODELS = [
  'omni-moderation-latest',
  'omni-moderation-2024-09-26',
  'text-moderation-latest',
  'text-moderation-stable',
];
export const DEFAULT_MODERATION_MODEL = 'omni-moderation-latest';
const FLAG = /\[sim:flag(?:=([^\]]*))?\]/g;

export interface ModerationsRouteOptions {
  /** The API prefix, `/v1`. */
  readonly prefix: string;
  /** OpenAI's 400 for a request it cannot read. */
  readonly invalid: (message: string, param: string | null, code: string | null) => SimResponse;
  readonly unknownModel: (model: string) => SimResponse;
  readonly headers: () => Record<string, string>;
}

/** One thing the endpoint judges: its texts and whether an image came with them. */
interface Subject {
  readonly texts: readonly string[];
  readonly image: boolean;
}

export function moderationsRoute(options: ModerationsRouteOptions): SimRoute {
  return {
    method: 'POST',
    path: new RegExp(`^${options.prefix.replaceAll('/', '\\/')}\\/moderations$`),
    faultable: true,
    handle: (exchange) => moderate(exchange, options),
  };
}

async function moderate(exchange: SimExchange, options: ModerationsRouteOptions): Promise<void> {
  const body = exchange.body;
  if (body === null || typeof body !== 'object' || Array.isArray(body))
    return exchange.send(options.invalid('We could not parse the JSON body of your request.', null, null));
  const { input, model = DEFAULT_MODERATION_MODEL } = body as { input?: unknown; model?: unknown };
  if (typeof model !== 'string')
    return exchange.send(options.invalid("Invalid type for 'model': expected a string.", 'model', 'invalid_type'));
  if (!MODELS.includes(model)) return exchange.send(options.unknownModel(model));
  const subjects = subjectsOf(input);
  if (typeof subjects === 'string') return exchange.send(options.invalid(subjects, 'input', null));
  const legacy = model.startsWith('text-moderation');
  const answer = {
    id: `modr-${randomId(12)}`,
    model,
    results: subjects.map((subject) => resultOf(subject, legacy)),
  };
  return exchange.send({
    status: 200,
    headers: { 'Content-Type': 'application/json', ...options.headers() },
    body: JSON.stringify(answer),
  });
}

/** The subjects of a valid `input`, or the 400's message. */
function subjectsOf(input: unknown): Subject[] | string {
  if (input === undefined) return "Missing required parameter: 'input'.";
  if (typeof input === 'string') return [{ texts: [input], image: false }];
  if (!Array.isArray(input) || input.length === 0)
    return "Invalid value for 'input': expected a string, an array of strings or an array of input objects.";
  if (input.every((item) => typeof item === 'string')) return input.map((text) => ({ texts: [text], image: false }));
  const texts: string[] = [];
  let image = false;
  for (const [i, part] of input.entries()) {
    const { type, text, image_url } = (part ?? {}) as { type?: unknown; text?: unknown; image_url?: { url?: unknown } };
    if (type === 'text' && typeof text === 'string') texts.push(text);
    else if (type === 'image_url' && typeof image_url?.url === 'string') image = true;
    else
      return `Invalid value for 'input[${i}]': expected {type: "text", text} or {type: "image_url", image_url: {url}}.`;
  }
  return [{ texts, image }];
}

function resultOf(subject: Subject, legacy: boolean) {
  const flagged = flaggedCategories(subject.texts);
  const seed = subject.texts.join('\n');
  const categories: Record<string, boolean | null> = {};
  const scores: Record<string, number> = {};
  const appliedTypes: Record<string, ('text' | 'image')[]> = {};
  for (const category of MODERATION_CATEGORIES) {
    const absent = legacy && LEGACY_ABSENT.has(category);
    const on = !absent && flagged.has(category);
    categories[category] = absent ? null : on;
    scores[category] = absent ? 0 : score(seed, category, on);
    appliedTypes[category] = [
      ...(subject.texts.length > 0 ? ['text' as const] : []),
      ...(subject.image && !legacy && IMAGE_CATEGORIES.has(category) ? ['image' as const] : []),
    ];
  }
  return {
    flagged: Object.values(categories).some((on) => on === true),
    categories,
    category_scores: scores,
    category_applied_input_types: appliedTypes,
  };
}

function flaggedCategories(texts: readonly string[]): Set<ModerationCategory> {
  const flagged = new Set<ModerationCategory>();
  for (const text of texts) {
    for (const match of text.matchAll(FLAG)) {
      const named = (match[1] ?? '')
        .split(',')
        .map((name) => name.trim())
        .filter((name): name is ModerationCategory => (MODERATION_CATEGORIES as readonly string[]).includes(name));
      for (const category of named.length > 0 ? named : (['violence'] as const)) flagged.add(category);
    }
  }
  return flagged;
}

/** 0.9–0.999 when flagged, 0.000001–0.000999 otherwise: a hash of the text and category. */
function score(seed: string, category: string, flagged: boolean): number {
  const fraction = Number.parseInt(createHash('sha256').update(`${seed}\n${category}`).digest('hex').slice(0, 8), 16);
  const unit = fraction / 0xffffffff;
  return flagged ? Number((0.9 + unit * 0.099).toFixed(6)) : Number((0.000001 + unit * 0.000998).toFixed(6));
}
