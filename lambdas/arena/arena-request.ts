import { createHash } from 'node:crypto';
import { fightCapableAliases, listFamilies, resolveFamily, type ModelFamily } from '../catalog/model-catalog.js';
import type { ChatMessage, ContentPart } from '../providers/chat-types.js';
import { compileConditional } from '../schema/compile.js';
import {
  checkPublicUrl,
  findPrivateResolution,
  MAX_PUBLIC_URL_CHARS,
  PUBLIC_URL_RULE,
  refusalText,
  type LookupOptions,
} from '../schema/public-url.js';
import { characterCount, exceedsCharacters, leadingCharacters } from '../schema/text-length.js';
import type { GatewayChatRequest } from '../chat/chat-request.js';
import { ArenaError, invalidArenaRequest } from './arena-errors.js';

/**
 * The chat-mode request (docs/interface.md §4.3 ChatRequest) and the session plan made from it: who the
 * agents are, how many rounds, what style. Limits beyond the interface's (history size, image URL)
 * are documented in README.md (chat modes).
 */
export interface ArenaRequestBody {
  message: string;
  mode?: unknown;
  model?: string;
  models?: string[] | string;
  image_url?: string;
  messages?: { role: 'user' | 'assistant' | 'system'; content: string }[];
  rounds?: number;
  agentMode?: string;
  fightStyle?: unknown;
  stream?: boolean;
  /** Fight only: a synthesis after the last round, by the winner's model or the alias named. */
  synthesize?: boolean | string;
}

export type ArenaMode = 'battle' | 'fight';
export type FightStyle = 'brawl' | 'blitz';

export const MAX_MESSAGE_CHARS = 2000;
export const MAX_HISTORY_TURNS = 100;
export const MAX_HISTORY_TURN_CHARS = 20_000;
export const MAX_HISTORY_CHARS = 100_000;
export const MAX_ROUNDS = 10;
export const MAX_FIGHT_AGENTS = 8;
export const INSTANCES = 4;
/** Agents of different models sample at the gateway's default temperature (docs/interface.md §2.2). */
export const AGENT_TEMPERATURE = 0.7;
/**
 * Multi-instance sampling: instance i gets INSTANCE_TEMPERATURES[i-1] and its own seed. All
 * within 0..1, which every provider accepts as given (Anthropic's range ends at 1).
 */
export const INSTANCE_TEMPERATURES: readonly number[] = [0.2, 0.5, 0.8, 1.0];

const IMAGE_URL_RULE = `${PUBLIC_URL_RULE} of at most ${MAX_PUBLIC_URL_CHARS} characters`;

/** Several providers refuse empty or blank turns: say so here rather than as their 400. */
const nonBlank = (maxLength: number) => ({
  type: 'string',
  minLength: 1,
  maxLength,
  pattern: '\\S',
  'x-message': { pattern: 'must be text that is not empty or blank' },
});

/** The ChatRequest fields (docs/interface.md §4.3) every chat-mode body shares. */
export const chatModeProperties = {
  message: nonBlank(MAX_MESSAGE_CHARS),
  model: { type: 'string', minLength: 1, maxLength: 200 },
  models: {
    anyOf: [
      { type: 'array', maxItems: 16, items: { type: 'string', minLength: 1, maxLength: 200 } },
      { type: 'string', maxLength: 2000 },
    ],
    'x-message': { anyOf: 'must be an array of model aliases or a comma-separated string' },
  },
  image_url: {
    type: 'string',
    maxLength: MAX_PUBLIC_URL_CHARS,
    pattern: '^https?://\\S+$',
    'x-message': { pattern: PUBLIC_URL_RULE, maxLength: IMAGE_URL_RULE },
  },
  messages: {
    type: 'array',
    maxItems: MAX_HISTORY_TURNS,
    items: {
      type: 'object',
      required: ['role', 'content'],
      properties: {
        role: { enum: ['user', 'assistant', 'system'] },
        content: nonBlank(MAX_HISTORY_TURN_CHARS),
      },
    },
  },
  rounds: { type: 'integer', minimum: 1, maximum: MAX_ROUNDS },
  agentMode: { type: 'string', maxLength: 200 },
  stream: { type: 'boolean' },
  synthesize: {
    anyOf: [{ type: 'boolean' }, { type: 'string', minLength: 1, maxLength: 200 }],
    'x-message': { anyOf: 'must be true, false, or the alias of the model that writes the synthesis' },
  },
};

/** POST /api/v1/battle and /api/v1/fight: `mode` is not required and is ignored. */
export const arenaRequestSchema = {
  type: 'object',
  required: ['message'],
  properties: chatModeProperties,
};

export const arenaRequestValidator = compileConditional<ArenaRequestBody>(arenaRequestSchema);

export type LegacyMode = 'chat' | ArenaMode;

