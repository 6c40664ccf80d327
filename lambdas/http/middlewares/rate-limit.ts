import { rateLimited } from '../errors.js';
import { consume } from '../../store/rate-limit-windows.js';
import type { Principal } from '../../identity/principal.js';
import { requireCall, type GatewayMiddleware } from './state.js';

/** Dashboard sessions have no key to carry a limit; they share this per-session one. */
export const SESSION_RATE_LIMIT = 600;

/**
 * Per-key requests per minute, counted in DynamoDB so every instance shares one count.
 * Every response of a limited route carries the three rate headers, refusals included.
 */
export function rateLimit(): GatewayMiddleware {
  return {
    before: async (request) => {
      const call = requireCall(request);
      if (!call.route.rateLimited || !call.principal) return;
      const bucket = bucketOf(call.principal);
      if (!bucket) return;
      const now = Date.now();
      const state = await consume(bucket.id, bucket.limit, now);
      const resetSeconds = Math.ceil(state.resetAtMs / 1000);
      Object.assign(call.responseHeaders, {
        'X-RateLimit-Limit': String(bucket.limit),
        'X-RateLimit-Remaining': String(Math.max(0, bucket.limit - state.count)),
        'X-RateLimit-Reset': String(resetSeconds),
      });
      if (!state.allowed) throw rateLimited(Math.max(1, Math.ceil((state.resetAtMs - now) / 1000)));
    },
  };
}

function bucketOf(principal: Principal): { id: string; limit: number } | undefined {
  switch (principal.kind) {
    case 'secretKey':
    case 'publishableKey':
      return { id: `key:${principal.keyId}`, limit: principal.rateLimit };
    case 'session':
      return { id: `session:${principal.sessionHash}`, limit: SESSION_RATE_LIMIT };
    case 'admin':
      return undefined;
  }
}
