import { useGateway } from './support/gateway-fixture.js';
import { settledUsage } from './support/settled-usage.js';
import { recordUsage } from '../../lambdas/usage/usage-ledger.js';
import { firstSignIn, login } from './support/provisioning.js';
import { bearer, call } from './support/http.js';

const local = useGateway({ runtimeTables: true });
let admin: Record<string, string>;

beforeAll(() => {
  admin = bearer(local.gateway.info.adminToken);
});

const createAccount = (body: unknown) => call(local.gateway.url('/api/admin/v1/accounts'), { headers: admin, body });
const createKey = (body: unknown) => call(local.gateway.url('/api/admin/v1/keys'), { headers: admin, body });

test('an account comes with a dashboard user whose first password must be replaced at the first sign-in', async () => {
  const answer = await createAccount({ email: 'Partner@Example.com', name: 'Partner' });
  expect(answer.status).toBe(201);
  const data = answer.body.data;
  expect(data).toMatchObject({ email: 'partner@example.com', name: 'Partner' });
  expect(data.accountId).toMatch(/^acc_[0-9a-f]{32}$/);
  expect(Date.parse(data.createdAt)).not.toBeNaN();
  expect(data.dashboard.email).toBe('partner@example.com');
  const temporary = data.dashboard.initialPassword;
  const cookie = await firstSignIn(local.gateway, 'partner@example.com', temporary, 'Partner-Own-Pass-1');
  expect(cookie).toMatch(/^gw_session=/);
  expect(await login(local.gateway, 'partner@example.com', 'Partner-Own-Pass-1')).toMatch(/^gw_session=/);
  const again = await call(local.gateway.url('/api/v1/auth/login'), {
    body: { email: 'partner@example.com', password: temporary },
  });
  expect([again.status, again.body.error.code]).toEqual([401, 'UNAUTHORIZED']);
});

test('a second account with the same email is a 409 naming email', async () => {
  await createAccount({ email: 'twice@example.com', name: 'One' });
  const again = await createAccount({ email: 'TWICE@example.com', name: 'Two' });
  expect(again.status).toBe(409);
  expect(again.body.error).toMatchObject({ code: 'CONFLICT', field: 'email' });
});

test.each([
  [{ name: 'x' }, 'email'],
  [{ email: 'no-at-sign', name: 'x' }, 'email'],
  [{ email: 'a@b.example' }, 'name'],
  [{ email: 'a@b.example', name: '' }, 'name'],
  [{ email: 'a@b.example', name: 'x', plan: 'gold' }, 'plan'],
])('account %j is a 400 naming %s', async (body, field) => {
  const answer = await createAccount(body);
  expect(answer.status).toBe(400);
  expect(answer.body.error.field).toBe(field);
});

describe('keys', () => {
  let accountId: string;
  beforeAll(async () => {
    accountId = (await createAccount({ email: 'keys-admin@example.com', name: 'Keys' })).body.data.accountId;
  });

  test('a secret key is shown once, works, and is revoked by DELETE', async () => {
    const created = await createKey({ accountId, type: 'secret', name: 'server', rateLimit: 42 });
    expect(created.status).toBe(201);
    const { keyId, key } = created.body.data;
    expect(created.body.data).toMatchObject({
      accountId,
      name: 'server',
      rateLimit: 42,
      type: 'secret',
      enabled: true,
    });
    expect(key).toMatch(/^sk_/);
    const used = await call(local.gateway.url('/api/v1/models'), { headers: bearer(key) });
    expect(used.status).toBe(200);
    expect(used.headers.get('x-ratelimit-limit')).toBe('42');

    const revoked = await call(local.gateway.url(`/api/admin/v1/keys/${keyId}`), { method: 'DELETE', headers: admin });
    expect(revoked.status).toBe(204);
    expect((await call(local.gateway.url('/api/v1/models'), { headers: bearer(key) })).status).toBe(401);
    const again = await call(local.gateway.url(`/api/admin/v1/keys/${keyId}`), { method: 'DELETE', headers: admin });
    expect(again.status).toBe(404);
  });

  test('a publishable key records its allowed origins', async () => {
    const created = await createKey({ accountId, type: 'publishable', allowedOrigins: ['https://app.example'] });
    expect(created.status).toBe(201);
    expect(created.body.data.key).toMatch(/^pk_/);
    expect(created.body.data.allowedOrigins).toEqual(['https://app.example']);
  });

  test.each([
    [{ type: 'secret' }, 'accountId'],
    [{ accountId: 'x' }, 'type'],
    [{ accountId: 'x', type: 'root' }, 'type'],
    [{ accountId: 'x', type: 'secret', rateLimit: 0 }, 'rateLimit'],
    [{ accountId: 'x', type: 'publishable' }, 'allowedOrigins'],
    [{ accountId: 'x', type: 'publishable', allowedOrigins: [] }, 'allowedOrigins'],
    [{ accountId: 'x', type: 'publishable', allowedOrigins: ['https://a.example/path'] }, 'allowedOrigins[0]'],
  ])('key %j is a 400 naming %s', async (body, field) => {
    const answer = await createKey(body);
    expect(answer.status).toBe(400);
    expect(answer.body.error.field).toBe(field);
  });

  test('a key for an unknown account is 404', async () => {
    expect((await createKey({ accountId: 'acc_missing', type: 'secret' })).status).toBe(404);
  });
});

describe('usage', () => {
  test("reads any account's usage", async () => {
    const accountId = (await createAccount({ email: 'metered@example.com', name: 'Metered' })).body.data.accountId;
    await recordUsage({
      requestId: 'admin-usage',
      sequence: 0,
      accountId,
      route: 'chat-completions',
      model: 'grok-4',
      promptTokens: 7,
      completionTokens: 3,
      costMicroUsd: 66,
      priced: true,
      estimated: false,
      cached: false,
      status: 200,
      at: '2026-06-15T08:00:00.000Z',
    });
    const answer = await settledUsage(
      local.gateway.url(`/api/admin/v1/usage?accountId=${accountId}&from=2026-06-01&to=2026-06-30`),
      admin,
      1,
    );
    expect(answer.status).toBe(200);
    expect(answer.body.data).toMatchObject({
      accountId,
      totalRequests: 1,
      totalTokens: 10,
      totalCost: 0.000066,
      byModel: { 'grok-4': { requests: 1, tokens: 10, cost: 0.000066 } },
      byRoute: { 'chat-completions': { requests: 1, tokens: 10, cost: 0.000066 } },
    });
  });

  test('needs an accountId, a known account and valid dates', async () => {
    const missing = await call(local.gateway.url('/api/admin/v1/usage'), { headers: admin });
    expect(missing.status).toBe(400);
    expect(missing.body.error.field).toBe('accountId');
    expect((await call(local.gateway.url('/api/admin/v1/usage?accountId=acc_nobody'), { headers: admin })).status).toBe(
      404,
    );
    const badDate = await call(local.gateway.url('/api/admin/v1/usage?accountId=acc_x&from=soon'), { headers: admin });
    expect(badDate.body.error.field).toBe('from');
  });
});
