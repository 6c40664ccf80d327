import {
  FashionError,
  invalidFashion,
  type FashionErrorKind,
} from '../../../lambdas/providers/fashion/fashion-errors.js';
import { IdempotencyError } from '../../../lambdas/store/idempotency.js';
import { HttpError } from '../../../lambdas/http/errors.js';
import { fashionErrorReply, fashionMeta, fashionReply } from '../../../lambdas/http/fashion-reply.js';
import { fashionStatusData } from '../../../lambdas/http/fashion-bodies.js';

/** Fashion responses carry meta; domain errors map to the statuses of spec 7 and the README. */
const meta = fashionMeta('0b7e7f4e-8a41-4c52-9f0e-3c8e3f3a8b11', new Date('2026-11-24T10:00:00Z'));

test('meta: the request id when it is a UUID (else a fresh one) and an ISO timestamp', () => {
  expect(meta).toEqual({ requestId: '0b7e7f4e-8a41-4c52-9f0e-3c8e3f3a8b11', timestamp: '2026-11-24T10:00:00.000Z' });
  expect(fashionMeta('caller-chosen-id').requestId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-/);
});

test('a success is {success, data, meta}', () => {
  expect(fashionReply({ prediction_id: 'p' }, meta, 200)).toEqual({
    kind: 'json',
    status: 200,
    body: { success: true, data: { prediction_id: 'p' }, meta },
    headers: undefined,
  });
});

const replyOf = (error: unknown) => {
  const reply = fashionErrorReply(error, meta, { 'X-RateLimit-Limit': '30' });
  if (reply.kind !== 'json') throw new Error('not json');
  return reply as {
    status: number;
    body: { success: false; error: Record<string, string>; meta: unknown };
    headers: Record<string, string>;
  };
};

test('a validation error is 400 BAD_REQUEST naming the field, with meta', () => {
  const reply = replyOf(invalidFashion('inputs.seed', 'must be an integer from 0 to 4294967295'));
  expect(reply.status).toBe(400);
  expect(reply.body).toEqual({
    success: false,
    error: {
      code: 'BAD_REQUEST',
      message: 'inputs.seed: must be an integer from 0 to 4294967295',
      field: 'inputs.seed',
    },
    meta,
  });
  expect(reply.headers).toEqual({ 'X-RateLimit-Limit': '30' });
});

test.each<[FashionErrorKind, number, string, string | undefined]>([
  ['upstream_rejected', 400, 'BAD_REQUEST', undefined],
  ['not_found', 404, 'NOT_FOUND', undefined],
  ['rate_limited', 429, 'RATE_LIMIT_EXCEEDED', '5'],
  ['concurrency_limited', 429, 'RATE_LIMIT_EXCEEDED', '10'],
  ['out_of_credits', 503, 'SERVICE_UNAVAILABLE', undefined],
  ['upstream_auth', 503, 'SERVICE_UNAVAILABLE', undefined],
  ['not_configured', 503, 'SERVICE_UNAVAILABLE', undefined],
  ['upstream_failed', 503, 'SERVICE_UNAVAILABLE', undefined],
])('%s → %d %s (Retry-After %s)', (kind, status, code, retryAfter) => {
  const reply = replyOf(new FashionError(kind, 'FASHN said something internal'));
  expect([reply.status, reply.body.error['code'], reply.headers['Retry-After']]).toEqual([status, code, retryAfter]);
  expect(reply.body.meta).toEqual(meta);
  if (status === 503) expect(reply.body.error['message']).not.toMatch(/internal/);
});

test("the upstream's retry hint wins over the default", () => {
  const reply = replyOf(new FashionError('rate_limited', 'x', { retryAfterMs: 7_200 }));
  expect(reply.headers['Retry-After']).toBe('8');
});

test('idempotency: bad key 400, in flight 409 with Retry-After, reused with another body 422', () => {
  const bad = replyOf(new IdempotencyError('invalid_key', 'Idempotency-Key: must be ...'));
  expect([bad.status, bad.body.error['field']]).toEqual([400, 'Idempotency-Key']);
  const busy = replyOf(new IdempotencyError('in_flight', 'still running'));
  expect([busy.status, busy.body.error['code'], busy.headers['Retry-After']]).toEqual([409, 'CONFLICT', '1']);
  const reused = replyOf(new IdempotencyError('mismatch', 'other body'));
  expect([reused.status, reused.body.error['code']]).toEqual([422, 'IDEMPOTENCY_KEY_REUSED']);
});

test('an HttpError (the caller-limit 429) keeps its headers; anything else is rethrown for the 500', () => {
  const limited = replyOf(new HttpError(429, 'RATE_LIMIT_EXCEEDED', 'slow', undefined, { 'Retry-After': '12' }));
  expect([limited.status, limited.headers['Retry-After'], limited.headers['X-RateLimit-Limit']]).toEqual([
    429,
    '12',
    '30',
  ]);
  const bug = new TypeError('oops');
  expect(() => fashionErrorReply(bug, meta)).toThrow(bug);
});

test('status data: a failed prediction keeps its error, output null', () => {
  expect(
    fashionStatusData({
      id: 'p',
      status: 'failed',
      output: null,
      error: { name: 'PoseError', message: 'm' },
      creditsUsed: 0,
    }),
  ).toEqual({ prediction_id: 'p', status: 'failed', output: null, error: { name: 'PoseError', message: 'm' } });
});
