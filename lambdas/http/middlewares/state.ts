import type { MiddlewareObj, Request } from '@middy/core';
import type { GatewayCall } from '../call.js';
import type { LambdaHttpEvent } from '../request.js';

/**
 * The first middleware replaces the raw event with a GatewayCall; the ones after it read and
 * extend that call. Errors raised before the replacement find no call and fall back to the
 * raw event in the response writer.
 */
export type GatewayMiddyRequest = Request<LambdaHttpEvent | GatewayCall, unknown, Error>;
export type GatewayMiddleware = MiddlewareObj<LambdaHttpEvent | GatewayCall, unknown, Error>;

export function callOf(request: GatewayMiddyRequest): GatewayCall | undefined {
  const event = request.event as Partial<GatewayCall>;
  return event.responseHeaders && event.route ? (event as GatewayCall) : undefined;
}

export function requireCall(request: GatewayMiddyRequest): GatewayCall {
  const call = callOf(request);
  if (!call) throw new Error('the request-context middleware must run first');
  return call;
}
