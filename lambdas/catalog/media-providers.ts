/**
 * The upstream media providers: MiniMax (speech, music, video and its file store) and FASHN
 * (fashion images and image-to-video). Data only, like providers.ts: configuration reads
 * `<envStem>_BASE_URL` and `<envStem>_API_KEY` (or the platform keys secret's entry named by
 * `id`); the local runtime points the base URLs at its simulators.
 */

export const MEDIA_PROVIDER_IDS = ['minimax', 'fashn'] as const;

export type MediaProviderId = (typeof MEDIA_PROVIDER_IDS)[number];

export interface MediaProviderInfo {
  readonly id: MediaProviderId;
  readonly name: string;
  /**
   * The API root, exactly as in the upstream reference (docs/upstreams.md §6.1, §7.1) plus its
   * version segment: adapters append the endpoint (`/t2a_v2`, `/run`, `/status/{id}`, ...).
   */
  readonly defaultBaseUrl: string;
  readonly envStem: string;
  /**
   * Each call is metered as an upstream attempt (speech, music), so its error rate is measured
   * and alarmed like a chat provider's; a provider met only through jobs is measured by them.
   */
  readonly meteredAttempts: boolean;
}

export const MEDIA_PROVIDERS: Readonly<Record<MediaProviderId, MediaProviderInfo>> = Object.freeze({
  minimax: Object.freeze({
    id: 'minimax',
    name: 'MiniMax',
    defaultBaseUrl: 'https://api.minimax.io/v1',
    envStem: 'MINIMAX',
    meteredAttempts: true,
  }),
  fashn: Object.freeze({
    id: 'fashn',
    name: 'FASHN',
    defaultBaseUrl: 'https://api.fashn.ai/v1',
    envStem: 'FASHN',
    meteredAttempts: false,
  }),
});
