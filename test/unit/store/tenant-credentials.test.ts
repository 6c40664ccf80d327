import { sessionNameOf, TenantCredentials } from '../../../lambdas/store/tenant-credentials.js';
import type { AssumeRoleRequest, SessionCredentials } from '../../../lambdas/store/sts-client.js';

/** The per-instance cache of tenant sessions: what costs an AssumeRole, and what costs nothing. */

const ROLE = 'arn:aws:iam::123456789012:role/tenant-access';
let clock = 1_000_000;
let calls: AssumeRoleRequest[];
let answers: ((credentials: SessionCredentials) => void)[];
let failures: ((error: Error) => void)[];

const assumeRole = (request: AssumeRoleRequest) => {
  calls.push(request);
  return new Promise<SessionCredentials>((resolve, reject) => {
    answers.push(resolve);
    failures.push(reject);
  });
};
const issued = (n: number, lifetimeMs = 900_000): SessionCredentials => ({
  accessKeyId: `ASIA${n}`,
  secretAccessKey: `secret-${n}`,
  sessionToken: `token-${n}`,
  expiresAt: clock + lifetimeMs,
});
const make = (maxAccounts = 3) =>
  new TenantCredentials({ assumeRole, roleArn: ROLE, maxAccounts, refreshBeforeMs: 120_000, now: () => clock });

beforeEach(() => {
  calls = [];
  answers = [];
  failures = [];
});

test('a miss asks for the account tag alone on the tenant role, for 15 minutes; a hit makes no call', async () => {
  const cache = make();
  const first = cache.get('acc_a');
  expect(calls).toEqual([
    { roleArn: ROLE, sessionName: 'tenant-acc_a', durationSeconds: 900, tags: { account: 'acc_a' } },
  ]);
  answers[0]!(issued(1));
  expect(await first).toMatchObject({ accessKeyId: 'ASIA1' });
  clock += 60_000;
  expect(await cache.get('acc_a')).toMatchObject({ accessKeyId: 'ASIA1' });
  expect(calls).toHaveLength(1);
});

test('concurrent misses for one account share one AssumeRole; other accounts get their own', async () => {
  const cache = make();
  const together = [cache.get('acc_a'), cache.get('acc_a'), cache.get('acc_a'), cache.get('acc_b')];
  expect(calls.map((call) => call.tags['account'])).toEqual(['acc_a', 'acc_b']);
  answers[0]!(issued(1));
  answers[1]!(issued(2));
  const got = await Promise.all(together);
  expect(got.map((credentials) => credentials.accessKeyId)).toEqual(['ASIA1', 'ASIA1', 'ASIA1', 'ASIA2']);
});

test('credentials are renewed before they expire, never handed out within the margin', async () => {
  const cache = make();
  const first = cache.get('acc_a');
  answers[0]!(issued(1));
  await first;
  clock += 900_000 - 120_000 - 1;
  expect((await cache.get('acc_a')).accessKeyId).toBe('ASIA1');
  clock += 1;
  const renewed = cache.get('acc_a');
  expect(calls).toHaveLength(2);
  answers[1]!(issued(2));
  expect((await renewed).accessKeyId).toBe('ASIA2');
});

test('a failed AssumeRole is not kept: the next request asks again', async () => {
  const cache = make();
  const first = cache.get('acc_a');
  failures[0]!(Object.assign(new Error('Rate exceeded'), { name: 'Throttling' }));
  await expect(first).rejects.toThrow('Rate exceeded');
  const again = cache.get('acc_a');
  expect(calls).toHaveLength(2);
  answers[1]!(issued(2));
  expect((await again).accessKeyId).toBe('ASIA2');
});

test('at most maxAccounts are kept, the least recently used dropped first', async () => {
  const cache = make(2);
  for (const account of ['acc_a', 'acc_b']) {
    const pending = cache.get(account);
    answers.at(-1)!(issued(calls.length));
    await pending;
  }
  await cache.get('acc_a'); // used again: acc_b is now the oldest
  const third = cache.get('acc_c');
  answers.at(-1)!(issued(3));
  await third;
  expect(cache.size).toBe(2);
  await cache.get('acc_a');
  expect(calls).toHaveLength(3);
  const b = cache.get('acc_b');
  expect(calls).toHaveLength(4);
  answers.at(-1)!(issued(4));
  await b;
});

test('a session name is the account id where STS takes it, else a digest of it', () => {
  expect(sessionNameOf('acc_0123456789abcdef0123456789abcdef')).toBe('tenant-acc_0123456789abcdef0123456789abcdef');
  const odd = sessionNameOf('an id with spaces and more than sixty-four characters in all of it, really');
  expect(odd).toMatch(/^tenant-[0-9a-f]{40}$/);
});
