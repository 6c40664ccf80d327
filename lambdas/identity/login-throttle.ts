import { createHash } from 'node:crypto';
import { isIPv4, isIPv6 } from 'node:net';
import {
  addAttempt,
  clearAttempts,
  markFailure,
  readAttempts,
  startAttempts,
  type AttemptRules,
  type FailureRecord,
  type LockRung,
} from '../store/login-attempts.js';
import { giveBack, lease } from '../store/rate-limit-windows.js';
import { lockMs, LOGIN_LIMITS, type LoginLimits } from './login-limits.js';

/**
 * Dashboard sign-in throttling, per account and per client, shared by every instance through
 * DynamoDB. Per account (the email tried, known or not, so a lock says nothing about which
 * emails exist) it follows Cognito's own lockout: five failures free, then a lock of 1 s that
 * doubles with each further failure up to 15 minutes; refused attempts do not lengthen it; a
 * successful sign-in, or 15 minutes without a failure once the lock has passed, starts the
 * count again. (Cognito counts those 15 minutes from the last attempt, so at its cap the count
 * is forgotten just as the lock ends and five free guesses follow; from the lock's end, an
 * account at the cap gets one guess per 15 minutes.) Per client
 * (source IP, an IPv6 client by its /64) it allows 30 unsuccessful attempts in a 10-minute
 * window across accounts; a successful sign-in hands its attempt back. The client is checked
 * first, so a client past its allowance cannot lengthen any account's lock.
 */

/** The lock per failure count, up to the first count whose lock stops growing (the cap). */
export function lockLadder(limits: LoginLimits = LOGIN_LIMITS): LockRung[] {
  const ladder: LockRung[] = [];
  for (let failures = limits.freeFailures; ; failures++) {
    const lock = lockMs(failures, limits);
    ladder.push({ failures, lockMs: lock });
    if (lock >= limits.maxLockMs || lock <= (ladder.at(-2)?.lockMs ?? -1)) return ladder;
  }
}

export interface LoginThrottleStore {
  startAttempts(account: string, now: number, rules: AttemptRules): Promise<boolean>;
  addAttempt(account: string, now: number, rules: AttemptRules): Promise<number | undefined>;
  readAttempts(account: string): Promise<FailureRecord | undefined>;
  markFailure(account: string, at: number, rules: AttemptRules): Promise<void>;
  clearAttempts(account: string): Promise<void>;
  /** One attempt from the client's window: granted or not, and when the window ends. */
  leaseClientAttempt(
    client: string,
    limit: number,
    now: number,
    windowMs: number,
  ): Promise<{ granted: boolean; resetAtMs: number }>;
  giveBackClientAttempt(client: string, resetAtMs: number): Promise<void>;
}

const CLIENT_BUCKET = (client: string) => `auth-login#client:${client}`;

export const dynamoLoginThrottleStore: LoginThrottleStore = {
  startAttempts,
  addAttempt,
  readAttempts,
  markFailure,
  clearAttempts,
  async leaseClientAttempt(client, limit, now, windowMs) {
    const granted = await lease(CLIENT_BUCKET(client), limit, 1, now, false, windowMs);
    return { granted: granted.granted > 0, resetAtMs: granted.resetAtMs };
  },
  giveBackClientAttempt: (client, resetAtMs) => giveBack(CLIENT_BUCKET(client), resetAtMs),
};

export interface LoginThrottleDeps {
  readonly store: LoginThrottleStore;
  readonly now: () => number;
  readonly limits: LoginLimits;
}

export const deploymentLoginThrottle: LoginThrottleDeps = {
  store: dynamoLoginThrottleStore,
  now: Date.now,
  limits: LOGIN_LIMITS,
};

/** An attempt let through: what its outcome must settle. */
export interface LoginTicket {
  readonly account: string;
  readonly client: string;
  /** The account's failures counting this attempt. */
  readonly failures: number;
  readonly clientWindowResetAtMs: number;
}

export type LoginAdmission =
  | { readonly admitted: true; readonly ticket: LoginTicket }
  | { readonly admitted: false; readonly retryAfterMs: number };

