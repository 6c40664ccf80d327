import { routes } from '../../lib/routes.js';
import { build, functionLogicalId, manifestRoutes, syntheticRoute, type Built } from './support.js';

/**
 * A buffered (non-streaming) route must answer before API Gateway's 29 s integration timeout,
 * or the caller gets a 504 while the function, and the job and charge it starts, go on. The
 * margin covers a cold start's init (counted by API Gateway, not by the function's timeout)
 * and the handler's own answer after it stops its upstream work, 1 s before its timeout.
 */
const API_GATEWAY_BUFFERED_TIMEOUT_SECONDS = 29;
const ANSWER_MARGIN_SECONDS = 3;

describe('buffered routes answer before API Gateway gives up', () => {
  let built: Built;
  beforeAll(() => {
    built = build({ routes: manifestRoutes });
  });

  test.each(routes.filter((route) => !route.streaming).map((route) => [route.id, route] as const))(
    '%s: its function times out with room to answer within 29 s',
    (_id, route) => {
      const fn = built.template.toJSON().Resources[functionLogicalId(built.stack, route.id)];
      const timeout = fn.Properties.Timeout as number;
      expect(timeout + ANSWER_MARGIN_SECONDS).toBeLessThanOrEqual(API_GATEWAY_BUFFERED_TIMEOUT_SECONDS);
    },
  );

  test('the routes that start upstream work (search, video and fashion submits) among them', () => {
    for (const id of ['search', 'media-video', 'fashion-run']) {
      const route = routes.find((candidate) => candidate.id === id)!;
      expect([id, route.streaming, route.timeoutSeconds <= 26]).toEqual([id, false, true]);
    }
  });

  test('streaming routes are not bound by it: they stream through for up to 15 minutes', () => {
    expect(routes.filter((route) => route.streaming && route.timeoutSeconds > 26).length).toBeGreaterThan(0);
  });
});

test('the synth refuses a buffered route whose function would outlive the integration', () => {
  const slow = syntheticRoute({ id: 'slow-buffered', path: '/slow', timeoutSeconds: 27 });
  expect(() => build({ routes: [slow] })).toThrow(
    /route slow-buffered: a 27 s function timeout behind API Gateway's 29 s buffered integration .* at most 26 s/,
  );
  expect(() => build({ routes: [{ ...slow, timeoutSeconds: 26 }] })).not.toThrow();
  expect(() => build({ routes: [{ ...slow, streaming: true, timeoutSeconds: 900 }] })).not.toThrow();
});
