import { FashionError, invalidFashion, type FashionErrorKind } from '../../../lambdas/fashion/fashion-errors.js';
import { IdempotencyError } from '../../../lambdas/store/idempotency.js';
import { HttpError } from '../../../lambdas/http/errors.js';
import { httpErrorOfFailure } from '../../../lambdas/http/middlewares/response-writing.js';
import { fashionStatusData } from '../../../lambdas/fashion/fashion-call.js';
import { responseMeta, withMeta } from '../../../lambdas/http/response-meta.js';
import { JobNotFoundError } from '../../../lambdas/jobs/job-lookup.js';

/** Fashion domain errors map to the statuses of docs/interface.md §7 and the README; every answer carries meta. */

/** As the response writer answers a failure thrown by the fashion routes. */
const mapped = (error: unknown) => {
  const http = httpErrorOfFailure(error);
  if (!(http instanceof HttpError)) throw new Error('not mapped');
  return http;
};

test('meta: the request id when it is a UUID (else a fresh one) and an ISO timestamp', () => {
  const meta = responseMeta('0b7e7f4e-8a41-4c52-9f0e-3c8e3f3a8b11', new Date('2026-11-24T10:00:00Z'));
  expect(meta).toEqual({ requestId: '0b7e7f4e-8a41-4c52-9f0e-3c8e3f3a8b11', timestamp: '2026-11-24T10:00:00.000Z' });
  expect(responseMeta('caller-chosen-id').requestId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-/);
});

test('meta joins envelopes, successes and errors alike, and nothing else', () => {
  const meta = responseMeta('0b7e7f4e-8a41-4c52-9f0e-3c8e3f3a8b11');
  expect(withMeta({ success: true, data: { a: 1 } }, meta)).toEqual({ success: true, data: { a: 1 }, meta });
  expect(withMeta({ success: false, error: { code: 'X' } }, meta)).toEqual({
    success: false,
    error: { code: 'X' },
    meta,
  });
  expect(withMeta({ error: { message: 'openai-shaped' } }, meta)).toEqual({ error: { message: 'openai-shaped' } });
  expect(withMeta('text', meta)).toBe('text');
});

test('a validation error is 400 BAD_REQUEST naming the field', () => {
  const error = mapped(invalidFashion('inputs.seed', 'must be an integer from 0 to 4294967295'));
  expect([error.status, error.code, error.param, error.message]).toEqual([
    400,
    'BAD_REQUEST',
    'inputs.seed',
    'inputs.seed: must be an integer from 0 to 4294967295',
  ]);
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
  ['too_many_watchers', 429, 'RATE_LIMIT_EXCEEDED', '10'],
])('%s → %d %s (Retry-After %s)', (kind, status, code, retryAfter) => {
  const error = mapped(new FashionError(kind, 'FASHN said something internal'));
  expect([error.status, error.code, error.headers['Retry-After']]).toEqual([status, code, retryAfter]);
  if (status === 503) expect(error.message).not.toMatch(/internal/);
});

test('an unknown prediction id (or another account’s) is 404 naming the id', () => {
  const error = mapped(new JobNotFoundError('job_x'));
  expect([error.status, error.code, error.param]).toEqual([404, 'NOT_FOUND', 'id']);
});

test('a prediction with its cap of watching streams: 429 saying so, Retry-After when a slot lapses at the latest', () => {
  const error = mapped(new FashionError('too_many_watchers', 'at most 10', { retryAfterMs: 150_000 }));
  expect([error.status, error.code, error.headers['Retry-After']]).toEqual([429, 'RATE_LIMIT_EXCEEDED', '150']);
  expect(error.message).toBe(
    'At most 10 streams may watch one prediction at once (poll its status instead); retry after 150 s',
  );
});

test("the upstream's retry hint wins over the default", () => {
  expect(mapped(new FashionError('rate_limited', 'x', { retryAfterMs: 7_200 })).headers['Retry-After']).toBe('8');
});

test('idempotency: bad key 400, in flight 409 with Retry-After, reused with another body 422', () => {
  const bad = mapped(new IdempotencyError('invalid_key', 'Idempotency-Key: must be ...'));
  expect([bad.status, bad.param]).toEqual([400, 'Idempotency-Key']);
  const busy = mapped(new IdempotencyError('in_flight', 'still running'));
  expect([busy.status, busy.code, busy.headers['Retry-After']]).toEqual([409, 'CONFLICT', '1']);
  const reused = mapped(new IdempotencyError('mismatch', 'other body'));
  expect([reused.status, reused.code]).toEqual([422, 'IDEMPOTENCY_KEY_REUSED']);
});

test('anything else passes unchanged, for the logged 500', () => {
  const bug = new TypeError('oops');
  expect(mapped(bug)).toMatchObject({ status: 500, code: 'INTERNAL_ERROR' });
  expect(mapped(bug).message).not.toMatch(/oops/);
});

test('status data: a failed prediction keeps its error, output null', () => {
  expect(
    fashionStatusData({
      predictionId: 'job_p',
      status: 'failed',
      modelName: 'reframe',
      createdAt: 1_790_000_000_000,
      webhook: null,
      output: null,
      error: { name: 'PoseError', message: 'm' },
    }),
  ).toEqual({
    prediction_id: 'job_p',
    status: 'failed',
    model_name: 'reframe',
    created_at: 1_790_000_000_000,
    output: null,
    error: { name: 'PoseError', message: 'm' },
    webhook: null,
  });
});
