import { baseUrlEnvVar, apiKeyEnvVar, PROVIDERS } from '../lambdas/catalog/model-catalog.js';
import { ENV } from '../lambdas/config/environment.js';

/**
 * Which engine the local runtime's `content_moderation` uses (`$GATEWAY_MODERATION`):
 * - `local` (the default): the functions' own rule set, as a stack without `guardrailId` or
 *   `moderationUrl`;
 * - `openai`: the OpenAI moderation API, wired as the stack wires `moderationUrl`: the URL in
 *   GUARDRAILS_MODERATION_URL and the key in a Secrets Manager secret (the stand-in's) named by
 *   GUARDRAILS_MODERATION_KEY_SECRET_ID. The API is the OpenAI simulator's `/v1/moderations`
 *   (flagging by `[sim:flag]`), or OpenAI's own with a real OPENAI_API_KEY.
 * (GUARDRAILS_MODERATION_URL with GUARDRAILS_MODERATION_KEY in `npm start`'s own environment
 * also reach the functions, for any other OpenAI-compatible endpoint.)
 */
export type LocalModeration = 'local' | 'openai';

/** The secret that holds the moderation key locally, as the stack's ModerationKey secret does. */
export const LOCAL_MODERATION_KEY_SECRET = 'gateway/moderation-key';

export function parseLocalModeration(raw: string | undefined): LocalModeration {
  const value = (raw ?? '').trim();
  if (value === '' || value === 'local') return 'local';
  if (value === 'openai') return 'openai';
  throw new Error(`GATEWAY_MODERATION "${raw}" must be local or openai`);
}

export interface ModerationWiring {
  /** The key, to be stored in LOCAL_MODERATION_KEY_SECRET before any request. */
  readonly key: string;
  /** What the functions read (lambdas/config/configuration.ts `moderation`). */
  readonly environment: Record<string, string>;
}

/**
 * For `openai`, the moderation API of whatever serves the `openai` provider in `env` (the
 * runtime's environment with the simulators' `OPENAI_BASE_URL` / `OPENAI_API_KEY`).
 */
export function moderationWiring(
  moderation: LocalModeration,
  env: Readonly<Record<string, string | undefined>>,
): ModerationWiring | undefined {
  if (moderation === 'local') return undefined;
  const key = env[apiKeyEnvVar('openai')];
  if (!key) throw new Error(`GATEWAY_MODERATION=openai needs ${apiKeyEnvVar('openai')} (the simulator sets one)`);
  const base = (env[baseUrlEnvVar('openai')] || PROVIDERS.openai.defaultBaseUrl).replace(/\/+$/, '');
  return {
    key,
    environment: {
      [ENV.moderationUrl]: base,
      [ENV.moderationKeySecretId]: LOCAL_MODERATION_KEY_SECRET,
    },
  };
}
