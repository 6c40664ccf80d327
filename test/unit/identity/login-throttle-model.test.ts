import fc from 'fast-check';
import { useLocalDynamoDb } from '../../support/local-dynamodb.js';
import {
  accountKey,
  admitLogin,
  clientKey,
  dynamoLoginThrottleStore,
  lockLadder,
  loginFailed,
  loginSucceeded,
  type LoginAdmission,
  type LoginThrottleDeps,
  type LoginThrottleStore,
  type LoginTicket,
} from '../../../lambdas/identity/login-throttle.js';
import { lockMs, LOGIN_LIMITS } from '../../../lambdas/identity/login-limits.js';

/** The sign-in throttle against the shared window store (dynalite), on a hand-driven clock. */

useLocalDynamoDb('lthrottle');

let now = 1_800_000_000_000;
let ips = 0;
let emails = 0;
const freshIp = () => `10.${(++ips >> 16) & 255}.${(ips >> 8) & 255}.${ips & 255}`;
const freshEmail = () => `user${++emails}@example.com`;

/** The real store, with every call counted: the work one attempt costs. */
function countingStore() {
  const calls: Record<string, number> = {};
  const store = Object.fromEntries(
    Object.entries(dynamoLoginThrottleStore).map(([name, fn]) => [
      name,
      (...args: unknown[]) => {
        calls[name] = (calls[name] ?? 0) + 1;
        return (fn as (...a: unknown[]) => Promise<unknown>)(...args);
      },
    ]),
  ) as unknown as LoginThrottleStore;
  return { store, calls, total: () => Object.values(calls).reduce((a, b) => a + b, 0) };
}

const deps = (overrides: Partial<LoginThrottleDeps> = {}): LoginThrottleDeps => ({
  store: dynamoLoginThrottleStore,
  now: () => now,
  limits: LOGIN_LIMITS,
  ...overrides,
});

function ticketOf(admission: LoginAdmission): LoginTicket {
  if (!admission.admitted) throw new Error(`refused for ${admission.retryAfterMs} ms`);
  return admission.ticket;
}

/** One wrong password: admitted, then failed. Returns the refusal's wait when refused. */
async function wrongPassword(email: string, ip: string, d = deps()): Promise<number | 'failed'> {
  const admission = await admitLogin(email, ip, d);
  if (!admission.admitted) return admission.retryAfterMs;
  await loginFailed(admission.ticket, d);
  return 'failed';
}

describe('the lockout schedule', () => {
  test('five failures free, then 1 s doubling per failure up to 15 minutes', () => {
    expect([0, 1, 4].map((n) => lockMs(n))).toEqual([0, 0, 0]);
    expect(lockLadder()).toEqual([
      ...[1, 2, 4, 8, 16, 32, 64, 128, 256, 512].map((s, i) => ({ failures: 5 + i, lockMs: s * 1000 })),
      { failures: 15, lockMs: 900_000 },
    ]);
    expect(lockMs(16)).toBe(900_000);
    expect(lockMs(Number.MAX_SAFE_INTEGER)).toBe(900_000);
  });
});

