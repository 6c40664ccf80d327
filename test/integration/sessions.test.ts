import { PutItemCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { createHash } from 'node:crypto';
import { login, provisionAccount } from './support/provisioning.js';
import { bearer, call } from './support/http.js';
import { useGateway } from './support/gateway-fixture.js';

const local = useGateway({ account: 'sessions' });

test('login sets an HttpOnly, Secure, SameSite=Strict cookie with an opaque 12 h session', async () => {
  const answer = await call(local.gateway.url('/api/v1/auth/login'), {
    body: { email: local.account.email, password: local.account.password },
  });
  expect(answer.status).toBe(200);
  const cookie = answer.headers.get('set-cookie')!;
  expect(cookie).toMatch(/^gw_session=[A-Za-z0-9_-]{43}; /);
  expect(cookie).toContain('HttpOnly');
  expect(cookie).toContain('Secure');
  expect(cookie).toContain('SameSite=Strict');
  expect(cookie).toContain('Max-Age=43200');
  expect(answer.body.data).toMatchObject({ accountId: local.account.accountId, email: local.account.email });
  const hours = (Date.parse(answer.body.data.expiresAt) - Date.now()) / 3_600_000;
  expect(hours).toBeGreaterThan(11.9);
  expect(hours).toBeLessThanOrEqual(12);
});

test('the dashboard login from runtime.json works', async () => {
  const { email, password } = local.gateway.info.dashboard;
  expect(await login(local.gateway, email, password)).toMatch(/^gw_session=/);
});

test('GET /auth/session describes the signed-in account', async () => {
  const answer = await call(local.gateway.url('/api/v1/auth/session'), { headers: { Cookie: local.account.cookie } });
  expect(answer.status).toBe(200);
  expect(answer.body.data).toEqual({
    accountId: local.account.accountId,
    email: local.account.email,
    name: 'sessions',
  });
});

test('wrong password and unknown user are the same 401', async () => {
  const wrong = await call(local.gateway.url('/api/v1/auth/login'), {
    body: { email: local.account.email, password: 'Wrong-password-1!' },
  });
  const unknown = await call(local.gateway.url('/api/v1/auth/login'), {
    body: { email: 'nobody@example.com', password: 'x' },
  });
  for (const answer of [wrong, unknown]) {
    expect(answer.status).toBe(401);
    expect(answer.body.error.code).toBe('UNAUTHORIZED');
    expect(answer.headers.get('set-cookie')).toBeNull();
  }
  expect(wrong.body.error.message).toBe(unknown.body.error.message);
});

test.each([
  [{}, 'email'],
  [{ email: 'a@b.example' }, 'password'],
  [{ email: 'not-an-email', password: 'x' }, 'email'],
  [{ email: 'a@b.example', password: 'x', extra: 1 }, 'extra'],
])('login %j is a 400 naming %s', async (body, field) => {
  const answer = await call(local.gateway.url('/api/v1/auth/login'), { body });
  expect(answer.status).toBe(400);
  expect(answer.body.error.field).toBe(field);
});

test('a login from a foreign origin is refused', async () => {
  const answer = await call(local.gateway.url('/api/v1/auth/login'), {
    headers: { Origin: 'https://evil.example' },
    body: { email: local.account.email, password: local.account.password },
  });
  expect(answer.status).toBe(403);
});

test('logout ends the session everywhere', async () => {
  const cookie = await login(local.gateway, local.account.email, local.account.password);
  const out = await call(local.gateway.url('/api/v1/auth/logout'), {
    method: 'POST',
    headers: { Cookie: cookie, Origin: local.gateway.info.baseUrl },
  });
  expect(out.status).toBe(204);
  expect(out.headers.get('set-cookie')).toContain('Max-Age=0');
  const after = await call(local.gateway.url('/api/v1/auth/session'), { headers: { Cookie: cookie } });
  expect(after.status).toBe(401);
});

test('an expired session is refused even before TTL deletes it', async () => {
  const sessionId = 'expired-session-id-expired-session-id-000000';
  const dynamo = new DynamoDBClient({
    region: local.gateway.aws.region,
    endpoint: local.gateway.aws.dynamodb,
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  const idHash = createHash('sha256').update(sessionId).digest('base64url');
  await dynamo.send(
    new PutItemCommand({
      TableName: local.gateway.aws.tables.identity,
      Item: {
        pk: { S: `SESSION#${idHash}` },
        sk: { S: 'SESSION' },
        accountId: { S: local.account.accountId },
        email: { S: local.account.email },
        createdAt: { S: new Date(Date.now() - 13 * 3_600_000).toISOString() },
        expiresAt: { N: String(Math.floor(Date.now() / 1000) - 3600) },
      },
    }),
  );
  dynamo.destroy();
  const answer = await call(local.gateway.url('/api/v1/auth/session'), {
    headers: { Cookie: `gw_session=${sessionId}` },
  });
  expect(answer.status).toBe(401);
  const keys = await call(local.gateway.url('/api/v1/keys'), { headers: { Cookie: `gw_session=${sessionId}` } });
  expect(keys.status).toBe(401);
});

test('a made-up session cookie is 401', async () => {
  const answer = await call(local.gateway.url('/api/v1/auth/session'), { headers: { Cookie: 'gw_session=forged' } });
  expect(answer.status).toBe(401);
});

describe('the first sign-in with an admin-set password', () => {
  let email: string;
  let temporary: string;
  let accountId: string;
  const signIn = (body: unknown, headers: Record<string, string> = {}) =>
    call(local.gateway.url('/api/v1/auth/login'), { headers, body });

  beforeAll(async () => {
    email = `first-${process.pid}@example.com`;
    const created = await call(local.gateway.url('/api/admin/v1/accounts'), {
      headers: bearer(local.gateway.info.adminToken),
      body: { email, name: 'First' },
    });
    temporary = created.body.data.dashboard.initialPassword;
    accountId = created.body.data.accountId;
  });

  test('without newPassword it is 403 PASSWORD_CHANGE_REQUIRED and sets no cookie', async () => {
    const answer = await signIn({ email, password: temporary });
    expect([answer.status, answer.body.error.code]).toEqual([403, 'PASSWORD_CHANGE_REQUIRED']);
    expect(answer.body.error.message).toMatch(/newPassword/);
    expect(answer.text).not.toContain(temporary);
    expect(answer.headers.get('set-cookie')).toBeNull();
  });

  test.each([
    [{ email: 'a@b.example', password: 'x', newPassword: '' }, 'newPassword'],
    [{ email: 'a@b.example', password: 'x', newPassword: 'x'.repeat(257) }, 'newPassword'],
    [{ email: 'a@b.example', password: 'x', newPassword: 12 }, 'newPassword'],
  ])('login %j is a 400 naming %s', async (body, field) => {
    const answer = await signIn(body);
    expect([answer.status, answer.body.error.field]).toEqual([400, field]);
  });

  test('a new password the policy refuses is a 400 naming newPassword, and the temporary one still stands', async () => {
    const weak = await signIn({ email, password: temporary, newPassword: 'alllowercase-and-long' });
    expect([weak.status, weak.body.error.code, weak.body.error.field]).toEqual([400, 'BAD_REQUEST', 'newPassword']);
    expect(weak.body.error.message).toMatch(/policy/);
    expect(weak.text).not.toContain('alllowercase-and-long');
    expect(weak.headers.get('set-cookie')).toBeNull();
    const foreign = await signIn(
      { email, password: temporary, newPassword: 'Own-Password-123' },
      { Origin: 'https://evil.example' },
    );
    expect(foreign.status).toBe(403);
    expect((await signIn({ email, password: temporary })).status).toBe(403);
  });

  test('with newPassword it signs in as login does; then only the new password works', async () => {
    const done = await signIn({ email, password: temporary, newPassword: 'Own-Password-123' });
    expect(done.status).toBe(200);
    expect(done.body.data).toMatchObject({ accountId, email });
    expect(done.headers.get('set-cookie')).toContain('HttpOnly');
    const cookie = /gw_session=[^;]*/.exec(done.headers.get('set-cookie') ?? '')![0];
    const me = await call(local.gateway.url('/api/v1/auth/session'), { headers: { Cookie: cookie } });
    expect(me.body.data).toMatchObject({ accountId, email });
    const old = await signIn({ email, password: temporary, newPassword: 'Own-Password-456' });
    expect([old.status, old.body.error.code]).toEqual([401, 'UNAUTHORIZED']);
    expect(await login(local.gateway, email, 'Own-Password-123')).toMatch(/^gw_session=/);
  });
});

test('a sign-in with newPassword beside the current one changes it and ends every other session', async () => {
  const account = await provisionAccount(local.gateway, 'changer');
  const elsewhere = await login(local.gateway, account.email, account.password);
  const signIn = (body: unknown) => call(local.gateway.url('/api/v1/auth/login'), { body });
  const weak = await signIn({ email: account.email, password: account.password, newPassword: 'no-upper-case-1!' });
  expect([weak.status, weak.body.error.field]).toEqual([400, 'newPassword']);
  expect(weak.text).not.toContain('no-upper-case-1!');
  const wrong = await signIn({ email: account.email, password: 'Wrong-Password-1!', newPassword: 'Changed-Pass-123' });
  expect(wrong.status).toBe(401);
  const session = (cookie: string) => call(local.gateway.url('/api/v1/auth/session'), { headers: { Cookie: cookie } });
  expect((await session(elsewhere)).status).toBe(200);

  const changed = await signIn({ email: account.email, password: account.password, newPassword: 'Changed-Pass-123' });
  expect(changed.status).toBe(200);
  const cookie = /gw_session=[^;]*/.exec(changed.headers.get('set-cookie') ?? '')![0];
  expect((await session(cookie)).status).toBe(200);
  expect((await session(elsewhere)).status).toBe(401);
  expect((await session(account.cookie)).status).toBe(401);
  expect((await signIn({ email: account.email, password: account.password })).status).toBe(401);
  expect(await login(local.gateway, account.email, 'Changed-Pass-123')).toMatch(/^gw_session=/);
});

test('POST /auth/password: the signed-in user changes it; every session ends and a new one is answered', async () => {
  const account = await provisionAccount(local.gateway, 'password-route');
  const elsewhere = await login(local.gateway, account.email, account.password);
  const change = (body: unknown, headers: Record<string, string> = account.session) =>
    call(local.gateway.url('/api/v1/auth/password'), { headers, body });
  const session = (cookie: string) => call(local.gateway.url('/api/v1/auth/session'), { headers: { Cookie: cookie } });

  expect((await change({ currentPassword: account.password, newPassword: 'Route-Changed-123' }, {})).status).toBe(401);
  const wrong = await change({ currentPassword: 'Wrong-Password-1!', newPassword: 'Route-Changed-123' });
  expect(wrong.status).toBe(401);
  const weak = await change({ currentPassword: account.password, newPassword: 'no-upper-case-1!' });
  expect([weak.status, weak.body.error.field]).toEqual([400, 'newPassword']);
  const missing = await change({ newPassword: 'Route-Changed-123' });
  expect([missing.status, missing.body.error.field]).toEqual([400, 'currentPassword']);
  expect((await session(elsewhere)).status).toBe(200);

  const changed = await change({ currentPassword: account.password, newPassword: 'Route-Changed-123' });
  expect(changed.status).toBe(200);
  expect(changed.body.data).toMatchObject({ accountId: account.accountId, email: account.email });
  expect(changed.text).not.toContain('Route-Changed-123');
  const cookie = /gw_session=[^;]*/.exec(changed.headers.get('set-cookie') ?? '')![0];
  expect((await session(cookie)).status).toBe(200);
  expect((await session(elsewhere)).status).toBe(401);
  expect((await session(account.cookie)).status).toBe(401);
  expect(await login(local.gateway, account.email, 'Route-Changed-123')).toMatch(/^gw_session=/);
});
