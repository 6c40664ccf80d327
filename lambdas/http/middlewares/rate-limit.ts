import { rateLimited } from '../errors.js';
import { retryAfterSeconds } from '../../errors/domain-error.js';
import { RateAllowances } from '../rate-allowance.js';
import { admitRouteRequest, routeLimitError } from '../route-limits.js';
import type { Principal } from '../../identity/principal.js';
import { requireCall, type GatewayMiddleware } from './state.js';

/** Dashboard sessions have no key to carry a limit; they share this per-session one. */
export const SESSION_RATE_LIMIT = 600;

const allowances = new RateAllowances();
const leaseAhead = () => allowances.leaseAhead();

/**
 * Per-key requests per minute, counted in DynamoDB so every instance shares one count (leased
 * in blocks, from shard items above 1,000 a minute: see RateAllowances), or the route's own
 * window per key where the manifest gives one (route-limits.ts). Every response of a limited
 * route carries the three rate headers, refusals included. Runs before the body is read, so
 * malformed requests count too.
 */
export function rateLimit(): GatewayMiddleware {
  return {
    before: async (request) => {
      const call = requireCall(request);
      if (!call.route.rateLimited || !call.principal) return;
      const bucket = bucketOf(call.principal);
      if (!bucket) return;
      const own = call.route.perKeyLimit;
      if (own) {
        const admission = await admitRouteRequest(call.route.id, own, bucket.id);
        const { 'Retry-After': _retry, ...rateHeaders } = admission.headers;
        Object.assign(call.responseHeaders, rateHeaders);
        if (!admission.allowed) throw routeLimitError(own, admission);
        return;
      }
      const admission = await allowances.admit(bucket.id, bucket.limit);
      Object.assign(call.responseHeaders, {
        'X-RateLimit-Limit': String(bucket.limit),
        'X-RateLimit-Remaining': String(admission.remaining),
        'X-RateLimit-Reset': String(Math.ceil(admission.resetAtMs / 1000)),
      });
      if (!admission.allowed) throw rateLimited(retryAfterSeconds(admission.resetAtMs - Date.now()));
      call.afterResponse.push(leaseAhead);
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
