/**
 * The upstream chat providers: four vendors and one aggregator a caller can bring their own key
 * for, and Amazon Bedrock, which the gateway calls with its function role (no key, no BYOK).
 * Data only: no environment reads, no I/O. Configuration code reads `<envStem>_BASE_URL` and
 * `<envStem>_API_KEY` (see `baseUrlEnvVar` / `apiKeyEnvVar`; a keyless provider reads only the
 * base URL); the local runtime points the base URLs at its simulators.
 */

export const PROVIDER_IDS = ['openai', 'anthropic', 'google', 'xai', 'openrouter', 'bedrock'] as const;

export type ProviderId = (typeof PROVIDER_IDS)[number];

/** The request/response dialect an adapter must speak to this provider's chat endpoint. */
export type WireFormat = 'openai-compatible' | 'anthropic' | 'gemini' | 'bedrock-converse';

/**
 * `vendor` serves its own models; `aggregator` resells many vendors' models under `vendor/model`
 * ids; `cloud` hosts many vendors' models in the deploying AWS account (Bedrock).
 */
export type ProviderKind = 'vendor' | 'aggregator' | 'cloud';

/**
 * How the gateway authenticates to the provider: an API key (the platform's, or a caller's own
 * stored key), or the function role's AWS credentials (SigV4): then no key exists to store.
 */
export type ProviderCredential = 'api-key' | 'aws-role';

export interface ProviderInfo {
  readonly id: ProviderId;
  readonly name: string;
  readonly kind: ProviderKind;
  readonly wireFormat: WireFormat;
  /**
   * Default base URL, exactly as in the upstream reference (docs/upstreams.md §0.2). What the
   * adapter appends differs per wire format:
   * - openai-compatible: `/chat/completions`, `/models` (the base already ends in `/v1`);
   * - anthropic: `/v1/messages`, `/v1/models` (the base has no version segment);
   * - gemini: `/models/{model}:generateContent` etc. (the base already ends in `/v1beta`).
   */
  readonly defaultBaseUrl: string;
  /** Stem of the local configuration variables `<STEM>_BASE_URL` and `<STEM>_API_KEY`. */
  readonly envStem: string;
  readonly credential: ProviderCredential;
}

export const PROVIDERS: Readonly<Record<ProviderId, ProviderInfo>> = Object.freeze({
  openai: Object.freeze({
    id: 'openai',
    name: 'OpenAI',
    kind: 'vendor',
    wireFormat: 'openai-compatible',
    defaultBaseUrl: 'https://api.openai.com/v1',
    envStem: 'OPENAI',
    credential: 'api-key',
  }),
  anthropic: Object.freeze({
    id: 'anthropic',
    name: 'Anthropic',
    kind: 'vendor',
    wireFormat: 'anthropic',
    defaultBaseUrl: 'https://api.anthropic.com',
    envStem: 'ANTHROPIC',
    credential: 'api-key',
  }),
  google: Object.freeze({
    id: 'google',
    name: 'Google Gemini',
    kind: 'vendor',
    wireFormat: 'gemini',
    defaultBaseUrl: 'https://generativelanguage.googleapis.com/v1beta',
    envStem: 'GOOGLE',
    credential: 'api-key',
  }),
  xai: Object.freeze({
    id: 'xai',
    name: 'xAI',
    kind: 'vendor',
    wireFormat: 'openai-compatible',
    defaultBaseUrl: 'https://api.x.ai/v1',
    envStem: 'XAI',
    credential: 'api-key',
  }),
  openrouter: Object.freeze({
    id: 'openrouter',
    name: 'OpenRouter',
    kind: 'aggregator',
    wireFormat: 'openai-compatible',
    defaultBaseUrl: 'https://openrouter.ai/api/v1',
    envStem: 'OPENROUTER',
    credential: 'api-key',
  }),
  bedrock: Object.freeze({
    id: 'bedrock',
    name: 'Amazon Bedrock',
    kind: 'cloud',
    wireFormat: 'bedrock-converse',
    // The region's endpoint is `https://bedrock-runtime.<region>.amazonaws.com`: the configured
    // region replaces this one (lambdas/providers/provider-config.ts).
    defaultBaseUrl: 'https://bedrock-runtime.us-east-1.amazonaws.com',
    envStem: 'BEDROCK',
    credential: 'aws-role',
  }),
});

/** The providers a caller may store their own key for (POST /api/v1/provider-keys). */
export const KEYED_PROVIDER_IDS: readonly ProviderId[] = PROVIDER_IDS.filter(
  (id) => PROVIDERS[id].credential === 'api-key',
);

export function isProviderId(value: unknown): value is ProviderId {
  return typeof value === 'string' && (PROVIDER_IDS as readonly string[]).includes(value);
}

/** e.g. `OPENAI_BASE_URL`. */
export function baseUrlEnvVar(provider: ProviderId): string {
  return `${PROVIDERS[provider].envStem}_BASE_URL`;
}

/** e.g. `OPENAI_API_KEY`. */
export function apiKeyEnvVar(provider: ProviderId): string {
  return `${PROVIDERS[provider].envStem}_API_KEY`;
}
