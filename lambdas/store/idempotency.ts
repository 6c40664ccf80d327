import { createHash } from 'node:crypto';
import { canonicalJson } from '../schema/canonical-json.js';
import { claimIdempotencyKey, completeIdempotencyKey, releaseIdempotencyKey, type Claim } from './idempotency-keys.js';
import { domainErrorClass, type ErrorAnswers } from '../errors/domain-error.js';

/**
 * Runs work at most once per `Idempotency-Key` and account within 24 hours (for upstreams
 * that have no idempotency of their own, such as FASHN's `/run`). A repeat with the same body
 * gets the first result back; a repeat while the first is still running is refused as
 * `in_flight` (retry shortly); a repeat with a different body is refused as `mismatch`.
 */

export type IdempotencyErrorKind = 'invalid_key' | 'in_flight' | 'mismatch';

/** The header as callers send it, named in errors. */
export const IDEMPOTENCY_HEADER = 'Idempotency-Key';
export const MAX_IDEMPOTENCY_KEY_CHARS = 255;

/** How HTTP answers each kind, naming the header: bad key 400, in flight 409 (retry in 1 s), reused 422. */
export const IDEMPOTENCY_ERROR_ANSWERS: ErrorAnswers<IdempotencyErrorKind> = {
  invalid_key: { status: 400, code: 'BAD_REQUEST', field: IDEMPOTENCY_HEADER },
  in_flight: { status: 409, code: 'CONFLICT', field: IDEMPOTENCY_HEADER, retryAfter: { defaultMs: 1000 } },
  mismatch: { status: 422, code: 'IDEMPOTENCY_KEY_REUSED', field: IDEMPOTENCY_HEADER },
};

export class IdempotencyError extends domainErrorClass('IdempotencyError', IDEMPOTENCY_ERROR_ANSWERS) {}
/** Visible ASCII: UUIDs, ULIDs and the like, nothing that needs escaping in a log line or a key. */
const KEY_PATTERN = /^[\x21-\x7e]+$/;

/** The header's value, or undefined when absent; throws `invalid_key` for a malformed one. */
export function parseIdempotencyKey(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  if (header.length === 0 || header.length > MAX_IDEMPOTENCY_KEY_CHARS || !KEY_PATTERN.test(header)) {
    throw new IdempotencyError(
      'invalid_key',
      `${IDEMPOTENCY_HEADER}: must be 1 to ${MAX_IDEMPOTENCY_KEY_CHARS} visible ASCII characters`,
    );
  }
  return header;
}

/** A digest of a JSON request body, independent of its keys' order. */
export function requestFingerprint(body: unknown): string {
  return createHash('sha256').update(canonicalJson(body)).digest('base64url');
}

export interface IdempotentScope {
  readonly accountId: string;
  readonly key: string;
  readonly fingerprint: string;
}

/** The key store, replaceable in tests of the flow alone. */
export interface IdempotencyStore {
  claim(accountId: string, key: string, fingerprint: string): Promise<Claim>;
  complete(accountId: string, key: string, fingerprint: string, result: string): Promise<boolean>;
  release(accountId: string, key: string, fingerprint: string): Promise<boolean>;
}

export const dynamoIdempotencyStore: IdempotencyStore = {
  claim: (accountId, key, fingerprint) => claimIdempotencyKey(accountId, key, fingerprint),
  complete: completeIdempotencyKey,
  release: releaseIdempotencyKey,
};

/**
 * `work`'s result (JSON-serialisable), run only when this call claimed the key. When `work`
 * throws, the claim is released and the error passes on: the work created nothing a retry
 * could duplicate (callers run here only what fails before creating anything, or succeeds).
 */
export async function runIdempotently<T>(
  scope: IdempotentScope,
  work: () => Promise<T>,
  store: IdempotencyStore = dynamoIdempotencyStore,
): Promise<{ readonly result: T; readonly replayed: boolean }> {
  const { accountId, key, fingerprint } = scope;
  const claim = await store.claim(accountId, key, fingerprint);
  if (claim.kind === 'replay') return { result: JSON.parse(claim.result) as T, replayed: true };
  if (claim.kind === 'in_flight') {
    throw new IdempotencyError('in_flight', `${IDEMPOTENCY_HEADER}: a request with this key is still in progress`);
  }
  if (claim.kind === 'mismatch') {
    throw new IdempotencyError(
      'mismatch',
      `${IDEMPOTENCY_HEADER}: this key was already used with a different request body; use a new key`,
    );
  }
  let result: T;
  try {
    result = await work();
  } catch (error) {
    await store.release(accountId, key, fingerprint).catch(() => false);
    throw error;
  }
  await store.complete(accountId, key, fingerprint, JSON.stringify(result));
  return { result, replayed: false };
}