describe('per account', () => {
  test('after five wrong passwords the account is refused for 1 s, then 2 s after the next failure', async () => {
    const email = freshEmail();
    const ip = freshIp();
    for (let i = 0; i < 5; i++) expect(await wrongPassword(email, ip)).toBe('failed');
    expect(await wrongPassword(email, ip)).toBe(1_000);
    now += 400;
    // A refused attempt does not lengthen the lock.
    expect(await wrongPassword(email, ip)).toBe(600);
    now += 600;
    expect(await wrongPassword(email, ip)).toBe('failed');
    expect(await wrongPassword(email, ip)).toBe(2_000);
    now += 2_000;
    expect(await wrongPassword(email, ip)).toBe('failed');
    expect(await wrongPassword(email, ip)).toBe(4_000);
  });

  test('the lock runs from the failed answer, not from when the attempt was let through', async () => {
    const email = freshEmail();
    for (let i = 0; i < 4; i++) await wrongPassword(email, freshIp());
    const ticket = ticketOf(await admitLogin(email, freshIp(), deps()));
    now += 300; // the password check takes a while
    expect(await loginFailed(ticket, deps())).toBe(1_000);
    expect(await admitLogin(email, freshIp(), deps())).toEqual({ admitted: false, retryAfterMs: 1_000 });
  });

  test('a right password after a few failures signs in and starts the count again', async () => {
    const email = freshEmail();
    const ip = freshIp();
    for (let i = 0; i < 4; i++) await wrongPassword(email, ip);
    await loginSucceeded(ticketOf(await admitLogin(email, ip, deps())), deps());
    for (let i = 0; i < 5; i++) expect(await wrongPassword(email, ip)).toBe('failed');
    expect(await wrongPassword(email, ip)).toBe(1_000);
  });

  test('each failure after the fifth doubles the lock, up to 15 minutes; past that, one guess per 15 minutes', async () => {
    const email = freshEmail();
    for (let i = 0; i < 5; i++) await wrongPassword(email, freshIp());
    const locks: (number | 'failed')[] = [];
    for (let failures = 5; failures < 18; failures++) {
      const wait = await wrongPassword(email, freshIp());
      locks.push(wait);
      if (typeof wait === 'number') now += wait;
      expect(await wrongPassword(email, freshIp())).toBe('failed');
    }
    expect(locks).toEqual([1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 900, 900, 900].map((s) => s * 1000));
  });

  test('15 minutes without a failure, once the lock has passed, start the count again', async () => {
    const email = freshEmail();
    for (let i = 0; i < 5; i++) await wrongPassword(email, freshIp()); // locked 1 s
    now += 1_000 + LOGIN_LIMITS.quietMs - 1;
    expect(await wrongPassword(email, freshIp())).toBe('failed'); // still counted: the 6th, 2 s
    expect(await wrongPassword(email, freshIp())).toBe(2_000);
    now += 2_000 + LOGIN_LIMITS.quietMs;
    for (let i = 0; i < 5; i++) expect(await wrongPassword(email, freshIp())).toBe('failed');
    expect(await wrongPassword(email, freshIp())).toBe(1_000);
  });

  test('the email is compared as the user pool does, case-insensitively, and stored only hashed', async () => {
    const ip = freshIp();
    for (let i = 0; i < 5; i++) await wrongPassword(i % 2 ? 'Mixed.Case@Example.com' : 'mixed.case@example.com', ip);
    expect(await wrongPassword('MIXED.CASE@EXAMPLE.COM', ip)).toBe(1_000);
    expect(accountKey('A@B.example')).toBe(accountKey('a@b.example'));
    expect(accountKey('a@b.example')).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  test('100 concurrent guesses at a fresh account: exactly five get through, each costing a bounded number of calls', async () => {
    const email = freshEmail();
    const { store, total } = countingStore();
    const results = await Promise.all(
      Array.from({ length: 100 }, (_, i) => admitLogin(email, `203.0.113.${i + 1}`, deps({ store }))),
    );
    expect(results.filter((r) => r.admitted)).toHaveLength(5);
    // Client lease, start, add, read: at most 1 + 3 rounds × 3 calls per attempt.
    expect(total()).toBeLessThanOrEqual(100 * 10);
  });

  test('a refused attempt costs a fixed handful of calls, however long the streak', async () => {
    const email = freshEmail();
    for (let i = 0; i < 5; i++) await wrongPassword(email, freshIp());
    const { store, calls, total } = countingStore();
    for (let i = 0; i < 50; i++) expect(await wrongPassword(email, freshIp(), deps({ store }))).toBe(1_000);
    expect(calls).toEqual({ leaseClientAttempt: 50, startAttempts: 50, addAttempt: 50, readAttempts: 50 });
    expect(total()).toBe(200);
  });
});

describe('per client', () => {
  test('30 unsuccessful attempts per 10 minutes across accounts; then 429 until the window ends', async () => {
    const ip = freshIp();
    const started = now;
    for (let i = 0; i < 30; i++) expect(await wrongPassword(freshEmail(), ip)).toBe('failed');
    expect(await wrongPassword(freshEmail(), ip)).toBe(600_000);
    now += 60_000;
    expect(await wrongPassword(freshEmail(), ip)).toBe(540_000);
    // Another client is not affected.
    expect(await wrongPassword(freshEmail(), freshIp())).toBe('failed');
    now = started + 600_000;
    expect(await wrongPassword(freshEmail(), ip)).toBe('failed');
  });

  test('a successful sign-in hands its attempt back', async () => {
    const ip = freshIp();
    for (let i = 0; i < 29; i++) await wrongPassword(freshEmail(), ip);
    await loginSucceeded(ticketOf(await admitLogin(freshEmail(), ip, deps())), deps());
    expect(await wrongPassword(freshEmail(), ip)).toBe('failed');
    expect(await wrongPassword(freshEmail(), ip)).toBeGreaterThan(0);
  });

  test('a client past its allowance cannot lengthen an account’s lock', async () => {
    const ip = freshIp();
    const email = freshEmail();
    for (let i = 0; i < 30; i++) await wrongPassword(i < 2 ? email : freshEmail(), ip);
    for (let i = 0; i < 20; i++) expect(await wrongPassword(email, ip)).toBeGreaterThan(0);
    // From elsewhere, the account still has the three failures it had left.
    const elsewhere = freshIp();
    for (let i = 0; i < 3; i++) expect(await wrongPassword(email, elsewhere)).toBe('failed');
    expect(await wrongPassword(email, elsewhere)).toBe(1_000);
  });

  test.each([
    ['203.0.113.9', '203.0.113.9'],
    ['::ffff:203.0.113.9', '203.0.113.9'],
    ['2001:db8:1:2:aaaa:bbbb:cccc:dddd', '2001:db8:1:2::/64'],
    ['2001:db8:1:2::1', '2001:db8:1:2::/64'],
    ['2001:DB8::1', '2001:db8:0:0::/64'],
    ['fe80::1%eth0', 'fe80:0:0:0::/64'],
    ['::1', '0:0:0:0::/64'],
    ['', 'unknown'],
    ['not an address', 'unknown'],
  ])('client %j counts as %j', (ip, key) => {
    expect(clientKey(ip)).toBe(key);
  });
});

/**
 * Property: the DynamoDB conditions agree with the schedule as plain arithmetic, for any
 * sequence of attempts, outcomes and waits on one account.
 */
describe('against a model of the schedule', () => {
  interface Row {
    failures: number;
    last: number;
  }
  const step = fc.record({
    waitMs: fc.oneof(
      { arbitrary: fc.integer({ min: 0, max: 2_000 }), weight: 4 },
      // Around each rung's lock, so runs climb the ladder and meet its edges.
      {
        arbitrary: fc
          .tuple(fc.integer({ min: 0, max: 10 }), fc.integer({ min: -1, max: 1 }))
          .map(([k, d]) => 1000 * 2 ** k + d),
        weight: 4,
      },
      {
        arbitrary: fc.constantFrom(LOGIN_LIMITS.quietMs - 1, LOGIN_LIMITS.quietMs, LOGIN_LIMITS.maxLockMs + 1),
        weight: 1,
      },
    ),
    checkMs: fc.integer({ min: 0, max: 500 }),
    // Mostly wrong: long streaks climb the ladder.
    right: fc.oneof({ arbitrary: fc.constant(false), weight: 5 }, { arbitrary: fc.constant(true), weight: 1 }),
  });
  const unlimitedClients = { ...LOGIN_LIMITS, clientAttempts: 1_000_000 };

  test('admissions, waits and resets match', async () => {
    const refusedAt = new Set<number>();
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 30 }), async (steps) => {
        const email = freshEmail();
        const d = deps({ limits: unlimitedClients });
        let row: Row | undefined;
        for (const { waitMs, checkMs, right } of steps) {
          now += waitMs;
          if (row && row.last + lockMs(row.failures) + LOGIN_LIMITS.quietMs <= now) row = undefined;
          const lockedUntil = row ? row.last + lockMs(row.failures) : 0;
          const admission = await admitLogin(email, '192.0.2.1', d);
          if (lockedUntil > now) {
            expect(admission).toEqual({ admitted: false, retryAfterMs: lockedUntil - now });
            refusedAt.add(row!.failures);
            continue;
          }
          row = { failures: (row?.failures ?? 0) + 1, last: now };
          expect(admission.admitted && admission.ticket.failures).toBe(row.failures);
          now += checkMs;
          if (right) {
            await loginSucceeded(ticketOf(admission), d);
            row = undefined;
          } else {
            await loginFailed(ticketOf(admission), d);
            row.last = now;
          }
        }
      }),
      // A fixed seed: the check below is about what the generated runs covered, and random
      // seeds met a second rung only most of the time (a full CI run once saw a single one).
      // This seed's runs meet several; the model's checks hold for every run whatever the seed.
      { numRuns: 40, seed: 3 },
    );
    // The runs met locks on more than the first rung (the whole ladder is climbed above).
    expect(refusedAt.size).toBeGreaterThanOrEqual(2);
  }, 120_000);
});
