import { randomUUID } from 'node:crypto';
import type { RouteSpec } from '../../../lib/routes.js';
import type { GatewayCall } from '../call.js';
import { normalizeEvent, type LambdaHttpEvent } from '../request.js';
import type { GatewayMiddleware } from './state.js';

const CLIENT_REQUEST_ID = /^[A-Za-z0-9._:-]{8,128}$/;

/** Normalises the event, fixes the request id and start time, and exposes the abort signal. */
export function requestContext(route: RouteSpec): GatewayMiddleware {
  return {
    before: (request) => {
      const req = normalizeEvent(request.event as LambdaHttpEvent, route);
      const offered = req.headers['x-request-id'];
      const requestId = offered && CLIENT_REQUEST_ID.test(offered) ? offered : randomUUID();
      const signal = (request.context as { signal?: AbortSignal }).signal ?? new AbortController().signal;
      const call: GatewayCall = {
        route,
        req,
        requestId,
        startedAt: new Date(),
        body: undefined,
        responseHeaders: { 'X-Request-ID': requestId },
        signal,
      };
      request.event = call;
    },
  };
}
