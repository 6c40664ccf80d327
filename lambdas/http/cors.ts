import type { CallState } from './call.js';

const EXPOSED = [
  'X-Request-ID',
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
  'Retry-After',
  'X-Model-Used',
  'X-Cache',
  'X-Fallback-From',
  'X-Retry-Count',
  'X-Guardrail-Status',
  'X-Session-ID',
  'Deprecation',
  'Sunset',
  'Link',
].join(', ');

/**
 * Reflects the caller's origin when it is one of the deployment's origins, or when a
 * publishable key authenticated from one of its own allowed origins. Credentials (cookies) are
 * allowed to the deployment's origins only: a publishable key needs none.
 */
export function corsHeaders(call: CallState): Record<string, string> {
  const origin = call.req.headers['origin'];
  if (!origin) return {};
  const ownOrigin = call.config.allowedOrigins.includes(origin);
  const keyOrigin = call.principal?.kind === 'publishableKey' && call.principal.origin === origin;
  if (!ownOrigin && !keyOrigin) return {};
  return {
    'Access-Control-Allow-Origin': origin,
    ...(ownOrigin ? { 'Access-Control-Allow-Credentials': 'true' } : {}),
    'Access-Control-Expose-Headers': EXPOSED,
    Vary: 'Origin',
  };
}
