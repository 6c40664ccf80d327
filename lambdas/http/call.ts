import type { RouteSpec } from '../../lib/routes.js';
import type { Principal } from '../identity/principal.js';
import type { GatewayRequest } from './request.js';

/**
 * Everything known about one call, built up by the middlewares and handed to the handler in
 * place of the raw Lambda event.
 */
export interface GatewayCall<Body = unknown> {
  readonly route: RouteSpec;
  readonly req: GatewayRequest;
  /** X-Request-ID: the caller's if it sent a sane one, else ours. */
  readonly requestId: string;
  readonly startedAt: Date;
  principal?: Principal;
  body: Body;
  /** Headers every response of this call carries (request id, rate limit, CORS). */
  readonly responseHeaders: Record<string, string>;
  /**
   * Aborted when the client disconnects (streaming), when the function is about to time out,
   * and once the response is written: upstream calls pass it on, so nothing outlives the call.
   */
  readonly signal: AbortSignal;
  /** Ends the call's work: aborts `signal` and stops the timeout watch. */
  readonly finish: () => void;
  /**
   * Work to run once the response is complete (usage writes): off the client's path. On
   * streaming routes it runs after the last byte; Lambda keeps the function alive for it.
   */
  readonly afterResponse: (() => Promise<void>)[];
}
