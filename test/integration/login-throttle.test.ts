import { randomBytes } from 'node:crypto';
import { useGateway } from './support/gateway-fixture.js';
import { provisionAccount, type TestAccount } from './support/provisioning.js';
import type { Answer } from './support/http.js';
import { postFrom } from './support/source-address.js';
import { ENV } from '../../lambdas/config/environment.js';
import { EDGE_SECRET_HEADER, VIEWER_ADDRESS_HEADER } from '../../lambdas/identity/edge-headers.js';
import { putSecret } from '../../local/bootstrap.js';
import { ensureStandInCredentials } from '../../local/standin-credentials.js';

/**
 * Dashboard sign-in throttling over HTTP, against the local runtime. Each loopback address
 * is a client of its own (the runtime reports it as the source IP). Nothing here waits for a
 * lock to pass: that, and the exact lock lengths, are shown on an injected clock in
 * test/unit/identity/login-throttle-model.test.ts and sign-in.test.ts.
 * The runtime is told of an edge secret, as a deployment with the console's distribution is:
 * requests without it are counted as before, and the last tests play the distribution.
 */
const EDGE_SECRET_NAME = 'gateway/edge-secret';
const EDGE_SECRET = randomBytes(36).toString('base64url');
const local = useGateway({ env: { [ENV.edgeSecretId]: EDGE_SECRET_NAME } });
let target: TestAccount;
let bystander: TestAccount;

beforeAll(async () => {
  const gateway = local.gateway;
  await putSecret(gateway.aws.secretsManager, ensureStandInCredentials(gateway.dataDir), EDGE_SECRET_NAME, EDGE_SECRET);
  [target, bystander] = [await provisionAccount(gateway, 'target'), await provisionAccount(gateway, 'bystander')];
}, 60_000);

const WRONG = 'Wrong-password-1!';
const login = (from: string, email: string, password: string) =>
  postFrom(from, local.gateway.url('/api/v1/auth/login'), { email, password });

/** What a client can tell apart: status, headers (values that vary per request aside) and body. */
function shape(answer: Answer) {
  const headers = [...answer.headers.keys()].filter((name) => !['date', 'x-request-id'].includes(name)).sort();
  return {
    status: answer.status,
    headers,
    retryAfter: answer.headers.get('retry-after'),
    body: answer.body,
  };
}

function expectThrottled(answer: Answer): void {
  expect(answer.status).toBe(429);
  const retryAfter = answer.headers.get('retry-after') ?? '';
  expect(retryAfter).toMatch(/^[1-9]\d*$/);
  expect(answer.body).toEqual({
    success: false,
    error: { code: 'RATE_LIMIT_EXCEEDED', message: `Rate limit exceeded; retry after ${retryAfter} s` },
  });
  expect(answer.headers.get('set-cookie')).toBeNull();
}

test('60 wrong passwords from one client: 401s, then 429 with Retry-After, never a 5xx; that client is then refused for any account', async () => {
  const client = '127.0.0.2';
  const answers: Answer[] = [];
  for (let i = 0; i < 60; i++) answers.push(await login(client, target.email, WRONG));
  const statuses = answers.map((a) => a.status);
  expect(statuses.every((status) => status === 401 || status === 429)).toBe(true);
  expect(statuses.slice(0, 5)).toEqual([401, 401, 401, 401, 401]);
  // The account locks long before the client's 30 attempts are used up...
  expect(statuses.slice(5, 30)).toContain(429);
  // ...and after them the client is refused whatever it sends.
  expect(statuses.slice(30)).toEqual(Array(30).fill(429));
  for (const answer of answers.filter((a) => a.status === 429)) expectThrottled(answer);
  expect(answers.filter((a) => a.status === 401).every((a) => a.body.error.code === 'UNAUTHORIZED')).toBe(true);

  // The right password from that client is refused too, and so is another account.
  expectThrottled(await login(client, target.email, target.password));
  expectThrottled(await login(client, bystander.email, bystander.password));
  // Another client signs in to another account as usual.
  const elsewhere = await login('127.0.0.3', bystander.email, bystander.password);
  expect(elsewhere.status).toBe(200);
  expect(elsewhere.headers.get('set-cookie')).toMatch(/^gw_session=/);
});

