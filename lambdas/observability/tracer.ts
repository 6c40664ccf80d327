import type { Tracer } from '@aws-lambda-powertools/tracer';

/**
 * X-Ray through Powertools: a subsegment per handler invocation, annotated with the route and
 * account; outgoing HTTP calls (upstream providers, the hot path's DynamoDB client) get
 * subsegments of their own. The stack turns active tracing on for every function
 * (lib/constructs/endpoint-function.ts), so in Lambda it is on.
 *
 * Where tracing is off (outside Lambda, or POWERTOOLS_TRACE_ENABLED=false as in the local
 * runtime) the tracer is never loaded: loading the X-Ray SDK installs cls-hooked's async hooks
 * for the whole process, and then every promise pays for destroy tracking (about 15% of the
 * gateway's CPU per request) whether or not anything is traced.
 */

/** The stack sets it from its name (lib/names.ts); locally the default stack's. */
const SERVICE_NAME = process.env['POWERTOOLS_SERVICE_NAME'] || 'ai-gateway';

/** The variables Powertools' Tracer reads to decide whether it traces. */
export type TracingEnv = Readonly<Record<string, string | undefined>>;

/**
 * Powertools' own rule (Tracer.setTracingEnabled), read once at start-up: on in a Lambda
 * execution environment unless POWERTOOLS_TRACE_ENABLED is false, off under SAM local and
 * Amplify's mock.
 */
export function tracingEnabled(env: TracingEnv = process.env): boolean {
  if ((env['POWERTOOLS_TRACE_ENABLED'] ?? '').toLowerCase() === 'false') return false;
  const executionEnv = env['AWS_EXECUTION_ENV'] ?? '';
  if (executionEnv === '' || executionEnv === 'AWS_Lambda_amplify-mock') return false;
  return (env['AWS_SAM_LOCAL'] ?? '') === '';
}

let loaded: Tracer | undefined;

/**
 * The tracer, loaded while the function initialises when tracing is on (so HTTP clients are
 * captured from the first call on), or undefined when it is off. Loading starts here rather than
 * at the first request: Lambda's init phase pays for it, not the first caller.
 */
export const tracerLoading: Promise<Tracer> | undefined = tracingEnabled()
  ? import('@aws-lambda-powertools/tracer').then(({ Tracer: PowertoolsTracer }) => {
      loaded = new PowertoolsTracer({ serviceName: SERVICE_NAME });
      return loaded;
    })
  : undefined;

/** Annotates the invocation's trace segment; nothing when tracing is off or not yet loaded. */
export function annotate(key: string, value: string): void {
  loaded?.putAnnotation(key, value);
}
