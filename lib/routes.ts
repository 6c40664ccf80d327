/**
 * The route manifest: the only list of endpoints. The CDK stack builds API Gateway
 * routes and Lambda functions from it; the local runtime builds its HTTP server from it.
 * Data only: no imports of handlers, no logic.
 */

export type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'DELETE';

/**
 * How a caller may authenticate.
 * - `secretKey`: an `sk_` service key as `Authorization: Bearer` or `X-API-Key`.
 * - `publishableKey`: a `pk_` key, only from one of the key's allowed origins.
 * - `session`: the dashboard session cookie.
 * - `admin`: the admin token as `Authorization: Bearer`.
 */
export type AuthScheme = 'secretKey' | 'publishableKey' | 'session' | 'admin';

/** What a function may touch; the stack turns each grant into a least-privilege policy. */
export type Grant =
  | 'identity:read'
  | 'identity:write'
  | 'usage:read'
  | 'usage:write'
  | 'providerKeys:read'
  | 'providerKeys:write'
  | 'cache:write'
  | 'adminToken:read'
  | 'platformKeys:read'
  | 'promptService:read'
  | 'guardrails:apply'
  | 'userPool:login'
  | 'userPool:admin';

/** Gateway and model routes answer errors in the OpenAI shape; the rest use the envelope. */
export type ErrorStyle = 'openai' | 'envelope';

export interface RouteSpec {
  /** Stable id; also the stem of the Lambda function's logical id. */
  readonly id: string;
  readonly method: HttpMethod;
  /** API Gateway path template, `{name}` for path parameters. */
  readonly path: string;
  /** Handler entry file, relative to the repository root; it exports `handler`. */
  readonly entry: string;
  /** Accepted schemes; empty means no authentication. */
  readonly auth: readonly AuthScheme[];
  /** Counts against the caller's per-key rate limit (and sends the rate headers). */
  readonly rateLimited: boolean;
  /** Response streaming: API Gateway STREAM integration and a function URL. */
  readonly streaming: boolean;
  readonly timeoutSeconds: number;
  readonly memoryMb: number;
  readonly errorStyle: ErrorStyle;
  readonly grants: readonly Grant[];
}

const API_KEY_AUTH: readonly AuthScheme[] = ['secretKey'];
const KEY_READS: readonly Grant[] = ['identity:read', 'cache:write'];