test('a locked-out unknown email answers exactly as a locked-out known account', async () => {
  const known = await provisionAccount(local.gateway, 'known');
  const client = '127.0.0.4';
  const runs = [];
  for (const email of [known.email, `nobody-${Date.now()}@example.com`]) {
    const answers: Answer[] = [];
    // Until the lock shows: the sixth attempt, unless the machine stalled past the 1 s lock.
    while (answers.length < 12 && answers.at(-1)?.status !== 429) answers.push(await login(client, email, WRONG));
    runs.push(answers);
  }
  const [forKnown, forUnknown] = runs as [Answer[], Answer[]];
  for (const answers of runs) {
    expect(answers.slice(0, 5).map((a) => a.status)).toEqual([401, 401, 401, 401, 401]);
    expectThrottled(answers.at(-1)!);
  }
  expect(shape(forKnown[0]!)).toEqual(shape(forUnknown[0]!));
  const locked = (answer: Answer) => {
    const { retryAfter: _varies, body, ...rest } = shape(answer);
    return { ...rest, message: String(body.error.message).replace(/\d+/g, 'N') };
  };
  expect(locked(forKnown.at(-1)!)).toEqual(locked(forUnknown.at(-1)!));
});

test('the right password is refused while the account is locked, from another client too', async () => {
  const account = await provisionAccount(local.gateway, 'locked');
  let refused: Answer | undefined;
  // Each round: wrong passwords until the lock shows, then at once the right one from elsewhere.
  // Only a machine stalled past the lock between the two lets it through; then go again.
  for (let round = 0; round < 3 && !refused; round++) {
    let answer = await login('127.0.0.5', account.email, WRONG);
    // Bounded by the client's own allowance of 30.
    for (let i = 0; i < 30 && answer.status === 401; i++) answer = await login('127.0.0.5', account.email, WRONG);
    expectThrottled(answer);
    const right = await login('127.0.0.6', account.email, account.password);
    if (right.status === 429) refused = right;
    else expect(right.status).toBe(200);
  }
  expectThrottled(refused!);
});

describe("through the console's distribution: the viewer's address, when the edge secret proves it", () => {
  /** A sign-in as the distribution forwards it: from one edge address, naming the viewer's. */
  const viaEdge = (edge: string, viewer: string, email: string, password: string, secret = EDGE_SECRET) =>
    postFrom(
      edge,
      local.gateway.url('/api/v1/auth/login'),
      { email, password },
      { [EDGE_SECRET_HEADER]: secret, [VIEWER_ADDRESS_HEADER]: viewer },
    );
  /** A fresh email per attempt: only the per-client allowance can refuse these. */
  let n = 0;
  const stranger = () => `stranger-${n++}-${Date.now()}@example.com`;

  test("one viewer's 30 failures refuse that viewer, not the others behind the same edge", async () => {
    const edge = '127.0.0.20';
    const attacker = '203.0.113.10';
    const answers: Answer[] = [];
    for (let i = 0; i < 31; i++) answers.push(await viaEdge(edge, attacker, stranger(), WRONG));
    expect(answers.slice(0, 30).map((a) => a.status)).toEqual(Array(30).fill(401));
    expectThrottled(answers[30]!);
    // Another viewer (IPv6 too) on the same edge signs in, and so does the edge's address itself.
    const account = await provisionAccount(local.gateway, 'behind-edge');
    expect((await viaEdge(edge, '2001:db8::11', account.email, account.password)).status).toBe(200);
    expect((await login(edge, account.email, account.password)).status).toBe(200);
    // The attacker stays refused from any edge.
    expectThrottled(await viaEdge('127.0.0.21', attacker, account.email, account.password));
  });

  test('a wrong edge secret, or none, makes the claimed address count for nothing', async () => {
    const forger = '127.0.0.22';
    const answers: Answer[] = [];
    // Each attempt claims a new viewer address: believed, none would ever be refused.
    for (let i = 0; i < 31; i++)
      answers.push(await viaEdge(forger, `198.51.100.${i + 1}`, stranger(), WRONG, `${EDGE_SECRET}x`));
    expect(answers.slice(0, 30).map((a) => a.status)).toEqual(Array(30).fill(401));
    expectThrottled(answers[30]!);
    // The forger's own address is what was counted: refused with or without a claim, while the
    // addresses it claimed are untouched.
    expectThrottled(await login(forger, bystander.email, bystander.password));
    const account = await provisionAccount(local.gateway, 'claimed');
    expect((await viaEdge('127.0.0.23', '198.51.100.1', account.email, account.password)).status).toBe(200);
  });

  test('a claimed address that is not an address is ignored: the edge is counted', async () => {
    const edge = '127.0.0.24';
    const answers: Answer[] = [];
    for (let i = 0; i < 31; i++) answers.push(await viaEdge(edge, `not-an-address-${i}`, stranger(), WRONG));
    expectThrottled(answers[30]!);
    expectThrottled(await login(edge, bystander.email, bystander.password));
  });
});
