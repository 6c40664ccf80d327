// Preloaded into the local runtime's process (NODE_OPTIONS=--import) by the tracing tests, as the
// OpenTelemetry layer's wrapper is preloaded into a Lambda function's: registers the real SDK (a
// BasicTracerProvider with a simple span processor, and the AsyncLocalStorage context manager)
// through this file's own copy of the API, before the gateway's code loads. The runtime is a
// child process, so each finished span is written as one JSON line to OTEL_SPAN_RECORD_FILE for
// the test to read (test/integration/tracing.test.ts).
import { appendFileSync } from 'node:fs';
import { context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { BasicTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';

const file = process.env.OTEL_SPAN_RECORD_FILE;

/** A span exporter that appends each span, as plain data, to the record file. */
const recorder = {
  export(spans, done) {
    const lines = spans.map((span) =>
      JSON.stringify({
        name: span.name,
        kind: span.kind,
        traceId: span.spanContext().traceId,
        spanId: span.spanContext().spanId,
        parentSpanId: span.parentSpanContext?.spanId,
        attributes: span.attributes,
        status: span.status,
        scope: span.instrumentationScope.name,
        pid: process.pid,
      }),
    );
    appendFileSync(file, lines.map((line) => `${line}\n`).join(''));
    done({ code: 0 });
  },
  shutdown: () => Promise.resolve(),
  forceFlush: () => Promise.resolve(),
};

if (file) {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(recorder)] }));
}
