import { SpanKind, SpanStatusCode, type Span } from '@opentelemetry/api';
import { tracer } from './tracer.js';

/** What the call span needs of a manifest route. */
export interface TracedRoute {
  readonly id: string;
  readonly method: string;
  readonly path: string;
}

/** What is known of a call once it is answered; never a header, a body, a key or a token. */
export interface CallOutcome {
  readonly status?: number;
  readonly requestId?: string;
  /** The account the call acted for (absent for public routes and the admin token). */
  readonly accountId?: string;
}

/**
 * Attributes X-Ray indexes as annotations (searchable: `annotation.route = "chat-completions"`),
 * by the convention of its OpenTelemetry conversion; the rest become metadata. The two the
 * X-Ray SDK's subsegment carried before, under the same names, so saved filters still match.
 */
const XRAY_ANNOTATIONS = 'aws.xray.annotations';

/**
 * One span per call of a route, from its first middleware to its answer (for a stream, its last
 * byte): named as OpenTelemetry's HTTP conventions name a server's request (`POST
 * /api/v1/chat/completions`), but internal, as it runs inside Lambda's own invocation span.
 * Undefined when nothing records it (no SDK, or a trace not sampled): the caller then does
 * nothing more for it.
 */
export function startCallSpan(route: TracedRoute): Span | undefined {
  const span = tracer.startSpan(`${route.method} ${route.path}`, { kind: SpanKind.INTERNAL });
  if (!span.isRecording()) return undefined;
  span.setAttributes({ route: route.id, 'http.route': route.path, 'http.request.method': route.method });
  return span;
}

/** Ends the call's span with its outcome; a 5xx marks it failed, as the HTTP conventions say. */
export function endCallSpan(span: Span, outcome: CallOutcome): void {
  const annotations = ['route'];
  if (outcome.accountId !== undefined) {
    span.setAttribute('accountId', outcome.accountId);
    annotations.push('accountId');
  }
  span.setAttribute(XRAY_ANNOTATIONS, annotations);
  if (outcome.requestId !== undefined) span.setAttribute('gateway.request.id', outcome.requestId);
  if (outcome.status !== undefined) {
    span.setAttribute('http.response.status_code', outcome.status);
    if (outcome.status >= 500) {
      span.setAttribute('error.type', String(outcome.status));
      span.setStatus({ code: SpanStatusCode.ERROR });
    }
  }
  span.end();
}