export const routes: readonly RouteSpec[] = [
  {
    id: 'health',
    method: 'GET',
    path: '/api/health',
    entry: 'lambdas/handlers/health.ts',
    auth: [],
    rateLimited: false,
    streaming: false,
    timeoutSeconds: 10,
    memoryMb: 256,
    errorStyle: 'envelope',
    grants: ['platformKeys:read'],
  },
  {
    id: 'models-list',
    method: 'GET',
    path: '/api/v1/models',
    entry: 'lambdas/handlers/models-list.ts',
    auth: API_KEY_AUTH,
    rateLimited: true,
    streaming: false,
    timeoutSeconds: 10,
    memoryMb: 256,
    errorStyle: 'openai',
    grants: KEY_READS,
  },
  {
    // Streaming for every request: SSE when `stream` is true, and for JSON answers the usage
    // writes still happen after the last byte instead of delaying it.
    id: 'chat-completions',
    method: 'POST',
    path: '/api/v1/chat/completions',
    entry: 'lambdas/handlers/chat-completions.ts',
    auth: API_KEY_AUTH,
    rateLimited: true,
    streaming: true,
    timeoutSeconds: 900,
    memoryMb: 1024,
    errorStyle: 'openai',
    grants: [
      ...KEY_READS,
      'usage:write',
      'platformKeys:read',
      'providerKeys:read',
      'promptService:read',
      'guardrails:apply',
    ],
  },
  {
    id: 'auth-login',
    method: 'POST',
    path: '/api/v1/auth/login',
    entry: 'lambdas/handlers/auth-login.ts',
    auth: [],
    rateLimited: false,
    streaming: false,
    timeoutSeconds: 10,
    memoryMb: 256,
    errorStyle: 'envelope',
    grants: ['identity:read', 'identity:write', 'userPool:login'],
  },
  {
    id: 'auth-logout',
    method: 'POST',
    path: '/api/v1/auth/logout',
    entry: 'lambdas/handlers/auth-logout.ts',
    auth: ['session'],
    rateLimited: false,
    streaming: false,
    timeoutSeconds: 10,
    memoryMb: 256,
    errorStyle: 'envelope',
    grants: ['identity:read', 'identity:write'],
  },
  {
    id: 'auth-session',
    method: 'GET',
    path: '/api/v1/auth/session',
    entry: 'lambdas/handlers/auth-session.ts',
    auth: ['session'],
    rateLimited: false,
    streaming: false,
    timeoutSeconds: 10,
    memoryMb: 256,
    errorStyle: 'envelope',
    grants: ['identity:read'],
  },
  {
    id: 'keys-create',
    method: 'POST',
    path: '/api/v1/keys',
    entry: 'lambdas/handlers/keys-create.ts',
    auth: ['session'],
    rateLimited: false,
    streaming: false,
    timeoutSeconds: 10,
    memoryMb: 256,
    errorStyle: 'envelope',
    grants: ['identity:read', 'identity:write'],
  },
  {
    id: 'keys-list',
    method: 'GET',
    path: '/api/v1/keys',
    entry: 'lambdas/handlers/keys-list.ts',
    auth: ['session'],
    rateLimited: false,
    streaming: false,
    timeoutSeconds: 10,
    memoryMb: 256,
    errorStyle: 'envelope',
    grants: ['identity:read'],
  },
  {
    id: 'keys-update',
    method: 'PATCH',
    path: '/api/v1/keys/{id}',
    entry: 'lambdas/handlers/keys-update.ts',
    auth: ['session'],
    rateLimited: false,
    streaming: false,
    timeoutSeconds: 10,
    memoryMb: 256,
    errorStyle: 'envelope',
    grants: ['identity:read', 'identity:write'],
  },
  {
    id: 'keys-delete',
    method: 'DELETE',
    path: '/api/v1/keys/{id}',
    entry: 'lambdas/handlers/keys-delete.ts',
    auth: ['session'],
    rateLimited: false,
    streaming: false,
    timeoutSeconds: 10,
    memoryMb: 256,
    errorStyle: 'envelope',
    grants: ['identity:read', 'identity:write'],
  },
  {
    id: 'provider-keys-create',
    method: 'POST',
    path: '/api/v1/provider-keys',
    entry: 'lambdas/handlers/provider-keys-create.ts',
    auth: ['session'],
    rateLimited: false,
    streaming: false,
    timeoutSeconds: 15,
    memoryMb: 256,
    errorStyle: 'envelope',
    grants: ['identity:read', 'identity:write', 'providerKeys:write'],
  },
  {
    id: 'provider-keys-list',
    method: 'GET',
    path: '/api/v1/provider-keys',
    entry: 'lambdas/handlers/provider-keys-list.ts',
    auth: ['session'],
    rateLimited: false,
    streaming: false,
    timeoutSeconds: 10,
    memoryMb: 256,
    errorStyle: 'envelope',
    grants: ['identity:read'],
  },
  {
    id: 'provider-keys-delete',
    method: 'DELETE',
    path: '/api/v1/provider-keys/{id}',
    entry: 'lambdas/handlers/provider-keys-delete.ts',
    auth: ['session'],
    rateLimited: false,
    streaming: false,
    timeoutSeconds: 15,
    memoryMb: 256,
    errorStyle: 'envelope',
    grants: ['identity:read', 'identity:write', 'providerKeys:write'],
  },
  {
    id: 'usage-get',
    method: 'GET',
    path: '/api/v1/usage',
    entry: 'lambdas/handlers/usage-get.ts',
    auth: ['secretKey', 'session'],
    rateLimited: true,
    streaming: false,
    timeoutSeconds: 15,
    memoryMb: 256,
    errorStyle: 'envelope',
    grants: [...KEY_READS, 'usage:read'],
  },
  {
    id: 'admin-accounts-create',
    method: 'POST',
    path: '/api/admin/v1/accounts',
    entry: 'lambdas/handlers/admin-accounts-create.ts',
    auth: ['admin'],
    rateLimited: false,
    streaming: false,
    timeoutSeconds: 15,
    memoryMb: 256,
    errorStyle: 'envelope',
    grants: ['adminToken:read', 'identity:read', 'identity:write', 'userPool:admin'],
  },
  {
    id: 'admin-keys-create',
    method: 'POST',
    path: '/api/admin/v1/keys',
    entry: 'lambdas/handlers/admin-keys-create.ts',
    auth: ['admin'],
    rateLimited: false,
    streaming: false,
    timeoutSeconds: 10,
    memoryMb: 256,
    errorStyle: 'envelope',
    grants: ['adminToken:read', 'identity:read', 'identity:write'],
  },
  {
    id: 'admin-keys-delete',
    method: 'DELETE',
    path: '/api/admin/v1/keys/{id}',
    entry: 'lambdas/handlers/admin-keys-delete.ts',
    auth: ['admin'],
    rateLimited: false,
    streaming: false,
    timeoutSeconds: 10,
    memoryMb: 256,
    errorStyle: 'envelope',
    grants: ['adminToken:read', 'identity:read', 'identity:write'],
  },
  {
    id: 'admin-usage-get',
    method: 'GET',
    path: '/api/admin/v1/usage',
    entry: 'lambdas/handlers/admin-usage-get.ts',
    auth: ['admin'],
    rateLimited: false,
    streaming: false,
    timeoutSeconds: 15,
    memoryMb: 256,
    errorStyle: 'envelope',
    grants: ['adminToken:read', 'identity:read', 'usage:read'],
  },
];
