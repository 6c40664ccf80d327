import type { APIGatewayProxyResult } from 'aws-lambda';
import { defineHandler, routeById } from '../../../lambdas/http/define-handler.js';
import { lambdaContext, publicGetEvent } from '../../support/lambda-invocation.js';

/**
 * A call the function's own deadline cuts (its signal aborts a margin before Lambda would stop
 * it) while the handler waits on an upstream that has no answer yet: the upstream was too slow,
 * so the caller gets 503 SERVICE_UNAVAILABLE to retry, not a 500 that reads as our bug. An
 * abort for any other reason, or any other error, stays what it was.
 */

const event = publicGetEvent;

/** A context with just past the deadline margin left, so the call's signal aborts at once. */
const nearDeadline = () => lambdaContext(1_001);
const plenty = () => lambdaContext(60_000);

/** Waits on the call's signal as an upstream fetch would, then fails as fetch does. */
function waitingHandler(fail: (signal: AbortSignal) => unknown) {
  return defineHandler(routeById('openapi-get'), {
    handle: (call) =>
      new Promise((_resolve, reject) => {
        if (call.signal.aborted) reject(fail(call.signal));
        call.signal.addEventListener('abort', () => reject(fail(call.signal)), { once: true });
      }),
  });
}

const abortError = () => Object.assign(new Error('This operation was aborted'), { name: 'AbortError' });

test('an upstream wait cut by the deadline is 503 SERVICE_UNAVAILABLE', async () => {
  const answer = (await waitingHandler(abortError)(event, nearDeadline())) as APIGatewayProxyResult;
  expect(answer.statusCode).toBe(503);
  expect(JSON.parse(answer.body).error).toEqual({
    code: 'SERVICE_UNAVAILABLE',
    message: 'The upstream did not answer in time; retry later',
  });
});

test("the signal's own reason, rethrown, is answered the same", async () => {
  const answer = (await waitingHandler((signal) => signal.reason)(event, nearDeadline())) as APIGatewayProxyResult;
  expect(answer.statusCode).toBe(503);
});

test('a bug that happens after the deadline is still a 500', async () => {
  const answer = (await waitingHandler(() => new TypeError('x is undefined'))(
    event,
    nearDeadline(),
  )) as APIGatewayProxyResult;
  expect(answer.statusCode).toBe(500);
});

test('an abort with time left (not the deadline) is still a 500', async () => {
  const handler = defineHandler(routeById('openapi-get'), {
    handle: async () => {
      throw abortError();
    },
  });
  const answer = (await handler(event, plenty())) as APIGatewayProxyResult;
  expect(answer.statusCode).toBe(500);
});