/** POST /api/chat: the same body with a required `mode`. */
export const legacyChatRequestSchema = {
  type: 'object',
  required: ['message', 'mode'],
  properties: { ...chatModeProperties, mode: { enum: ['chat', 'battle', 'fight'] } },
};

export const legacyChatRequestValidator = compileConditional<ArenaRequestBody & { mode: LegacyMode }>(
  legacyChatRequestSchema,
);

/** One agent of a session: a neutral label for what peers see, a model, its sampling. */
export interface ArenaAgent {
  /** The id events carry: the family alias, or `<alias>-<n>` in multi-instance mode. */
  readonly id: string;
  /** How peers and ballots-to-be see it: `Agent 1`, `Agent 2`... never a model name. */
  readonly label: string;
  /** The family alias the chat core routes (its fallback routes included). */
  readonly alias: string;
  /** The family's default model id, announced in agent_start. */
  readonly model: string;
  readonly temperature: number;
  readonly seed: number;
}

export interface ArenaPlan {
  readonly mode: ArenaMode;
  /** Fight only. */
  readonly style?: FightStyle;
  readonly multiInstance: boolean;
  readonly agents: readonly ArenaAgent[];
  readonly rounds: number;
  readonly question: string;
  readonly history: readonly ChatMessage[];
  readonly imageUrl?: string;
  readonly stream: boolean;
  /** Seeds agents' sampling, ballot orders and draws: a session replays from it. */
  readonly seed: string;
  /** A synthesis after the last round (fight only); `alias` names its writer, else the winner's model writes it. */
  readonly synthesize?: { readonly alias?: string };
}

/** Validated body → session plan; every refusal names its field. */
export function planArena(mode: ArenaMode, body: ArenaRequestBody, seed: string): ArenaPlan {
  const stream = body.stream ?? true;
  if (mode === 'fight' && !stream)
    throw new ArenaError('streaming_required', 'stream: fight answers only as a stream; send stream:true', {
      field: 'stream',
    });
  checkHistory(body.messages ?? []);
  const style = mode === 'fight' ? fightStyleOf(body.fightStyle) : undefined;
  const multi = body.agentMode === undefined ? undefined : multiInstanceFamily(mode, body.agentMode);
  const agents = multi ? instancesOf(multi, seed) : distinctAgents(mode, body.models, seed);
  return {
    mode,
    ...(style ? { style } : {}),
    multiInstance: multi !== undefined,
    agents,
    rounds: mode === 'fight' ? (body.rounds ?? 1) : 1,
    question: body.message,
    history: (body.messages ?? []).map((turn) => ({ role: turn.role, content: turn.content })),
    ...(body.image_url ? { imageUrl: checkImageUrl(body.image_url) } : {}),
    stream,
    seed,
    ...synthesisOf(mode, body.synthesize),
  };
}

/** `synthesize`: fight only; a string must name a family (its alias routes the writer's call). */
function synthesisOf(mode: ArenaMode, value: boolean | string | undefined): Pick<ArenaPlan, 'synthesize'> {
  if (value === undefined || value === false) return {};
  if (mode !== 'fight')
    throw invalidArenaRequest('synthesize', 'synthesize: a synthesis follows a fight’s votes; a battle has none');
  if (value === true) return { synthesize: {} };
  const family = resolveFamily(value);
  if (!family)
    throw invalidArenaRequest(
      'synthesize',
      `synthesize: ${value.slice(0, 40)} is not a model alias; use one of ${listFamilies()
        .map((f) => f.alias)
        .join(', ')}`,
    );
  return { synthesize: { alias: family.alias } };
}

/**
 * Every agent's provider fetches the image itself (or a describing model does), so it must
 * pass the caller-URL policy (lambdas/schema/public-url.ts); the schema has checked the scheme
 * and length already.
 */
function checkImageUrl(imageUrl: string): string {
  const check = checkPublicUrl(imageUrl);
  if (!check.ok) throw invalidArenaRequest('image_url', `image_url: ${refusalText(IMAGE_URL_RULE, check.reason)}`);
  return imageUrl;
}

/**
 * The caller-URL policy's second step, once per session before any agent turn: the image's
 * host name resolved, and refused when it resolves to an address that is not public.
 */
export async function checkArenaImageHost(
  plan: Pick<ArenaPlan, 'imageUrl'>,
  options: LookupOptions = {},
): Promise<void> {
  const check = plan.imageUrl === undefined ? undefined : checkPublicUrl(plan.imageUrl);
  if (!check?.ok || check.name === undefined) return;
  const refusal = await findPrivateResolution([{ field: 'image_url', name: check.name }], options);
  if (refusal?.kind === 'not_public')
    throw invalidArenaRequest('image_url', `image_url: ${refusalText(PUBLIC_URL_RULE, refusal.reason)}`);
}

