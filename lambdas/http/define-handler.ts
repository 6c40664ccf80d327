import middy from '@middy/core';
import { routes, type RouteSpec } from '../../lib/routes.js';
import type { GatewayCall } from './call.js';
import type { Reply } from './reply.js';
import type { Validator } from '../schema/compile.js';
import { authentication } from './middlewares/authentication.js';
import { bodyValidation } from './middlewares/body-validation.js';
import { rateLimit } from './middlewares/rate-limit.js';
import { requestContext } from './middlewares/request-context.js';
import { responseWriter } from './middlewares/response-writing.js';
import { tracing } from './middlewares/tracing.js';
import { executionModeStreamedBody } from './streamify-execution.js';
import { callLogKeys, principalLogKeys } from './middlewares/observability.js';
import { callOf, type GatewayMiddleware, type GatewayMiddyRequest } from './middlewares/state.js';
import { logger } from '../config/logger.js';

export interface HandlerDefinition<Body> {
  /** Validates and types the JSON body; omit for routes without one. */
  readonly body?: Validator<Body>;
  readonly handle: (call: GatewayCall<Body>) => Promise<Reply>;
}

/**
 * Builds a route's Lambda handler from its manifest entry: the trace, request id and log keys,
 * authentication, rate limit, body validation, then the handler, then the single response writer. Streaming
 * routes run in middy's streamify mode (with a leaner body pump: streamify-execution.ts) so the
 * same code serves API Gateway STREAM integrations, function URLs and the local runtime.
 */
export function defineHandler<Body = undefined>(routeOrId: string | RouteSpec, definition: HandlerDefinition<Body>) {
  const route = typeof routeOrId === 'string' ? routeById(routeOrId) : routeOrId;
  const traced = tracing();
  const middlewares: GatewayMiddleware[] = [
    ...(traced ? [traced] : []),
    requestContext(route),
    callLogKeys(),
    responseWriter(route),
    authentication(),
    principalLogKeys(),
    rateLimit(),
  ];
  if (definition.body) middlewares.push(bodyValidation(definition.body));
  const handle = (event: unknown) => definition.handle(event as GatewayCall<Body>);
  const plugin = { requestEnd: runAfterResponse as (request: unknown) => Promise<void> };
  const chain = route.streaming ? middy({ ...plugin, executionMode: executionModeStreamedBody }) : middy(plugin);
  const handler = chain.use(middlewares).handler(handle);
  // The schema the body is validated with, so a test can prove the OpenAPI document shows that one.
  return Object.assign(handler, { bodySchema: definition.body?.schema });
}

export function routeById(routeId: string): RouteSpec {
  const route = routes.find((candidate) => candidate.id === routeId);
  if (!route) throw new Error(`route ${routeId} is not in the manifest`);
  return route;
}

/**
 * Runs the call's deferred work, side by side (usage, cached answers and cache refreshes do
 * not depend on each other); a failure is logged, never turned into a response.
 */
async function runAfterResponse(request: GatewayMiddyRequest): Promise<void> {
  const call = callOf(request);
  if (!call) return;
  await Promise.all(
    call.afterResponse.splice(0).map(async (task) => {
      try {
        await task();
      } catch (error) {
        logger.error('work after the response failed', { requestId: call.requestId, error: (error as Error).message });
      }
    }),
  );
}
