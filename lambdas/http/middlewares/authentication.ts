import { authenticate } from '../../identity/authenticate.js';
import { refreshDueKeys } from '../../identity/key-directory.js';
import { requireCall, type GatewayMiddleware } from './state.js';

/** Routes with no schemes are public; the rest resolve a principal or fail with 401/403. */
export function authentication(): GatewayMiddleware {
  return {
    before: async (request) => {
      const call = requireCall(request);
      if (call.route.auth.length === 0) return;
      call.principal = await authenticate(call.req, call.route.auth, {
        adminTokenSecretId: call.config.adminTokenSecretId,
        allowedOrigins: call.config.allowedOrigins,
        mayReadAdminToken: call.route.grants.includes('adminToken:read'),
      });
      // Key records this call found near the end of their cache life are read again once it
      // has answered, so the next call finds them fresh without waiting.
      call.afterResponse.push(refreshDueKeys);
    },
  };
}
