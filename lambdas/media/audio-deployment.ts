import { MEDIA_PROVIDERS } from '../catalog/media-providers.js';
import type { GatewayConfiguration } from '../config/configuration.js';
import { send, type TransportRequest, type TransportResponse } from '../providers/http-transport.js';
import { platformEndpointOf, type ProviderEndpoint } from '../providers/provider-config.js';

/** What the speech and music cores need from the world: MiniMax's endpoint and HTTP. */
export interface AudioDeps {
  /** The platform's MiniMax endpoint; undefined when this deployment has no key for it. */
  readonly endpoint: () => Promise<ProviderEndpoint | undefined>;
  readonly send: (request: TransportRequest) => Promise<TransportResponse>;
}

/**
 * In a deployment: `MINIMAX_BASE_URL`/`MINIMAX_API_KEY` (the local runtime points them at the
 * MiniMax fake), else the platform keys secret's `minimax` entry; real HTTP.
 */
export function deploymentAudioDeps(config: GatewayConfiguration): AudioDeps {
  return { endpoint: () => platformEndpointOf(MEDIA_PROVIDERS.minimax, config), send };
}

/** One upstream call as metered: what was asked of MiniMax and how it went. */
export interface AudioAttempt {
  /** MiniMax's model id, e.g. `speech-2.6-hd`. */
  readonly model: string;
  readonly quantity: number;
  /** The quantity is the gateway's count because MiniMax reported none. */
  readonly estimated: boolean;
  /** MiniMax's HTTP status (0 when none was received). */
  readonly status: number;
  /** `ok`, or the failure kind. */
  readonly outcome: string;
}
