import type { APIGatewayProxyEvent, APIGatewayProxyEventV2 } from 'aws-lambda';
import type { RouteSpec } from '../../lib/routes.js';

/**
 * One request shape for handlers, whichever door it came through: REST API proxy events are
 * the v1 shape, function URL events the v2 shape (docs/deployment.md, "Signed calls to the
 * function URLs").
 */
export interface GatewayRequest {
  readonly method: string;
  readonly path: string;
  /** Lower-cased header names. */
  readonly headers: Readonly<Record<string, string>>;
  readonly query: Readonly<Record<string, string>>;
  readonly pathParams: Readonly<Record<string, string>>;
  readonly cookies: Readonly<Record<string, string>>;
  readonly rawBody: string;
  readonly sourceIp: string;
  /** The platform's own id for the invocation (API Gateway or Lambda). */
  readonly platformRequestId: string;
  /** Which door the request came through: the REST API (v1 events) or a function URL (v2). */
  readonly door: RequestDoor;
  /**
   * Where the caller reached the API, to which the manifest's paths are appended: scheme, host
   * and the stage prefix `path` leaves out (`https://<id>.execute-api.<region>.amazonaws.com/prod`,
   * `https://api.example.com`, locally `http://127.0.0.1:8787`); no trailing slash. Empty when
   * the request named no usable host.
   */
  readonly baseUrl: string;
}

export type RequestDoor = 'restApi' | 'functionUrl';

export type LambdaHttpEvent = APIGatewayProxyEvent | APIGatewayProxyEventV2;

const isV2 = (event: LambdaHttpEvent): event is APIGatewayProxyEventV2 =>
  (event as APIGatewayProxyEventV2).version === '2.0';

export function normalizeEvent(event: LambdaHttpEvent, route: RouteSpec): GatewayRequest {
  return isV2(event) ? fromV2(event, route) : fromV1(event);
}

function fromV1(event: APIGatewayProxyEvent): GatewayRequest {
  const headers = lowerCaseKeys(event.headers);
  return {
    method: event.httpMethod.toUpperCase(),
    path: event.path,
    headers,
    query: compact(event.queryStringParameters),
    pathParams: compact(event.pathParameters),
    cookies: parseCookieHeader(headers['cookie']),
    rawBody: decodeBody(event.body, event.isBase64Encoded),
    sourceIp: event.requestContext?.identity?.sourceIp ?? '',
    platformRequestId: event.requestContext?.requestId ?? '',
    door: 'restApi',
    baseUrl: restApiBaseUrl(event, headers),
  };
}

/**
 * API Gateway names the host it was reached at and the path with its stage (`/prod/api/...`,
 * nothing before `/api` on a custom domain mapped at the root) and serves only https; the local
 * runtime names neither, serves http, and the Host header names it.
 */
function restApiBaseUrl(event: APIGatewayProxyEvent, headers: Readonly<Record<string, string>>): string {
  const context = event.requestContext as Partial<APIGatewayProxyEvent['requestContext']> | undefined;
  const host = context?.domainName ?? headers['host'];
  if (host === undefined || !HOST.test(host)) return '';
  const fullPath = context?.path ?? event.path;
  const prefix = fullPath.endsWith(event.path) ? fullPath.slice(0, fullPath.length - event.path.length) : '';
  return `${context?.domainName ? 'https' : 'http'}://${host}${prefix.replace(/\/+$/, '')}`;
}

/** A host name or address, with an optional port: nothing that could break out of a URL's authority. */
const HOST = /^(?:[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;

function fromV2(event: APIGatewayProxyEventV2, route: RouteSpec): GatewayRequest {
  const headers = lowerCaseKeys(event.headers);
  const cookieHeader = event.cookies?.join('; ') ?? headers['cookie'];
  return {
    method: event.requestContext.http.method.toUpperCase(),
    path: event.rawPath,
    headers,
    query: compact(event.queryStringParameters),
    pathParams: matchPathParams(route.path, event.rawPath),
    cookies: parseCookieHeader(cookieHeader),
    rawBody: decodeBody(event.body, event.isBase64Encoded),
    sourceIp: event.requestContext.http.sourceIp,
    platformRequestId: event.requestContext.requestId,
    door: 'functionUrl',
    // Function URLs serve only https, at their own host, without a stage.
    baseUrl: HOST.test(event.requestContext.domainName) ? `https://${event.requestContext.domainName}` : '',
  };
}

/**
 * Function URLs carry no path parameters: recover them from the manifest's template. A last
 * `{name+}` takes the rest of the path, slashes and all, as API Gateway's greedy parameter does.
 */
export function matchPathParams(template: string, path: string): Record<string, string> {
  const names = template.split('/');
  const parts = path.split('/');
  const params: Record<string, string> = {};
  const greedy = /^\{(\w+)\+\}$/.exec(names.at(-1)!);
  if (greedy && parts.length >= names.length) {
    const rest = parts.splice(names.length - 1).join('/');
    if (rest !== '') params[greedy[1]!] = safeDecode(rest);
    names.pop();
  }
  if (names.length !== parts.length) return {};
  names.forEach((name, i) => {
    const match = /^\{(\w+)\}$/.exec(name);
    if (match) params[match[1]!] = safeDecode(parts[i]!);
  });
  return params;
}

export function parseCookieHeader(header: string | undefined): Record<string, string> {
  const cookies: Record<string, string> = {};
  if (!header) return cookies;
  for (const pair of header.split(';')) {
    const eq = pair.indexOf('=');
    const name = eq < 0 ? '' : pair.slice(0, eq).trim();
    // The first of duplicate names wins, as browsers send the most specific cookie first.
    if (name && !Object.hasOwn(cookies, name)) cookies[name] = safeDecode(pair.slice(eq + 1).trim());
  }
  return cookies;
}

function lowerCaseKeys(map: Record<string, string | undefined> | null | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  if (!map) return out;
  for (const [key, value] of Object.entries(map)) if (value !== undefined) out[key.toLowerCase()] = value;
  return out;
}

function compact(map: Record<string, string | undefined> | null | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  if (!map) return out;
  for (const [key, value] of Object.entries(map)) if (value !== undefined) out[key] = value;
  return out;
}

function decodeBody(body: string | null | undefined, base64: boolean): string {
  if (!body) return '';
  return base64 ? Buffer.from(body, 'base64').toString('utf8') : body;
}

function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}
