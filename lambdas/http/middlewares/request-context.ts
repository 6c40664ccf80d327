import { randomUUID } from 'node:crypto';
import type { RouteSpec } from '../../../lib/routes.js';
import { configuration } from '../../config/configuration.js';
import { normalizeEvent } from '../request.js';
import { beginCall, type GatewayMiddleware } from './state.js';

const CLIENT_REQUEST_ID = /^[A-Za-z0-9._:-]{8,128}$/;

/**
 * Begins the call beside the event: the normalised request, the request id and start time, and
 * the abort signal, and the instance's configuration. The event itself stays as Lambda sent it.
 */
export function requestContext(route: RouteSpec): GatewayMiddleware {
  return {
    before: (request) => {
      const req = normalizeEvent(request.event, route);
      const offered = req.headers['x-request-id'];
      const requestId = offered && CLIENT_REQUEST_ID.test(offered) ? offered : randomUUID();
      const { signal, finish, deadline } = callLifetime(request.context as { getRemainingTimeInMillis?: () => number });
      beginCall(request, {
        route,
        req,
        requestId,
        startedAt: new Date(),
        config: configuration(),
        responseHeaders: { 'X-Request-ID': requestId },
        signal,
        finish,
        ...(deadline === undefined ? {} : { deadline }),
        afterResponse: [],
      });
    },
  };
}

/** Stop upstream work this long before Lambda would kill the function, so usage is still written. */
const TIMEOUT_MARGIN_MS = 1_000;

/**
 * Abort reasons, made once: an Error built per call captures a stack trace (source-mapped
 * under tsx and `--enable-source-maps`), which cost more than the rest of the call's setup.
 */
const CALL_FINISHED = new Error('call finished');
const TIMEOUT_APPROACHING = new Error('function timeout approaching');

/** Whether a call's signal was aborted because the function is about to run out of time. */
export const endedByTimeout = (signal: AbortSignal): boolean => signal.aborted && signal.reason === TIMEOUT_APPROACHING;

function callLifetime(context: { getRemainingTimeInMillis?: () => number }) {
  const controller = new AbortController();
  const remaining = context.getRemainingTimeInMillis?.();
  const timer =
    remaining === undefined
      ? undefined
      : setTimeout(() => controller.abort(TIMEOUT_APPROACHING), Math.max(0, remaining - TIMEOUT_MARGIN_MS));
  timer?.unref();
  const finish = () => {
    clearTimeout(timer);
    if (!controller.signal.aborted) controller.abort(CALL_FINISHED);
  };
  const deadline = remaining === undefined ? undefined : Date.now() + remaining;
  return { signal: controller.signal, finish, deadline };
}
