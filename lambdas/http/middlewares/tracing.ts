import type { Span } from '@opentelemetry/api';
import type { RouteSpec } from '../../../lib/routes.js';
import { endCallSpan, startCallSpan } from '../../observability/call-span.js';
import { inSpan } from '../../observability/tracer.js';
import { callOf, type GatewayMiddleware, type GatewayMiddyRequest } from './state.js';

/** Each invocation's call span, by its context object, as state.ts keeps the call. */
const spans = new WeakMap<object, Span>();

/**
 * The call's span (lambdas/observability/call-span.ts): begun by the first middleware, so it
 * covers authentication and the rate limit, and ended with the call's answer, which for a
 * stream is its last byte (the call's signal aborts then). The route, the account and the
 * status go on it; nothing a caller sent does. Where nothing records spans, the middleware
 * keeps nothing and the handler runs as it would without it.
 */
export function tracing(route: RouteSpec): GatewayMiddleware {
  const end = (request: GatewayMiddyRequest) => {
    const span = spans.get(request.context);
    if (!span) return;
    spans.delete(request.context);
    const call = callOf(request);
    const principal = call?.principal;
    const outcome = {
      status: (request.response as { statusCode?: number } | undefined)?.statusCode,
      requestId: call?.requestId,
      accountId: principal && principal.kind !== 'admin' ? principal.accountId : undefined,
    };
    if (call && !call.signal.aborted) {
      call.signal.addEventListener('abort', () => endCallSpan(span, outcome), { once: true });
    } else {
      endCallSpan(span, outcome);
    }
  };
  return {
    before: (request) => {
      const span = startCallSpan(route);
      if (span) spans.set(request.context, span);
    },
    after: end,
    onError: end,
  };
}

/** Runs the route's handler with the call's span active: the spans it starts (model calls) are its children. */
export function inCallSpan<T>(request: Pick<GatewayMiddyRequest, 'context'>, work: () => T): T {
  const span = spans.get(request.context);
  return span ? inSpan(span, work) : work();
}