/** Rounds of racing writers before giving up on one attempt (each round is at most three calls). */
const ROUNDS = 3;

/** Counts the attempt against the client and the account, or says how long to wait. */
export async function admitLogin(email: string, sourceIp: string, deps: LoginThrottleDeps): Promise<LoginAdmission> {
  const { store, limits } = deps;
  const client = clientKey(sourceIp);
  const now = deps.now();
  const window = await store.leaseClientAttempt(client, limits.clientAttempts, now, limits.clientWindowMs);
  if (!window.granted) return { admitted: false, retryAfterMs: window.resetAtMs - now };
  const account = accountKey(email);
  const rules = attemptRules(limits);
  for (let round = 0; round < ROUNDS; round++) {
    const admitted = (await store.startAttempts(account, now, rules)) ? 1 : await store.addAttempt(account, now, rules);
    if (admitted !== undefined) {
      return {
        admitted: true,
        ticket: { account, client, failures: admitted, clientWindowResetAtMs: window.resetAtMs },
      };
    }
    const row = await store.readAttempts(account);
    const lockedUntil = row ? lockEnd(row, limits) : 0;
    if (lockedUntil > now) return { admitted: false, retryAfterMs: lockedUntil - now };
    // Cleared or started by a concurrent attempt between the writes and the read: try again.
  }
  return { admitted: false, retryAfterMs: limits.firstLockMs };
}

/** The password check said no: the account's lock runs from now. Returns how long it is. */
export async function loginFailed(ticket: LoginTicket, deps: LoginThrottleDeps): Promise<number> {
  await deps.store.markFailure(ticket.account, deps.now(), attemptRules(deps.limits));
  return lockMs(ticket.failures, deps.limits);
}

/** The password was right: the account starts again from zero, and the client's attempt is handed back. */
export async function loginSucceeded(ticket: LoginTicket, deps: LoginThrottleDeps): Promise<void> {
  await Promise.all([
    deps.store.clearAttempts(ticket.account),
    deps.store.giveBackClientAttempt(ticket.client, ticket.clientWindowResetAtMs),
  ]);
}

const lockEnd = (row: FailureRecord, limits: LoginLimits) => row.lastFailureMs + lockMs(row.failures, limits);

const attemptRules = (limits: LoginLimits): AttemptRules => ({ ladder: lockLadder(limits), quietMs: limits.quietMs });

/**
 * Emails as the user pool compares them (case-insensitively), hashed: the table holds no
 * addresses, and every key has the same length.
 */
export function accountKey(email: string): string {
  return createHash('sha256').update(email.toLowerCase()).digest('base64url');
}

/**
 * The client as the source IP: IPv4 as it is, IPv6 by its /64 (one subscriber's usual share,
 * so hopping addresses within it buys nothing), an IPv4-mapped IPv6 address as the IPv4 one.
 */
export function clientKey(sourceIp: string): string {
  const ip = sourceIp.replace(/%.*$/, '');
  if (isIPv4(ip)) return ip;
  if (!isIPv6(ip)) return 'unknown';
  const groups = ipv6Groups(ip);
  if (groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff) {
    return [groups[6]! >> 8, groups[6]! & 0xff, groups[7]! >> 8, groups[7]! & 0xff].join('.');
  }
  return `${groups
    .slice(0, 4)
    .map((g) => g.toString(16))
    .join(':')}::/64`;
}

/** The eight 16-bit groups of a valid IPv6 address (`::` expanded, a trailing IPv4 part split in two). */
function ipv6Groups(ip: string): number[] {
  const toGroups = (part: string): number[] =>
    part === ''
      ? []
      : part.split(':').flatMap((piece) => {
          if (!piece.includes('.')) return [parseInt(piece, 16)];
          const [a, b, c, d] = piece.split('.').map(Number) as [number, number, number, number];
          return [(a << 8) | b, (c << 8) | d];
        });
  const [head = '', tail] = ip.split('::');
  const front = toGroups(head);
  const back = tail === undefined ? [] : toGroups(tail);
  return [...front, ...Array<number>(8 - front.length - back.length).fill(0), ...back];
}
