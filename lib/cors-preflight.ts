/**
 * What a CORS preflight answers, shared by the stack (API Gateway OPTIONS methods) and the local
 * server, so both doors admit the same requests. Data and pure functions only.
 */
import type { HttpMethod, RouteSpec } from './routes.js';

/** Request headers the public interface accepts from browsers. */
export const CORS_ALLOW_HEADERS: readonly string[] = [
  'Authorization',
  'X-API-Key',
  'Content-Type',
  'X-Request-ID',
  'X-Cache',
  'X-Cache-TTL',
  'X-Guardrails',
];

/** Methods the deployment's own origins may use cross-origin, on every resource. */
export const DEPLOYMENT_CORS_METHODS: readonly string[] = ['GET', 'POST', 'PATCH', 'DELETE', 'OPTIONS'];

/** How long a browser may reuse a preflight answer. */
export const CORS_MAX_AGE_SECONDS = 3600;

export const acceptsPublishableKey = (route: RouteSpec): boolean => route.auth.includes('publishableKey');

/**
 * The methods a preflight admits from any origin on one resource, given the routes at it: every
 * method of the resource once one of its routes accepts publishable keys (a `pk_` key names its
 * own origins, which only the real request can check, since a preflight carries no credentials),
 * none otherwise.
 */
export function publishableKeyMethods(routesAtResource: readonly RouteSpec[]): readonly HttpMethod[] | undefined {
  if (!routesAtResource.some(acceptsPublishableKey)) return undefined;
  return [...new Set(routesAtResource.map((route) => route.method))];
}

/** Every resource path with a route that accepts publishable keys, and the methods its preflight admits. */
export function publishableKeyResources(routes: readonly RouteSpec[]): ReadonlyMap<string, readonly HttpMethod[]> {
  const byPath = new Map<string, RouteSpec[]>();
  for (const route of routes) byPath.set(route.path, [...(byPath.get(route.path) ?? []), route]);
  const resources = new Map<string, readonly HttpMethod[]>();
  for (const [path, routesAtPath] of byPath) {
    const methods = publishableKeyMethods(routesAtPath);
    if (methods) resources.set(path, methods);
  }
  return resources;
}
