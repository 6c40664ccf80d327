import { authenticate } from '../../identity/authenticate.js';
import { requireCall, type GatewayMiddleware } from './state.js';

/** Routes with no schemes are public; the rest resolve a principal or fail with 401/403. */
export function authentication(): GatewayMiddleware {
  return {
    before: async (request) => {
      const call = requireCall(request);
      if (call.route.auth.length === 0) return;
      call.principal = await authenticate(call.req, call.route.auth);
    },
  };
}