/** Unknown styles fall back to brawl (docs/interface.md §4.3); session_start echoes the style used. */
function fightStyleOf(value: unknown): FightStyle {
  return value === 'blitz' ? 'blitz' : 'brawl';
}

function checkHistory(turns: readonly { content: string }[]): void {
  const total = turns.reduce((sum, turn) => sum + characterCount(turn.content), 0);
  if (total > MAX_HISTORY_CHARS)
    throw invalidArenaRequest(
      'messages',
      `messages: prior turns may hold at most ${MAX_HISTORY_CHARS} characters together (every agent reads them each round)`,
    );
}

function multiInstanceFamily(mode: ArenaMode, agentMode: string): ModelFamily {
  if (mode !== 'fight') throw invalidArenaRequest('agentMode', 'agentMode: multi-instance runs inside fight mode only');
  const alias = /^multiple-(.+)$/.exec(agentMode)?.[1];
  const family = alias === undefined ? undefined : resolveFamily(alias);
  if (!family || !family.fightCapable || family.alias !== alias)
    throw invalidArenaRequest(
      'agentMode',
      `agentMode: must be multiple-<alias> for one of ${fightCapableAliases().join(', ')}`,
    );
  return family;
}

function instancesOf(family: ModelFamily, seed: string): ArenaAgent[] {
  return INSTANCE_TEMPERATURES.slice(0, INSTANCES).map((temperature, i) => {
    const id = `${family.alias}-${i + 1}`;
    return {
      id,
      label: `Agent ${i + 1}`,
      alias: family.alias,
      model: family.defaultModel,
      temperature,
      seed: seedOf(seed, id),
    };
  });
}

function distinctAgents(mode: ArenaMode, models: ArenaRequestBody['models'], seed: string): ArenaAgent[] {
  const names = models === undefined ? undefined : typeof models === 'string' ? splitList(models) : models;
  if (names === undefined && mode === 'battle')
    throw invalidArenaRequest('models', 'models: battle needs exactly two model aliases');
  const families = (names ?? fightCapableAliases()).map((name, i) => familyOf(mode, name, models, i));
  const count = families.length;
  if (mode === 'battle' && count !== 2)
    throw invalidArenaRequest('models', `models: battle needs exactly two model aliases, got ${count}`);
  if (mode === 'fight' && (count < 2 || count > MAX_FIGHT_AGENTS))
    throw invalidArenaRequest('models', `models: fight needs 2 to ${MAX_FIGHT_AGENTS} model aliases, got ${count}`);
  const seen = new Set<string>();
  for (const family of families) {
    if (seen.has(family.alias))
      throw invalidArenaRequest(
        'models',
        `models: ${family.alias} is listed twice; each agent must be a different model`,
      );
    seen.add(family.alias);
  }
  return families.map((family, i) => ({
    id: family.alias,
    label: `Agent ${i + 1}`,
    alias: family.alias,
    model: family.defaultModel,
    temperature: AGENT_TEMPERATURE,
    seed: seedOf(seed, family.alias),
  }));
}

function splitList(list: string): string[] {
  return list
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
}

function familyOf(mode: ArenaMode, name: string, models: ArenaRequestBody['models'], i: number): ModelFamily {
  const field = Array.isArray(models) ? `models[${i}]` : 'models';
  const family = resolveFamily(name);
  if (!family)
    throw invalidArenaRequest(field, `${field}: "${clip(name)}" is not a known model alias (see GET /api/v1/models)`);
  if (mode === 'fight' && !family.fightCapable)
    throw invalidArenaRequest(field, `${field}: ${family.alias} cannot take part in a fight`);
  return family;
}

const clip = (text: string) => (exceedsCharacters(text, 60) ? `${leadingCharacters(text, 60)}…` : text);

/** An agent's seed: stable for a session seed and agent, so a session replays. */
function seedOf(sessionSeed: string, agent: string): number {
  return createHash('sha256').update(`${sessionSeed}:${agent}`).digest().readUInt32BE(0);
}

/** The legacy route's `chat` mode: the same body, answered as chat completions answers. */
export function singleModelRequest(body: ArenaRequestBody): GatewayChatRequest {
  if (body.model === undefined) throw invalidArenaRequest('model', 'model: chat mode needs a model alias');
  checkHistory(body.messages ?? []);
  return {
    model: body.model,
    messages: [
      ...(body.messages ?? []),
      userTurn(body.message, body.image_url ? checkImageUrl(body.image_url) : undefined),
    ],
    stream: body.stream ?? true,
  };
}

/** The caller's message as a user turn, with its image when it has one. */
export function userTurn(text: string, imageUrl?: string): ChatMessage {
  if (!imageUrl) return { role: 'user', content: text };
  const parts: ContentPart[] = [
    { type: 'text', text },
    { type: 'image_url', image_url: { url: imageUrl } },
  ];
  return { role: 'user', content: parts };
}
