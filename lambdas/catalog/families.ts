/**
 * The ten text model families callers address by short alias. Data only.
 *
 * Rules the tests hold this table to:
 * - every alias (main or extra) is lowercase and names exactly one family, and no alias is
 *   also another family's model id;
 * - `routes` is the preference order: a family from one of the four BYOK vendors routes to
 *   the vendor first and to OpenRouter second (Claude then to Amazon Bedrock, called with the
 *   deployment's own AWS account); Amazon's own family routes to Bedrock only; the other
 *   families route through OpenRouter;
 * - `defaultModel` is the first route's model id;
 * - exactly eight families are fight-capable (docs/interface.md §4.3: `agentMode` `multiple-<alias>`
 *   exists for each of the eight; a fight with `models` omitted uses all eight).
 */

import type { ProviderId } from './providers.js';

export interface ModelRoute {
  readonly provider: ProviderId;
  /** The provider's own id for this family's model (OpenRouter uses `vendor/model` slugs). */
  readonly model: string;
}

export interface ModelFamily {
  /** Short lowercase alias callers send as `model` / in `models`. */
  readonly alias: string;
  /** Human name, reported as `_service.name` in the model list. */
  readonly name: string;
  /** Who makes the model; the model list reports `owned_by` as `<service>/<owner>`. */
  readonly owner: string;
  /** Other lowercase names accepted for the family. */
  readonly aliases: readonly string[];
  /** Accepts image parts directly; otherwise the gateway substitutes a description. */
  readonly vision: boolean;
  /** May take part in fight and multi-instance mode. */
  readonly fightCapable: boolean;
  /** The concrete model id reported for the family (the first route's model). */
  readonly defaultModel: string;
  /** Release of the default model, Unix seconds (the model list's `created`). */
  readonly created: number;
  /** Ordered upstream routes, most preferred first; never empty. */
  readonly routes: readonly ModelRoute[];
}

function family(f: ModelFamily): ModelFamily {
  return Object.freeze({
    ...f,
    aliases: Object.freeze([...f.aliases]),
    routes: Object.freeze(f.routes.map((r) => Object.freeze({ ...r }))),
  });
}

export const FAMILIES: readonly ModelFamily[] = Object.freeze([
  family({
    alias: 'gpt',
    name: 'GPT-5',
    owner: 'openai',
    aliases: ['chatgpt', 'gpt5'],
    vision: true,
    fightCapable: true,
    defaultModel: 'gpt-5',
    created: 1754524800, // 2025-08-07
    routes: [
      { provider: 'openai', model: 'gpt-5' },
      { provider: 'openrouter', model: 'openai/gpt-5' },
    ],
  }),
  family({
    alias: 'claude',
    name: 'Claude Sonnet 4.5',
    owner: 'anthropic',
    aliases: ['sonnet', 'claude-sonnet'],
    vision: true,
    fightCapable: true,
    defaultModel: 'claude-sonnet-4-5',
    created: 1759104000, // 2025-09-29
    routes: [
      { provider: 'anthropic', model: 'claude-sonnet-4-5' },
      { provider: 'openrouter', model: 'anthropic/claude-sonnet-4.5' },
      // The global cross-region inference profile: served from any commercial region (so any
      // region the stack is deployed in), at the lowest Bedrock price of the model.
      { provider: 'bedrock', model: 'global.anthropic.claude-sonnet-4-5-20250929-v1:0' },
    ],
  }),
  family({
    alias: 'gemini',
    name: 'Gemini 2.5 Pro',
    owner: 'google',
    aliases: ['gemini-pro', 'bard'],
    vision: true,
    fightCapable: true,
    defaultModel: 'gemini-2.5-pro',
    created: 1750118400, // 2025-06-17 (general availability)
    routes: [
      { provider: 'google', model: 'gemini-2.5-pro' },
      { provider: 'openrouter', model: 'google/gemini-2.5-pro' },
    ],
  }),
  family({
    alias: 'grok',
    name: 'Grok 4',
    owner: 'xai',
    aliases: ['grok4', 'x-ai'],
    vision: true,
    fightCapable: true,
    defaultModel: 'grok-4',
    created: 1752019200, // 2025-07-09
    routes: [
      { provider: 'xai', model: 'grok-4' },
      { provider: 'openrouter', model: 'x-ai/grok-4' },
    ],
  }),
  family({
    alias: 'deepseek',
    name: 'DeepSeek V3.2',
    owner: 'deepseek',
    aliases: ['deepseek-chat', 'ds'],
    vision: false,
    fightCapable: true,
    defaultModel: 'deepseek/deepseek-v3.2',
    created: 1764547200, // 2025-12-01
    routes: [{ provider: 'openrouter', model: 'deepseek/deepseek-v3.2' }],
  }),
  family({
    alias: 'qwen',
    name: 'Qwen3 235B A22B',
    owner: 'qwen',
    aliases: ['qwen3', 'alibaba'],
    vision: false,
    fightCapable: true,
    defaultModel: 'qwen/qwen3-235b-a22b-2507',
    created: 1753056000, // 2025-07-21
    routes: [{ provider: 'openrouter', model: 'qwen/qwen3-235b-a22b-2507' }],
  }),
  family({
    alias: 'mistral',
    name: 'Mistral Medium 3.1',
    owner: 'mistralai',
    aliases: ['mistral-medium', 'le-chat'],
    vision: true,
    fightCapable: true,
    defaultModel: 'mistralai/mistral-medium-3.1',
    created: 1754956800, // 2025-08-12
    routes: [{ provider: 'openrouter', model: 'mistralai/mistral-medium-3.1' }],
  }),
  family({
    alias: 'kimi',
    name: 'Kimi K2',
    owner: 'moonshotai',
    aliases: ['kimi-k2', 'moonshot'],
    vision: false,
    fightCapable: true,
    defaultModel: 'moonshotai/kimi-k2-0905',
    created: 1757030400, // 2025-09-05
    routes: [{ provider: 'openrouter', model: 'moonshotai/kimi-k2-0905' }],
  }),
  family({
    alias: 'llama',
    name: 'Llama 4 Scout',
    owner: 'meta-llama',
    aliases: ['meta', 'scout'],
    vision: true,
    // Not fight-capable: Scout is Meta's small, fast tier (17B active parameters), offered for
    // cheap chat, battle and image understanding. A fight agent must run the web-search tool
    // loop over several rounds, read every peer's answer and return a well-formed vote; Scout's
    // tool calling is not offered by every OpenRouter host and its judgement over long
    // multi-agent transcripts is the weakest of the nine, so it would skew voting.
    fightCapable: false,
    defaultModel: 'meta-llama/llama-4-scout',
    created: 1743811200, // 2025-04-05
    routes: [{ provider: 'openrouter', model: 'meta-llama/llama-4-scout' }],
  }),
  family({
    alias: 'nova',
    name: 'Amazon Nova Pro',
    owner: 'amazon',
    aliases: ['nova-pro', 'amazon-nova'],
    vision: true,
    // Not fight-capable: Bedrock is the family's only route, and a deployment whose account has
    // not enabled the model would leave every default fight one agent short.
    fightCapable: false,
    defaultModel: 'amazon.nova-pro-v1:0',
    created: 1733184000, // 2024-12-03
    routes: [{ provider: 'bedrock', model: 'amazon.nova-pro-v1:0' }],
  }),
]);
