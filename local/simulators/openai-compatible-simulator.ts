import { FAMILIES, type ProviderId } from '../../lambdas/catalog/model-catalog.js';
import type { SimExchange, SimResponse, SimRoute, SimulatorDefinition } from './harness.js';
import { wholeAnswerMs } from './pacing.js';
import { runScript } from './script.js';
import type { ScriptTurn } from './script-types.js';
import {
  completionBody,
  directiveOf,
  scriptInputOf,
  streamChunks,
  carriesToken,
  validateChatRequest,
  type AnswerFrame,
  type StreamOptions,
  type WireProblem,
  type WireRequest,
} from './openai-wire.js';

/**
 * One simulator definition for every OpenAI-compatible upstream: the routes and the answer
 * flow are shared, a Personality supplies what the upstream does its own way.
 *
 * Simulator-only directives (in the last user message, next to the script's own):
 * - `[sim:error=STATUS]` / `[sim:error=STATUS:VARIANT]` answer with the upstream's error for
 *   that status, e.g. `[sim:error=429:insufficient_quota]`; every upstream knows the variants
 *   `html` (a proxy's HTML page) and `empty` (no body)
 * - `[sim:midway_error=CODE]` fail after half the answer: in a stream, the upstream's in-band
 *   error event and no `[DONE]`; without a stream, the upstream's in-body error when it has
 *   one (OpenRouter: a choice with `error`), else its HTTP 500
 * The usage directives (usage-directives.ts) come back in OpenAI's usage: cache reads as
 * `prompt_tokens_details.cached_tokens`, reasoning inside `completion_tokens` and as
 * `completion_tokens_details.reasoning_tokens`; OpenRouter adds the writes as `cache_write_tokens`.
 */
export interface Personality {
  readonly name: string;
  /** The API's path prefix: `/v1`, `/api/v1`. */
  readonly prefix: string;
  readonly models: readonly SimModel[];
  /** Whether a `:variant` suffix (OpenRouter's `:free`, `:nitro`...) names a known model. */
  readonly modelVariants: boolean;
  /** Whether GET /models answers without a key. */
  readonly publicModels: boolean;
  /** An SSE comment sent before the first event (OpenRouter's keep-alive). */
  readonly keepAlive?: string;
  readonly callIdPrefix: string;
  answerId(): string;
  frame(model: string, turn: ScriptTurn): Omit<AnswerFrame, 'id' | 'created' | 'model' | 'callIdPrefix'>;
  streamOptions(request: WireRequest): StreamOptions;
  /** Headers on every successful answer. */
  headers(answerId: string): Record<string, string>;
  modelsBody(models: readonly SimModel[]): unknown;
  modelBody?(model: SimModel): unknown;
  error(status: number, variant?: string, model?: string): SimResponse;
  invalid(problem: WireProblem): SimResponse;
  unknownModel(model: string): SimResponse;
  /** The answer to a missing, `bad…` or `invalid…` key. */
  authError(key: string | undefined): SimResponse;
  /** Model-specific checks beyond the shared ones. */
  check?(request: WireRequest): SimResponse | undefined;
  /** The in-band error event a stream ends with after a failure. */
  streamError(code: string, frame: AnswerFrame): Record<string, unknown>;
  /** A 200 body reporting a failure after the start, for upstreams that have one. */
  bodyError?(code: string, frame: AnswerFrame, partial: string): Record<string, unknown>;
  /** Called for every answer given (OpenRouter's generation lookups). */
  onAnswer?(answerId: string, model: string, turn: ScriptTurn): void;
  readonly extraRoutes?: readonly SimRoute[];
}

export interface SimModel {
  readonly id: string;
  readonly created: number;
  readonly ownedBy: string;
}

/** The catalog's models on this provider, then a few more a developer may try by hand. */
export function catalogModels(
  provider: ProviderId,
  ownedBy: (id: string) => string,
  extras: readonly SimModel[] = [],
): SimModel[] {
  const models = FAMILIES.flatMap((family) =>
    family.routes
      .filter((route) => route.provider === provider)
      .map((route) => ({ id: route.model, created: family.created, ownedBy: ownedBy(route.model) })),
  );
  return [...models, ...extras.filter((extra) => !models.some((m) => m.id === extra.id))];
}

