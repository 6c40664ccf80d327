import { Tracer } from '@aws-lambda-powertools/tracer';

/**
 * X-Ray through Powertools: a subsegment per handler invocation, annotated with the route and
 * account. Off outside Lambda (it needs Lambda's init type) and wherever POWERTOOLS_TRACE_ENABLED
 * is false, as in the local runtime, so nothing looks for an X-Ray daemon there.
 * Outgoing HTTP calls (upstream providers, the hot path's DynamoDB client) get subsegments of their own.
 */
export const tracer = new Tracer({ serviceName: 'ai-gateway' });
