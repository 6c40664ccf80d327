import { IdentityError } from './identity-errors.js';
import { putApiKey, type ApiKeyRecord } from '../store/api-keys.js';
import { generateKey } from './api-key-format.js';
import { storedBudget, type BudgetBody, type ContentLogBody } from './key-schemas.js';
import type { KeyType } from '../store/api-keys.js';

export const DEFAULT_KEY_NAME = 'Default';
/** Requests per minute when the creator sets none (docs/interface.md §2.5 leaves the default open). */
export const DEFAULT_RATE_LIMIT = 600;

/** Null, as the request bodies allow it, means the field was not given. */
export interface KeyRequest {
  readonly accountId: string;
  readonly type: KeyType;
  readonly name?: string | null;
  readonly rateLimit?: number | null;
  readonly allowedOrigins?: readonly string[] | null;
  readonly budget?: BudgetBody | null;
  readonly contentLog?: ContentLogBody | null;
}

export interface IssuedKey {
  readonly record: ApiKeyRecord;
  /** The full key: returned to the caller once and never stored. */
  readonly key: string;
}

/** Publishable keys live in browsers and must name their origins; secret keys have none. */
export function assertOriginsFitType(type: KeyType, allowedOrigins: readonly string[] | null | undefined): void {
  if (type === 'publishable' && !allowedOrigins) {
    throw new IdentityError('invalid_request', 'allowedOrigins: is required for publishable keys', {
      field: 'allowedOrigins',
    });
  }
  if (type === 'secret' && allowedOrigins) {
    throw new IdentityError('invalid_request', 'allowedOrigins: only applies to publishable keys', {
      field: 'allowedOrigins',
    });
  }
}

export async function issueKey(request: KeyRequest, now = new Date()): Promise<IssuedKey> {
  assertOriginsFitType(request.type, request.allowedOrigins);
  const generated = generateKey(request.type);
  const record: ApiKeyRecord = {
    keyId: generated.keyId,
    accountId: request.accountId,
    type: request.type,
    hash: generated.hash,
    name: request.name ?? DEFAULT_KEY_NAME,
    rateLimit: request.rateLimit ?? DEFAULT_RATE_LIMIT,
    enabled: true,
    revoked: false,
    allowedOrigins: request.type === 'publishable' ? [...(request.allowedOrigins ?? [])] : [],
    createdAt: now.toISOString(),
    ...(request.budget ? { budget: storedBudget(request.budget) } : {}),
    ...(request.contentLog ? { contentLog: { retentionDays: request.contentLog.retentionDays } } : {}),
  };
  await putApiKey(record);
  return { record, key: generated.key };
}
