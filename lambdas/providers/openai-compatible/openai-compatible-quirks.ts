import type { ProviderId } from '../../catalog/model-catalog.js';
import type { FailureKind } from '../upstream-failure.js';

/**
 * Where the OpenAI-compatible upstreams differ from OpenAI (docs/upstreams.md §1, §4.1, §4.2):
 * data the adapter reads, so its logic never names a provider.
 */
export interface OpenAiCompatibleQuirks {
  /** Sent on every request. */
  readonly headers: Readonly<Record<string, string>>;
  /**
   * The upstream reports usage in a stream only when asked with
   * `stream_options.include_usage`; otherwise it always does and the option is a no-op.
   */
  readonly streamUsageNeedsOption: boolean;
  /** The name the upstream reads the output-token limit from. */
  readonly maxTokensField: 'max_tokens' | 'max_completion_tokens';
  /** Checked before the status defaults, first match wins. */
  readonly errorRules: readonly ErrorRule[];
}

/** Every given condition must hold. */
export interface ErrorRule {
  readonly status?: number;
  /** Matches the error's `code` or `type` (or OpenRouter's `metadata.error_type`). */
  readonly codes?: readonly string[];
  readonly message?: RegExp;
  readonly kind: FailureKind;
}

export const OPENAI_COMPATIBLE_QUIRKS: Readonly<Partial<Record<ProviderId, OpenAiCompatibleQuirks>>> = {
  openai: {
    headers: {},
    streamUsageNeedsOption: true,
    // Reasoning models (gpt-5, o-series) reject `max_tokens`; every chat model takes this one.
    maxTokensField: 'max_completion_tokens',
    errorRules: [
      // Both are 429s, but billing is not transient: waiting does not help.
      { status: 429, codes: ['insufficient_quota', 'credit_balance_exhausted'], kind: 'quota' },
    ],
  },
  xai: {
    headers: {},
    streamUsageNeedsOption: true,
    maxTokensField: 'max_tokens',
    errorRules: [
      // xAI answers a wrong key with HTTP 400 and `{code, error}` text (observed).
      { status: 400, message: /\b(incorrect|invalid|no) api key\b/i, kind: 'auth' },
    ],
  },
  openrouter: {
    // Attribution: OpenRouter lists apps by title. No `HTTP-Referer`: a deployment has no
    // site URL of its own, and a made-up one would credit someone else's site.
    headers: { 'X-OpenRouter-Title': 'AI Gateway' },
    // Usage always comes in the final chunk; `stream_options.include_usage` is a deprecated no-op.
    streamUsageNeedsOption: false,
    maxTokensField: 'max_tokens',
    errorRules: [
      { status: 403, message: /flagged|moderation/i, kind: 'content_filter' },
      // A 400 whose `metadata.error_type` says the content was refused.
      { codes: ['content_policy_violation', 'refusal'], kind: 'content_filter' },
    ],
  },
};

const PLAIN_OPENAI: OpenAiCompatibleQuirks = {
  headers: {},
  streamUsageNeedsOption: true,
  maxTokensField: 'max_tokens',
  errorRules: [],
};

/** A provider without an entry speaks plain OpenAI (e.g. another OpenAI-compatible host). */
export const quirksFor = (provider: ProviderId): OpenAiCompatibleQuirks =>
  OPENAI_COMPATIBLE_QUIRKS[provider] ?? PLAIN_OPENAI;
