import type { Context } from 'aws-lambda';
import { logger } from '../../config/logger.js';
import { requireCall, type GatewayMiddleware } from './state.js';

/**
 * Per-call log keys: the Lambda context (function, cold start, AWS request id) plus the
 * gateway's request id and route on every line of the call. Keys are cleared when a call
 * begins, not when its handler returns: a stream and the work after the response still log
 * under their call. Where calls overlap (the local runtime; Lambda managed instances) Powertools
 * keeps these keys per invocation.
 */
export function callLogKeys(): GatewayMiddleware {
  return {
    before: (request) => {
      const call = requireCall(request);
      logger.resetKeys();
      logger.addContext(request.context as Context);
      logger.appendKeys({ requestId: call.requestId, route: call.route.id });
    },
  };
}

/** After authentication: the account the call acts for (never the key, token or session). */
export function principalLogKeys(): GatewayMiddleware {
  return {
    before: (request) => {
      const principal = requireCall(request).principal;
      if (!principal || principal.kind === 'admin') return;
      logger.appendKeys({ accountId: principal.accountId });
    },
  };
}
