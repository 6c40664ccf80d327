import { ChatError, type ChatErrorKind } from '../../../lambdas/chat/chat-errors.js';
import { httpErrorOf } from '../../../lambdas/http/errors.js';

test.each<[ChatErrorKind, number, string]>([
  ['invalid_request', 400, 'BAD_REQUEST'],
  ['model_not_found', 404, 'model_not_found'],
  ['content_filtered', 400, 'CONTENT_FILTERED'],
  ['content_blocked', 400, 'CONTENT_BLOCKED'],
  ['schema_validation_failed', 400, 'SCHEMA_VALIDATION_FAILED'],
  ['upstream_rate_limited', 429, 'RATE_LIMIT_EXCEEDED'],
  ['model_unavailable', 503, 'SERVICE_UNAVAILABLE'],
  ['dependency_unavailable', 503, 'SERVICE_UNAVAILABLE'],
])('%s is answered %i %s', (kind, status, code) => {
  expect(httpErrorOf(new ChatError(kind, 'why'))).toMatchObject({ status, code, message: 'why', headers: {} });
});

test('the field at fault becomes the param; a retry hint becomes Retry-After', () => {
  expect(httpErrorOf(new ChatError('invalid_request', 'm', { field: 'messages' })).param).toBe('messages');
  expect(httpErrorOf(new ChatError('upstream_rate_limited', 'm', { retryAfterSeconds: 3 })).headers).toEqual({
    'Retry-After': '3',
  });
});
