import { createHash } from 'node:crypto';
import { TENANT_SESSION_TAG } from './tenant-tags.js';
import type { AssumeRole, SessionCredentials } from './sts-client.js';

/**
 * Per-tenant credentials: the tenant-access role assumed with the account as a session tag, so
 * what is read with them is limited by IAM to that account's items and secrets. Kept per
 * instance and account:
 * - a hit costs no call at all; a miss costs one AssumeRole;
 * - credentials are renewed `refreshBeforeMs` before they expire, so none is handed out that
 *   could lapse during the read it was fetched for;
 * - concurrent misses for one account share one AssumeRole (the pending call is what is kept);
 * - a failed AssumeRole is not kept: the next request tries again;
 * - at most `maxAccounts` accounts are kept, the least recently used dropped first, so a flood
 *   of accounts cannot grow an instance's memory.
 */
export interface TenantCredentialOptions {
  readonly assumeRole: AssumeRole;
  readonly roleArn: string;
  /** @default TENANT_SESSION_SECONDS */
  readonly durationSeconds?: number;
  /** @default TENANT_REFRESH_BEFORE_MS */
  readonly refreshBeforeMs?: number;
  /** @default TENANT_CACHE_ACCOUNTS */
  readonly maxAccounts?: number;
  readonly now?: () => number;
}

/** 15 minutes, STS's shortest session: a leaked credential is worth the least. */
export const TENANT_SESSION_SECONDS = 900;
/** Renewed with 2 minutes left: longer than any read made with them takes. */
export const TENANT_REFRESH_BEFORE_MS = 2 * 60_000;
export const TENANT_CACHE_ACCOUNTS = 500;

interface Entry {
  readonly credentials: Promise<SessionCredentials>;
  /** Known once the call has answered. */
  expiresAt?: number;
}

export class TenantCredentials {
  private readonly entries = new Map<string, Entry>();
  private readonly now: () => number;

  constructor(private readonly options: TenantCredentialOptions) {
    this.now = options.now ?? Date.now;
  }

  /** The account's credentials, from this instance's cache or one AssumeRole. */
  get(accountId: string): Promise<SessionCredentials> {
    const kept = this.entries.get(accountId);
    const refreshBefore = this.options.refreshBeforeMs ?? TENANT_REFRESH_BEFORE_MS;
    if (kept && (kept.expiresAt === undefined || kept.expiresAt - refreshBefore > this.now())) {
      this.entries.delete(accountId);
      this.entries.set(accountId, kept);
      return kept.credentials;
    }
    return this.assume(accountId);
  }

  /** How many accounts' credentials are kept (or being fetched). */
  get size(): number {
    return this.entries.size;
  }

  private assume(accountId: string): Promise<SessionCredentials> {
    const credentials = this.options.assumeRole({
      roleArn: this.options.roleArn,
      sessionName: sessionNameOf(accountId),
      durationSeconds: this.options.durationSeconds ?? TENANT_SESSION_SECONDS,
      tags: { [TENANT_SESSION_TAG]: accountId },
    });
    const entry: Entry = { credentials };
    this.entries.delete(accountId);
    this.entries.set(accountId, entry);
    if (this.entries.size > (this.options.maxAccounts ?? TENANT_CACHE_ACCOUNTS))
      this.entries.delete(this.entries.keys().next().value!);
    credentials.then(
      (answered) => (entry.expiresAt = answered.expiresAt),
      () => {
        if (this.entries.get(accountId) === entry) this.entries.delete(accountId);
      },
    );
    return credentials;
  }
}

/**
 * The session's name, which CloudTrail shows beside every call made with it: the account id
 * when STS accepts it as a name, else a digest of it.
 */
export function sessionNameOf(accountId: string): string {
  const name = `tenant-${accountId}`;
  return /^[\w+=,.@-]{2,64}$/.test(name)
    ? name
    : `tenant-${createHash('sha256').update(accountId).digest('hex').slice(0, 40)}`;
}
