import type { RouteSpec } from '../lib/routes.js';

const HANDLERS_DIR = 'lambdas/handlers/';

/**
 * A manifest route's handler module, as its Lambda function would load it. The import names
 * the handlers folder literally so that esbuild, bundling the local runtime (local/launch.mjs),
 * puts every handler in the bundle; a path computed at run time would stay outside it.
 */
export function loadRouteHandler(route: Pick<RouteSpec, 'id' | 'entry'>): Promise<{ handler: unknown }> {
  if (!route.entry.startsWith(HANDLERS_DIR) || route.entry.slice(HANDLERS_DIR.length).includes('/'))
    return Promise.reject(new Error(`route ${route.id}: the local runtime loads handlers from ${HANDLERS_DIR} only`));
  return import(`../lambdas/handlers/${route.entry.slice(HANDLERS_DIR.length)}`) as Promise<{ handler: unknown }>;
}
