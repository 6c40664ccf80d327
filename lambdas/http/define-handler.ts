import middy, { type MiddyfiedHandler } from '@middy/core';
import type { Context } from 'aws-lambda';
import { routes, type AuthScheme, type RouteAuth, type RouteId, type RouteSpec } from '../../lib/routes.js';
import type { Principal, PrincipalFor } from '../identity/principal.js';
import type { LambdaHttpEvent } from './request.js';
import type { CallState, GatewayCall } from './call.js';
import type { GatewayConfiguration } from '../config/configuration.js';
import type { Reply } from './reply.js';
import type { ValueCheck } from '../schema/compile.js';
import { authentication } from './middlewares/authentication.js';
import { checkQuery, parseJsonBody, validate } from './validation.js';
import { rateLimit } from './middlewares/rate-limit.js';
import { requestContext } from './middlewares/request-context.js';
import { responseWriter } from './middlewares/response-writing.js';
import { inCallSpan, tracing } from './middlewares/tracing.js';
import { executionModeStreamedBody } from './streamify-execution.js';
import { callLogKeys, principalLogKeys } from './middlewares/observability.js';
import { callOf, requireCall, type GatewayMiddleware, type GatewayMiddyRequest } from './middlewares/state.js';
import { logger } from '../config/logger.js';

/**
 * A route's Lambda handler, with the schema its body is validated by and the query parameters
 * it takes (for the OpenAPI test).
 */
export type GatewayHandler = MiddyfiedHandler<LambdaHttpEvent, unknown, Error, Context> & {
  readonly bodySchema: unknown;
  readonly queryParameters: readonly string[];
};

export interface HandlerDefinition<Body, Caller extends Principal | undefined> {
  /** Validates and types the JSON body; omit for routes without one. */
  readonly body?: ValueCheck<Body>;
  /**
   * The query parameters the route takes; any other is refused (docs/interface.md §7: a 400
   * naming it). Omitted: the route takes none.
   */
  readonly query?: readonly string[];
  /** Headers every answer of the route carries, errors included (a deprecated route's notice). */
  readonly headers?: (config: GatewayConfiguration) => Readonly<Record<string, string>>;
  readonly handle: (call: GatewayCall<Body, Caller>) => Promise<Reply>;
}

/**
 * Builds a route's Lambda handler from its manifest entry: the trace, request id and log keys,
 * authentication, rate limit, then the body validated and the handler, then the single response
 * writer. The handler's call is typed by the entry: its body by the validator, its principal by
 * the entry's schemes. Streaming routes run in middy's streamify mode (with a leaner body pump:
 * streamify-execution.ts) so the same code serves API Gateway STREAM integrations, function URLs
 * and the local runtime.
 */
export function defineHandler<Id extends RouteId, Body = undefined>(
  routeId: Id,
  definition: HandlerDefinition<Body, PrincipalFor<RouteAuth<Id>>>,
): GatewayHandler;
/** A route outside the manifest (tests, fixtures): its principal is whatever its schemes yield. */
export function defineHandler<Body = undefined>(
  route: RouteSpec,
  definition: HandlerDefinition<Body, Principal | undefined>,
): GatewayHandler;
export function defineHandler<Body, Schemes extends readonly AuthScheme[]>(
  routeOrId: string | RouteSpec,
  definition: HandlerDefinition<Body, PrincipalFor<Schemes>>,
): GatewayHandler {
  const route = typeof routeOrId === 'string' ? routeById(routeOrId) : routeOrId;
  const middlewares: GatewayMiddleware[] = [
    tracing(route),
    requestContext(route),
    ...(definition.headers ? [routeHeaders(definition.headers)] : []),
    callLogKeys(),
    responseWriter(route),
    authentication(),
    principalLogKeys(),
    rateLimit(),
  ];
  const handle = (_event: LambdaHttpEvent, context: Context) =>
    inCallSpan({ context }, () => answer(requireCall({ context }), route, definition));
  const plugin = { requestEnd: runAfterResponse as (request: unknown) => Promise<void> };
  const chain = route.streaming ? middy({ ...plugin, executionMode: executionModeStreamedBody }) : middy(plugin);
  const handler = chain.use(middlewares).handler(handle);
  // The schema the body is validated with and the query it takes, so a test can prove the
  // OpenAPI document shows those.
  return Object.assign(handler, { bodySchema: definition.body?.schema, queryParameters: definition.query ?? [] });
}

/** The call as the handler gets it: the body validated (a 400 naming the field otherwise). */
function answer<Body, Caller extends Principal | undefined>(
  state: CallState,
  route: RouteSpec,
  definition: HandlerDefinition<Body, Caller>,
): Promise<Reply> {
  const { principal } = state;
  // Authentication ran with exactly these schemes: a mismatch is a wiring bug, never a caller's.
  if (!isCaller<Caller>(principal, route.auth)) throw new Error(`route ${route.id}: no principal of its schemes`);
  checkQuery(state.req.query, definition.query ?? []);
  if (definition.body) {
    const body = validate(definition.body, parseJsonBody(state.req.rawBody));
    return definition.handle({ ...state, principal, body });
  }
  if (!takesNoBody(definition)) throw new Error(`route ${route.id}: a body type without a validator`);
  return definition.handle({ ...state, principal, body: undefined });
}

/** Whether the principal is one the route's schemes yield (none for a public route). */
const isCaller = <Caller extends Principal | undefined>(
  principal: Principal | undefined,
  schemes: readonly AuthScheme[],
): principal is Caller =>
  schemes.length === 0 ? principal === undefined : principal !== undefined && schemes.includes(principal.kind);

/** A definition without a validator is one whose handler takes no body. */
const takesNoBody = <Body, Caller extends Principal | undefined>(
  definition: HandlerDefinition<Body, Caller>,
): definition is HandlerDefinition<Body, Caller> & HandlerDefinition<undefined, Caller> =>
  definition.body === undefined;

/** Adds the route's own headers to every answer of the call, before anything can fail. */
function routeHeaders(headers: NonNullable<HandlerDefinition<unknown, undefined>['headers']>): GatewayMiddleware {
  return {
    before: (request) => {
      const call = requireCall(request);
      Object.assign(call.responseHeaders, headers(call.config));
    },
  };
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
