import type { MiddlewareObj, Request } from '@middy/core';
import type { CallState } from '../call.js';
import type { LambdaHttpEvent } from '../request.js';

/**
 * Each invocation's call, kept beside the Lambda event (which stays as Lambda sent it), by the
 * invocation's context object: the middlewares, the handler and the response writer of one
 * invocation reach its one call, and concurrent invocations never meet.
 */
const calls = new WeakMap<object, CallState>();

export type GatewayMiddyRequest = Request<LambdaHttpEvent, unknown, Error>;
export type GatewayMiddleware = MiddlewareObj<LambdaHttpEvent, unknown, Error>;

/** The request-context middleware's part: the call of this invocation begins. */
export function beginCall(request: GatewayMiddyRequest, call: CallState): void {
  calls.set(request.context, call);
}

/** The invocation's call, if its request-context middleware has run (errors before it find none). */
export function callOf(request: Pick<GatewayMiddyRequest, 'context'>): CallState | undefined {
  return calls.get(request.context);
}

export function requireCall(request: Pick<GatewayMiddyRequest, 'context'>): CallState {
  const call = callOf(request);
  if (!call) throw new Error('the request-context middleware must run first');
  return call;
}