export function defineOpenAiCompatibleSimulator(p: Personality): SimulatorDefinition {
  const known = new Map(p.models.map((m) => [m.id, m]));
  const isKnown = (id: string) => known.has(p.modelVariants ? id.replace(/:[a-z-]+$/, '') : id);
  const at = (path: string) => new RegExp(`^${p.prefix.replaceAll('/', '\\/')}${path}$`);

  const routes: SimRoute[] = [
    {
      method: 'POST',
      path: at('/chat/completions'),
      faultable: true,
      handle: (exchange) => chat(p, exchange, isKnown),
    },
    {
      method: 'GET',
      path: at('/models'),
      faultable: false,
      handle: (exchange) => exchange.send(json(200, p.modelsBody(p.models))),
    },
    ...(p.modelBody
      ? [
          {
            method: 'GET',
            path: at('/models/(?<model>[^/]+)'),
            faultable: false,
            handle: (exchange: SimExchange) => {
              const model = known.get(exchange.params['model'] ?? '');
              return exchange.send(
                model ? json(200, p.modelBody!(model)) : p.unknownModel(exchange.params['model'] ?? ''),
              );
            },
          },
        ]
      : []),
    ...(p.extraRoutes ?? []),
  ];

  return {
    name: p.name,
    routes,
    modelOf: ({ body }) => {
      const model = (body as { model?: unknown } | undefined)?.model;
      return typeof model === 'string' ? model : undefined;
    },
    errorFor: (status, exchange) =>
      p.error(status, undefined, (exchange.body as { model?: string } | undefined)?.model),
    authenticate(exchange) {
      if (p.publicModels && exchange.method === 'GET' && at('/models').test(exchange.url.pathname)) return undefined;
      const header = exchange.headers.authorization;
      const key =
        typeof header === 'string' && /^Bearer\s+/i.test(header) ? header.replace(/^Bearer\s+/i, '').trim() : undefined;
      return !key || key.startsWith('bad') || key.startsWith('invalid') ? p.authError(key) : undefined;
    },
  };
}

async function chat(p: Personality, exchange: SimExchange, isKnown: (model: string) => boolean): Promise<void> {
  const problem = validateChatRequest(exchange.body);
  if (problem) return exchange.send(p.invalid(problem));
  const request = exchange.body as WireRequest;
  if (!isKnown(request.model)) return exchange.send(p.unknownModel(request.model));
  const refusal = p.check?.(request);
  if (refusal) return exchange.send(refusal);

  const input = scriptInputOf(request);
  const forced = directiveOf(input, 'error');
  if (forced !== undefined) return exchange.send(forcedError(p, forced, request.model));
  const turn = runScript(input);
  const id = p.answerId();
  const frame: AnswerFrame = {
    id,
    created: Math.floor(Date.now() / 1000),
    model: request.model,
    callIdPrefix: p.callIdPrefix,
    ...p.frame(request.model, turn),
  };
  p.onAnswer?.(id, request.model, turn);
  const midway = directiveOf(input, 'midway_error');
  const failCode = midway || 'server_error';
  const half = Math.floor(turn.pieces.length / 2);

  if (request.stream !== true) {
    if (midway === undefined)
      return exchange.send(
        { status: 200, headers: p.headers(id), body: JSON.stringify(completionBody(turn, frame)) },
        wholeAnswerMs(turn),
      );
    const body = p.bodyError?.(failCode, frame, turn.pieces.slice(0, half).join(''));
    return exchange.send(
      body
        ? { status: 200, headers: p.headers(id), body: JSON.stringify(body) }
        : p.error(500, undefined, request.model),
    );
  }

  let chunks = streamChunks(turn, frame, p.streamOptions(request));
  // The role chunk and half the text, then the error.
  if (midway !== undefined) chunks = [...chunks.slice(0, 1 + half), p.streamError(failCode, frame)];
  const stream = await exchange.stream(p.headers(id), turn.pacing);
  if (p.keepAlive && !(await stream.comment(p.keepAlive))) return;
  for (const chunk of chunks) {
    const send = carriesToken(chunk) ? stream.token : stream.event;
    if (!(await send(JSON.stringify(chunk)))) return;
  }
  if (midway === undefined && !(await stream.event('[DONE]'))) return;
  stream.end();
}

function forcedError(p: Personality, directive: string, model: string): SimResponse {
  const [statusText, variant] = directive.split(':');
  const status = Number(statusText);
  if (!Number.isInteger(status) || status < 400 || status > 599) return p.error(500, undefined, model);
  if (variant === 'html') {
    return {
      status,
      headers: { 'Content-Type': 'text/html' },
      body: `<html><head><title>${status}</title></head><body><center><h1>${status}</h1></center><hr><center>cloudflare</center></body></html>`,
    };
  }
  if (variant === 'empty') return { status, headers: { 'Content-Type': 'text/plain' }, body: '' };
  return p.error(status, variant, model);
}

export const json = (status: number, body: unknown, headers: Record<string, string> = {}): SimResponse => ({
  status,
  headers: { 'Content-Type': 'application/json', ...headers },
  body: JSON.stringify(body),
});

/** A model as OpenAI's `/models` lists it. */
export const openAiModel = (model: SimModel) => ({
  id: model.id,
  object: 'model',
  created: model.created,
  owned_by: model.ownedBy,
});

/** A key as upstreams echo it in auth errors: its ends only. */
export const maskKey = (key: string | undefined): string => (key ? `${key.slice(0, 4)}***${key.slice(-2)}` : '');
