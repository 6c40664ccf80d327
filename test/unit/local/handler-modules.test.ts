import { routes, type RouteSpec } from '../../../lib/routes.js';
import { loadRouteHandler } from '../../../local/handler-modules.js';
import { installLambdaStreamingGlobals } from '../../../local/lambda-streaming.js';

/** The local runtime loads each route's handler through one import esbuild can see (local/launch.mjs). */
beforeAll(() => installLambdaStreamingGlobals());

test.each(routes.map((route) => [route.id, route] as const))(
  '%s: its manifest entry loads and exports a handler',
  async (_id, route) => {
    const module = await loadRouteHandler(route);
    expect(typeof module.handler).toBe('function');
  },
);

test('an entry outside lambdas/handlers/ is refused by name, not imported', async () => {
  const stray: RouteSpec = { ...routes[0]!, id: 'stray', entry: 'lambdas/other/stray.ts' };
  await expect(loadRouteHandler(stray)).rejects.toThrow(
    'route stray: the local runtime loads handlers from lambdas/handlers/ only',
  );
  const nested: RouteSpec = { ...routes[0]!, id: 'nested', entry: 'lambdas/handlers/deeper/x.ts' };
  await expect(loadRouteHandler(nested)).rejects.toThrow('route nested');
});
