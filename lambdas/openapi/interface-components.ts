import type { AuthScheme, ErrorStyle, RouteSpec } from '../../lib/routes.js';
import type { JsonSchema } from './json-schema-2020.js';
import { record, ref, text } from './schema-ref.js';

/**
 * What every route shares, keyed by the manifest's own terms: the error body of each error
 * style (lambdas/http/error-body.ts), the security schemes of each auth scheme (docs/interface.md §5), and
 * the response headers (docs/interface.md §4.2 and §8).
 */

export const ERROR_SCHEMAS: Readonly<Record<string, JsonSchema>> = {
  OpenAIError: {
    ...record({
      error: record({
        message: text(),
        type: text('`invalid_request_error`, `authentication_error`, `rate_limit_error`…'),
        code: text('docs/interface.md §7: `BAD_REQUEST`, `UNAUTHORIZED`, `INVALID_API_KEY`, `RATE_LIMIT_EXCEEDED`…'),
        param: { type: ['string', 'null'], description: 'The request field at fault' },
      }),
    }),
    description: 'The OpenAI error shape, as gateway and model routes answer errors.',
  },
  EnvelopeError: {
    ...record({
      success: { const: false },
      error: {
        type: 'object',
        required: ['code', 'message'],
        properties: { code: text('docs/interface.md §7'), message: text(), field: text('The request field at fault') },
      },
    }),
    description: 'The error envelope of the other routes.',
  },
};

export const ERROR_SCHEMA_OF: Readonly<Record<ErrorStyle, string>> = {
  openai: 'OpenAIError',
  envelope: 'EnvelopeError',
};

/** A JSON answer of the route: with `meta` where the manifest says every answer carries it. */
export function answerSchema(route: Pick<RouteSpec, 'envelopeMeta'>, schema: JsonSchema): JsonSchema {
  return route.envelopeMeta ? { allOf: [schema, ref('WithMeta')] } : schema;
}

export const SECURITY_SCHEMES: Readonly<Record<string, JsonSchema>> = {
  secretKey: {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'sk_<id>_<secret>',
    description: 'A secret service API key as `Authorization: Bearer sk_…`.',
  },
  secretKeyHeader: {
    type: 'apiKey',
    in: 'header',
    name: 'X-API-Key',
    description: 'A secret service API key as `X-API-Key: sk_…` (also how SigV4-signed function URL calls send it).',
  },
  publishableKey: {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'pk_<id>_<secret>',
    description:
      'A publishable key (`Authorization: Bearer pk_…` or `X-API-Key`), accepted only with an `Origin` among the key’s allowedOrigins.',
  },
  session: {
    type: 'apiKey',
    in: 'cookie',
    name: 'gw_session',
    description:
      'The dashboard session cookie set by POST /api/v1/auth/login; state-changing requests must carry an allowed `Origin`.',
  },
  adminToken: {
    type: 'http',
    scheme: 'bearer',
    description: 'The admin token (Secrets Manager; locally runtime.json `adminToken`).',
  },
};

/** Each manifest auth scheme, as the security schemes that carry it (any one of them will do). */
export const SECURITY_OF: Readonly<Record<AuthScheme, readonly string[]>> = {
  secretKey: ['secretKey', 'secretKeyHeader'],
  publishableKey: ['publishableKey'],
  session: ['session'],
  admin: ['adminToken'],
};

const header = (description: string, schema: JsonSchema = { type: 'string' }): JsonSchema => ({ description, schema });

export const RESPONSE_HEADERS: Readonly<Record<string, JsonSchema>> = {
  'X-Request-ID': header('The request id: the caller’s if it sent a sane one, else the gateway’s'),
  'X-RateLimit-Limit': header(
    'Requests allowed in the window: the key’s (or session’s) per minute, or the route’s own per key (fashion)',
    { type: 'integer' },
  ),
  'X-RateLimit-Remaining': header('Requests left in the current window', { type: 'integer' }),
  'X-RateLimit-Reset': header('Unix seconds when the window resets', { type: 'integer' }),
  'Retry-After': header('Seconds to wait before retrying', { type: 'integer' }),
  'X-Model-Used': header('The model that served the request'),
  'X-Retry-Count': header('Retries attempted', { type: 'integer' }),
  'X-Fallback-From': header('The model asked for, when another target served'),
  'X-Cache': header('`HIT`, `MISS` or `BYPASS` (non-streaming answers)', { enum: ['HIT', 'MISS', 'BYPASS'] }),
  'X-Guardrail-Status': header('Comma-separated `<guardrail>:<outcome>` pairs'),
  'X-Session-ID': header('The chat-mode session id'),
  'Idempotency-Replayed': header('`true` when an earlier request with the same Idempotency-Key made this prediction'),
  'Set-Cookie': header('The session cookie (`gw_session`, HttpOnly, Secure, SameSite=Strict)'),
  Deprecation: header('RFC 9745: `@<unix seconds>`, when the route was deprecated'),
  Sunset: header('RFC 8594: the HTTP-date the route is to stop answering, when the deployment has set one'),
  Link: header(
    'RFC 8288: the routes that replace this one (`rel="successor-version"`, one per mode) and this document ' +
      '(`rel="deprecation"`), relative to the route’s URL',
  ),
};

/** What a deprecated route's every answer carries, errors included. */
export const DEPRECATION_HEADERS = ['Deprecation', 'Sunset', 'Link'] as const;

export const RATE_HEADERS = ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset'] as const;

/** What each error status means when a route says nothing more particular. */
export const ERROR_MEANINGS: Readonly<Record<number, string>> = {
  400: 'Invalid input (`BAD_REQUEST`); the message and `param`/`field` name the field and the rule',
  401: 'Missing (`UNAUTHORIZED`) or invalid (`INVALID_API_KEY`) credentials',
  402: 'The key’s budget cannot hold the call (`BUDGET_EXCEEDED`, naming `budget.key`); `Retry-After` until its period resets, none for a `total` budget',
  403: 'A valid credential this route does not accept, or an origin it does not allow (`FORBIDDEN`)',
  404: 'Not found (`NOT_FOUND`)',
  413: 'The request is too large (`PAYLOAD_TOO_LARGE`)',
  429: 'Rate limited (`RATE_LIMIT_EXCEEDED`); `Retry-After` says when to retry',
  500: 'Internal error (`INTERNAL_ERROR`)',
  503: 'An upstream is unavailable (`SERVICE_UNAVAILABLE`)',
};
