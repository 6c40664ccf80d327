import { errorBody } from '../../../lambdas/http/error-body.js';
import { invalidCredentials, missingCredentials, notAllowed } from '../../../lambdas/identity/identity-errors.js';
import { badRequest, conflict, HttpError, httpErrorOf, notFound, rateLimited } from '../../../lambdas/http/errors.js';

describe('errorBody in the OpenAI shape', () => {
  test('a 400 carries the field as param', () => {
    expect(errorBody('openai', badRequest('messages[0].role', 'messages[0].role: is required'))).toEqual({
      error: {
        message: 'messages[0].role: is required',
        type: 'invalid_request_error',
        code: 'BAD_REQUEST',
        param: 'messages[0].role',
      },
    });
  });

  test('param is null when absent', () => {
    expect(errorBody('openai', httpErrorOf(invalidCredentials()))).toEqual({
      error: { message: 'Invalid API key', type: 'authentication_error', code: 'INVALID_API_KEY', param: null },
    });
  });

  test.each([
    [httpErrorOf(missingCredentials()), 'authentication_error'],
    [httpErrorOf(notAllowed('no')), 'permission_error'],
    [notFound('Key'), 'not_found_error'],
    [conflict('name', 'taken'), 'invalid_request_error'],
    [rateLimited(3), 'rate_limit_error'],
    [new HttpError(503, 'UPSTREAM_UNAVAILABLE', 'down'), 'service_unavailable'],
    [new HttpError(500, 'INTERNAL_ERROR', 'boom'), 'api_error'],
    [new HttpError(502, 'UPSTREAM_ERROR', 'bad gateway'), 'api_error'],
  ])('status %#: type %s', (error, type) => {
    const body = errorBody('openai', error) as { error: { type: string; code: string; message: string } };
    expect(body.error.type).toBe(type);
    expect(body.error.code).toBe(error.code);
    expect(body.error.message).toBe(error.message);
  });
});

describe('errorBody in the envelope shape', () => {
  test('field appears only when the error names one', () => {
    expect(errorBody('envelope', badRequest('rateLimit', 'rateLimit: must be <= 10000'))).toEqual({
      success: false,
      error: { code: 'BAD_REQUEST', message: 'rateLimit: must be <= 10000', field: 'rateLimit' },
    });
    const noField = errorBody('envelope', notFound('API key')) as { error: Record<string, unknown> };
    expect(noField).toEqual({ success: false, error: { code: 'NOT_FOUND', message: 'API key not found' } });
    expect('field' in noField.error).toBe(false);
  });

  test('a rate-limit refusal: code and message, no field, no param', () => {
    expect(errorBody('envelope', rateLimited(7))).toEqual({
      success: false,
      error: { code: 'RATE_LIMIT_EXCEEDED', message: 'Rate limit exceeded; retry after 7 s' },
    });
  });

  test('the envelope never carries the OpenAI keys, nor the OpenAI shape the envelope keys', () => {
    const envelope = errorBody('envelope', conflict('email', 'email: already exists')) as {
      error: Record<string, unknown>;
    };
    expect(Object.keys(envelope.error).sort()).toEqual(['code', 'field', 'message']);
    const openai = errorBody('openai', conflict('email', 'email: already exists')) as Record<string, unknown>;
    expect(Object.keys(openai)).toEqual(['error']);
  });
});
