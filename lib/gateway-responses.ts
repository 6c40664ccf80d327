/**
 * What API Gateway answers by itself, before or instead of a function: unknown routes,
 * throttling, oversized requests, integration timeouts and its other 4xx/5xx. Data only: the
 * stack turns these into GatewayResponses and the local server answers unknown routes from them,
 * so both doors say the same thing.
 *
 * A gateway response belongs to the whole API, not to a route, so one body serves both error
 * styles: `success: false` and `error.code`/`error.message` for envelope clients, plus
 * `error.type` and `error.param` so OpenAI SDKs read it as their own error shape.
 */

/** API Gateway's response types this gateway customises. */
export type GatewayResponseType =
  | 'MISSING_AUTHENTICATION_TOKEN'
  | 'RESOURCE_NOT_FOUND'
  | 'THROTTLED'
  | 'REQUEST_TOO_LARGE'
  | 'INTEGRATION_TIMEOUT'
  | 'WAF_FILTERED'
  | 'DEFAULT_4XX'
  | 'DEFAULT_5XX';

export interface GatewayResponseSpec {
  readonly type: GatewayResponseType;
  /**
   * Omitted for the DEFAULT_* fallbacks: a status there would replace the status of every
   * response type that falls back to it, so API Gateway's own status stays.
   */
  readonly status?: number;
  readonly code: string;
  /** The OpenAI error type SDKs branch on. */
  readonly openaiType: string;
  /** Omitted: API Gateway's own message for the error (`$context.error.messageString`). */
  readonly message?: string;
  /** Extra headers, in API Gateway's notation (a quoted literal). */
  readonly headers?: Readonly<Record<string, string>>;
}

/** API Gateway's response type name, for the fallbacks that cover many types. */
const OWN_RESPONSE_TYPE = '$context.error.responseType';
const OWN_MESSAGE = '$context.error.messageString';
const MESSAGE_SLOT = '"<message>"';

/** REST APIs answer an unknown path, or a known path with another method, with MISSING_AUTHENTICATION_TOKEN. */
const UNKNOWN_ROUTE: Omit<GatewayResponseSpec, 'type'> = {
  status: 404,
  code: 'NOT_FOUND',
  openaiType: 'not_found_error',
  message: 'No route matches this method and path',
};

export const GATEWAY_RESPONSES: readonly GatewayResponseSpec[] = [
  { type: 'MISSING_AUTHENTICATION_TOKEN', ...UNKNOWN_ROUTE },
  { type: 'RESOURCE_NOT_FOUND', ...UNKNOWN_ROUTE },
  {
    type: 'THROTTLED',
    status: 429,
    code: 'RATE_LIMIT_EXCEEDED',
    openaiType: 'rate_limit_error',
    message: 'Too many requests for this deployment; retry shortly',
    headers: { 'Retry-After': "'1'" },
  },
  {
    type: 'REQUEST_TOO_LARGE',
    status: 413,
    code: 'PAYLOAD_TOO_LARGE',
    openaiType: 'invalid_request_error',
    message: 'Request body too large',
  },
  {
    type: 'INTEGRATION_TIMEOUT',
    status: 504,
    code: 'GATEWAY_TIMEOUT',
    openaiType: 'api_error',
    message: 'The endpoint did not answer in time',
  },
  {
    // A managed rule of the web ACL (lib/constructs/gateway-web-acl.ts) blocked the request.
    type: 'WAF_FILTERED',
    status: 403,
    code: 'FORBIDDEN',
    openaiType: 'permission_error',
    message: "Blocked by the deployment's web application firewall",
  },
  { type: 'DEFAULT_4XX', code: OWN_RESPONSE_TYPE, openaiType: 'invalid_request_error' },
  { type: 'DEFAULT_5XX', code: OWN_RESPONSE_TYPE, openaiType: 'api_error' },
];

/**
 * CORS on gateway responses. A gateway response cannot check the caller's Origin against a
 * list, so it echoes it, which exposes only these fixed error bodies (and `Retry-After`, so a
 * throttled page can back off). With CORS origins configured, credentials are allowed as the
 * dashboard's own requests need; without any, an API with publishable-key routes (called from
 * partners' pages) still echoes the origin, without credentials, so those pages can read a 429
 * or 404 instead of seeing an opaque network error.
 */
export const GATEWAY_RESPONSE_CORS_HEADERS: Readonly<Record<string, string>> = {
  'Access-Control-Allow-Origin': 'method.request.header.Origin',
  'Access-Control-Allow-Credentials': "'true'",
  'Access-Control-Expose-Headers': "'Retry-After'",
  Vary: "'Origin'",
};

export const GATEWAY_RESPONSE_PUBLIC_CORS_HEADERS: Readonly<Record<string, string>> = {
  'Access-Control-Allow-Origin': 'method.request.header.Origin',
  'Access-Control-Expose-Headers': "'Retry-After'",
  Vary: "'Origin'",
};

/** Which CORS headers the API's gateway responses carry. */
export function gatewayResponseCors(
  hasCorsOrigins: boolean,
  hasPublishableKeyRoutes: boolean,
): Readonly<Record<string, string>> {
  if (hasCorsOrigins) return GATEWAY_RESPONSE_CORS_HEADERS;
  return hasPublishableKeyRoutes ? GATEWAY_RESPONSE_PUBLIC_CORS_HEADERS : {};
}

export function gatewayResponse(type: GatewayResponseType): GatewayResponseSpec {
  const spec = GATEWAY_RESPONSES.find((candidate) => candidate.type === type);
  if (!spec) throw new Error(`no gateway response ${type}`);
  return spec;
}

/** The `application/json` body template: plain JSON with API Gateway's variables where they apply. */
export function gatewayResponseTemplate(spec: GatewayResponseSpec): string {
  const body = {
    success: false,
    error: { code: spec.code, message: '<message>', type: spec.openaiType, param: null },
  };
  const message = spec.message === undefined ? OWN_MESSAGE : JSON.stringify(spec.message);
  return JSON.stringify(body).replace(MESSAGE_SLOT, message);
}
