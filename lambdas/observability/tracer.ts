import { context, createContextKey, trace, type Span } from '@opentelemetry/api';

/**
 * Tracing through the OpenTelemetry API alone. The SDK, the export to X-Ray and the span of the
 * Lambda invocation itself come from the AWS Distro for OpenTelemetry layer the stack puts on
 * every function (lib/constructs/open-telemetry-layer.ts): it registers its tracer provider and
 * context manager in the API's process-wide global before the handler module loads. Where no
 * SDK registered one (the local runtime, the benchmarks), the API is a no-op: every span is
 * non-recording, and the gateway's helpers (call-span.ts, model-call-span.ts) then skip their
 * attributes and the context switch altogether.
 *
 * The bundle carries its own copy of the API (the layer bundles the SDK and its API into one
 * file and provides no `@opentelemetry/api` package to import). Copies meet through that global,
 * keyed by the API's major version, and a copy uses a provider registered by another only when
 * its own minor version is not newer: package.json pins the API to the layer's minor, and
 * test/unit/observability/otel-api-version.test.ts holds the two together.
 */
export const tracer = trace.getTracer('ai-gateway');

/** Runs `work` with `span` active, so the spans started inside it (and in what it awaits) are its children. */
export function inSpan<T>(span: Span, work: () => T): T {
  return context.with(trace.setSpan(context.active(), span), work);
}

/**
 * The SDK's own key for "record nothing here" (@opentelemetry/core's `suppressTracing`; a context
 * key is `Symbol.for` its description, so the API alone can set it): the SDK then starts only
 * non-recording spans, and instrumentations, the layer's HTTP client one among them, skip the
 * work they would have recorded.
 */
const SUPPRESS_TRACING = createContextKey('OpenTelemetry SDK Context Key SUPPRESS_TRACING');

/**
 * Runs `work` untraced: for requests to a URL a caller chose (a job's webhook), which the HTTP
 * instrumentation would record whole, query string and any token in it included.
 */
export function untraced<T>(work: () => T): T {
  return context.with(context.active().setValue(SUPPRESS_TRACING, true), work);
}
