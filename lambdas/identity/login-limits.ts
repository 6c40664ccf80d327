/**
 * The dashboard sign-in allowances (lambdas/identity/login-throttle.ts counts them), apart
 * so the OpenAPI document can state them without loading the throttle's store.
 * Per account: Cognito's own lockout schedule. Per client: 30 unsuccessful sign-ins per 10
 * minutes, enough for a shared office address, far too few for a guessing run.
 */

export interface LoginLimits {
  /** Failed attempts an account may have before its first lock. */
  readonly freeFailures: number;
  readonly firstLockMs: number;
  readonly maxLockMs: number;
  /** An account with no failure for this long after its lock passed starts from zero. */
  readonly quietMs: number;
  /** Unsuccessful attempts one client may make per window, across accounts. */
  readonly clientAttempts: number;
  readonly clientWindowMs: number;
}

export const LOGIN_LIMITS: LoginLimits = {
  freeFailures: 5,
  firstLockMs: 1_000,
  maxLockMs: 15 * 60_000,
  quietMs: 15 * 60_000,
  clientAttempts: 30,
  clientWindowMs: 10 * 60_000,
};

/** How long an account with `failures` failed attempts stays locked after its last one. */
export function lockMs(failures: number, limits: LoginLimits = LOGIN_LIMITS): number {
  if (failures < limits.freeFailures) return 0;
  // A huge count makes 2^n Infinity, which the cap absorbs.
  return Math.min(limits.maxLockMs, limits.firstLockMs * 2 ** (failures - limits.freeFailures));
}

/**
 * How long an authenticator set-up waits for its confirming code: the app client's
 * authentication session validity (lib/constructs/user-pool.ts), since a set-up begun at
 * sign-in keeps Cognito's challenge session, and the pending set-up's lifetime.
 */
export const MFA_SETUP_VALIDITY_MS = 10 * 60_000;
