import { useLocalDynamoDb } from '../../support/local-dynamodb.js';
import { CLAIM_MS, claimIdempotencyKey, IDEMPOTENCY_TTL_MS } from '../../../lambdas/store/idempotency-keys.js';
import {
  IdempotencyError,
  parseIdempotencyKey,
  requestFingerprint,
  runIdempotently,
} from '../../../lambdas/store/idempotency.js';

/** Idempotency-Key → the first result, per account, 24 h; against dynalite. */

useLocalDynamoDb('idem');

let n = 0;
const freshKey = () => `key-${++n}-${Date.now()}`;
const scope = (key: string, body: unknown = { model_name: 'reframe' }, accountId = 'acct-1') => ({
  accountId,
  key,
  fingerprint: requestFingerprint(body),
});
const errorOf = async (promise: Promise<unknown>) => {
  const error = await promise.catch((e: unknown) => e);
  expect(error).toBeInstanceOf(IdempotencyError);
  return error as IdempotencyError;
};

test('a repeat with the same key and body gets the first result, without running the work again', async () => {
  const key = freshKey();
  let runs = 0;
  const work = async () => ({ predictionId: `p-${++runs}`, createdAt: 1 });
  expect(await runIdempotently(scope(key), work)).toEqual({
    result: { predictionId: 'p-1', createdAt: 1 },
    replayed: false,
  });
  expect(await runIdempotently(scope(key), work)).toEqual({
    result: { predictionId: 'p-1', createdAt: 1 },
    replayed: true,
  });
  expect(runs).toBe(1);
});

test('two concurrent requests with one key create one result; the other is told it is in flight', async () => {
  const key = freshKey();
  let runs = 0;
  let release!: () => void;
  const gate = new Promise<void>((done) => (release = done));
  const work = async () => {
    runs++;
    await gate;
    return 'p-only';
  };
  const first = runIdempotently(scope(key), work);
  const second = runIdempotently(scope(key), work).catch((e: unknown) => e);
  const refused = await second;
  release();
  expect(await first).toEqual({ result: 'p-only', replayed: false });
  expect(refused).toBeInstanceOf(IdempotencyError);
  expect((refused as IdempotencyError).kind).toBe('in_flight');
  expect(runs).toBe(1);
});

test('the same key with another body is a mismatch, whether done or in flight', async () => {
  const key = freshKey();
  await runIdempotently(scope(key, { a: 1 }), async () => 'p');
  expect((await errorOf(runIdempotently(scope(key, { a: 2 }), async () => 'q'))).kind).toBe('mismatch');
  const pending = freshKey();
  await claimIdempotencyKey('acct-1', pending, requestFingerprint({ a: 1 }));
  expect((await errorOf(runIdempotently(scope(pending, { a: 2 }), async () => 'q'))).kind).toBe('mismatch');
});

test('keys are per account', async () => {
  const key = freshKey();
  await runIdempotently(scope(key, {}, 'acct-a'), async () => 'pa');
  expect(await runIdempotently(scope(key, {}, 'acct-b'), async () => 'pb')).toEqual({ result: 'pb', replayed: false });
});

test('work that fails releases the key, so a retry runs', async () => {
  const key = freshKey();
  await expect(runIdempotently(scope(key), async () => Promise.reject(new Error('upstream 429')))).rejects.toThrow(
    'upstream 429',
  );
  expect(await runIdempotently(scope(key), async () => 'p-retry')).toEqual({ result: 'p-retry', replayed: false });
});

test('an abandoned claim is taken over after CLAIM_MS by the same body only; records live 24 h', async () => {
  const key = freshKey();
  const { accountId, fingerprint } = scope(key);
  const t0 = Date.now();
  expect(await claimIdempotencyKey(accountId, key, fingerprint, t0)).toEqual({ kind: 'claimed' });
  expect(await claimIdempotencyKey(accountId, key, fingerprint, t0 + CLAIM_MS - 1)).toEqual({ kind: 'in_flight' });
  expect(await claimIdempotencyKey(accountId, key, 'other', t0 + CLAIM_MS)).toEqual({ kind: 'mismatch' });
  expect(await claimIdempotencyKey(accountId, key, fingerprint, t0 + CLAIM_MS)).toEqual({ kind: 'claimed' });
  expect(await claimIdempotencyKey(accountId, key, 'other', t0 + CLAIM_MS + IDEMPOTENCY_TTL_MS)).toEqual({
    kind: 'claimed',
  });
});

test('the fingerprint ignores key order; the header is bounded visible ASCII', () => {
  expect(requestFingerprint({ a: 1, b: [1, { c: 2, d: 3 }] })).toBe(
    requestFingerprint({ b: [1, { d: 3, c: 2 }], a: 1 }),
  );
  expect(requestFingerprint({ a: 1 })).not.toBe(requestFingerprint({ a: '1' }));
  expect(parseIdempotencyKey(undefined)).toBeUndefined();
  expect(parseIdempotencyKey('9f1c-AB_x.y:z')).toBe('9f1c-AB_x.y:z');
  for (const bad of ['', 'a b', 'k'.repeat(256), 'ключ', 'a\nb']) {
    expect(() => parseIdempotencyKey(bad)).toThrow(expect.objectContaining({ kind: 'invalid_key' }));
  }
});
