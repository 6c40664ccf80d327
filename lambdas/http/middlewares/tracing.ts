import type { Tracer } from '@aws-lambda-powertools/tracer';
import { captureLambdaHandler } from '@aws-lambda-powertools/tracer/middleware';
import { tracerLoading } from '../../observability/tracer.js';
import type { GatewayMiddleware } from './state.js';

/**
 * Powertools' handler subsegment (captureLambdaHandler) around the call, once the tracer has
 * loaded; no middleware at all when tracing is off (lambdas/observability/tracer.ts), so an
 * untraced call pays nothing for it. The middleware module imports no X-Ray code itself.
 */
export function tracing(loading: Promise<Tracer> | undefined = tracerLoading): GatewayMiddleware | undefined {
  if (!loading) return undefined;
  let capture: GatewayMiddleware | undefined;
  const ready = async () =>
    (capture ??= captureLambdaHandler(await loading, { captureResponse: false }) as GatewayMiddleware);
  return {
    before: async (request) => (await ready()).before?.(request),
    after: async (request) => (await ready()).after?.(request),
    onError: async (request) => (await ready()).onError?.(request),
  };
}
