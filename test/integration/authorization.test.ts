import { useGateway } from './support/gateway-fixture.js';
import { settledUsage } from './support/settled-usage.js';
import { adminKey, createKey, provisionAccount, type TestAccount } from './support/provisioning.js';
import { bearer, call } from './support/http.js';
import { recordUsage } from '../../lambdas/usage/usage-ledger.js';

const local = useGateway({ runtimeTables: true });
let alice: TestAccount;
let bob: TestAccount;
let bobKey: { keyId: string; key: string };
let aliceKey: { keyId: string; key: string };

beforeAll(async () => {
  alice = await provisionAccount(local.gateway, 'alice');
  bob = await provisionAccount(local.gateway, 'bob');
  aliceKey = await createKey(local.gateway, alice);
  bobKey = await createKey(local.gateway, bob);
  await recordUsage({
    requestId: 'bob-request',
    sequence: 0,
    accountId: bob.accountId,
    route: 'chat-completions',
    model: 'gpt-5',
    promptTokens: 1000,
    completionTokens: 1000,
    costMicroUsd: 11_250,
    priced: true,
    estimated: false,
    cached: false,
    status: 200,
    at: new Date().toISOString(),
  });
});

describe('account isolation', () => {
  test("A's listing never shows B's keys", async () => {
    const listed = await call(local.gateway.url('/api/v1/keys'), { headers: { Cookie: alice.cookie } });
    const ids = listed.body.data.keys.map((k: { id: string }) => k.id);
    expect(ids).toContain(aliceKey.keyId);
    expect(ids).not.toContain(bobKey.keyId);
  });

  test("A cannot patch or delete B's key: 404, and B's key keeps working", async () => {
    const patched = await call(local.gateway.url(`/api/v1/keys/${bobKey.keyId}`), {
      method: 'PATCH',
      headers: alice.session,
      body: { enabled: false },
    });
    expect(patched.status).toBe(404);
    const deleted = await call(local.gateway.url(`/api/v1/keys/${bobKey.keyId}`), {
      method: 'DELETE',
      headers: alice.session,
    });
    expect(deleted.status).toBe(404);
    expect((await call(local.gateway.url('/api/v1/models'), { headers: bearer(bobKey.key) })).status).toBe(200);
  });

  test("A reads only A's usage, by key and by session", async () => {
    for (const headers of [bearer(aliceKey.key), { Cookie: alice.cookie }]) {
      const answer = await call(local.gateway.url('/api/v1/usage'), { headers });
      expect(answer.status).toBe(200);
      expect(answer.body.data.totalRequests).toBe(0);
    }
    const bobs = await settledUsage(local.gateway.url('/api/v1/usage'), bearer(bobKey.key), 1);
    expect(bobs.body.data).toMatchObject({ totalRequests: 1, totalTokens: 2000, totalCost: 0.01125 });
  });
});

describe('publishable keys', () => {
  let pk: string;
  const origin = 'https://shop.example';

  beforeAll(async () => {
    pk = (await adminKey(local.gateway, { accountId: alice.accountId, type: 'publishable', allowedOrigins: [origin] }))
      .key;
    expect(pk).toMatch(/^pk_/);
  });

  test.each([
    ['GET', '/api/v1/usage'],
    ['GET', '/api/v1/keys'],
    ['POST', '/api/v1/keys'],
    ['GET', '/api/v1/models'],
  ])('%s %s with a publishable key is 403', async (method, path) => {
    const answer = await call(local.gateway.url(path), {
      method,
      headers: { ...bearer(pk), Origin: origin },
      ...(method === 'POST' ? { body: {} } : {}),
    });
    expect(answer.status).toBe(403);
    expect(answer.text).toContain('FORBIDDEN');
  });

  test('a publishable key cannot provision through the admin API either: 403', async () => {
    const answer = await call(local.gateway.url('/api/admin/v1/keys'), {
      headers: bearer(pk),
      body: { accountId: alice.accountId, type: 'secret' },
    });
    expect(answer.status).toBe(403);
    expect(answer.body.error.code).toBe('FORBIDDEN');
  });
});

describe('refused credentials', () => {
  test('a revoked key is 401 INVALID_API_KEY', async () => {
    const { keyId, key } = await createKey(local.gateway, alice);
    await call(local.gateway.url(`/api/v1/keys/${keyId}`), { method: 'DELETE', headers: alice.session });
    const answer = await call(local.gateway.url('/api/v1/models'), { headers: bearer(key) });
    expect(answer.status).toBe(401);
    expect(answer.body.error.code).toBe('INVALID_API_KEY');
  });

  test('a key of the right shape with a wrong secret is 401, as is garbage', async () => {
    const forged = `${aliceKey.key.slice(0, -4)}AAAA`;
    for (const key of [forged, 'sk_garbage', 'Bearer-less']) {
      const answer = await call(local.gateway.url('/api/v1/models'), { headers: bearer(key) });
      expect(answer.status).toBe(401);
      expect(answer.body.error.code).toBe('INVALID_API_KEY');
    }
  });

  test('missing credentials are 401 UNAUTHORIZED; a malformed Authorization header is INVALID_API_KEY', async () => {
    const missing = await call(local.gateway.url('/api/v1/models'));
    expect(missing.body.error.code).toBe('UNAUTHORIZED');
    const malformed = await call(local.gateway.url('/api/v1/models'), { headers: { Authorization: 'Basic abc' } });
    expect(malformed.status).toBe(401);
    expect(malformed.body.error.code).toBe('INVALID_API_KEY');
  });

  test('the admin token on the key-management routes is 403, a wrong token there 401', async () => {
    for (const [method, path] of [
      ['GET', '/api/v1/keys'],
      ['POST', '/api/v1/keys'],
      ['PATCH', '/api/v1/keys/some-key'],
      ['DELETE', '/api/v1/keys/some-key'],
    ] as const) {
      const admin = await call(local.gateway.url(path), { method, headers: bearer(local.gateway.info.adminToken) });
      expect([method, path, admin.status, admin.body.error.code]).toEqual([method, path, 403, 'FORBIDDEN']);
      const wrong = await call(local.gateway.url(path), { method, headers: bearer('not-the-admin-token') });
      expect([method, path, wrong.status, wrong.body.error.code]).toEqual([method, path, 401, 'INVALID_API_KEY']);
    }
    // Routes whose function cannot read the admin token (as in AWS) see just an invalid credential.
    const models = await call(local.gateway.url('/api/v1/models'), { headers: bearer(local.gateway.info.adminToken) });
    expect([models.status, models.body.error.code]).toEqual([401, 'INVALID_API_KEY']);
  });

  test('the admin API refuses a wrong admin token and a missing one (401), and a valid API key (403)', async () => {
    const forged = `${aliceKey.key.slice(0, -4)}AAAA`;
    const cases: [Record<string, string>, number, string][] = [
      [bearer('wrong-token'), 401, 'INVALID_API_KEY'],
      [bearer(forged), 401, 'INVALID_API_KEY'],
      [{}, 401, 'UNAUTHORIZED'],
      [bearer(aliceKey.key), 403, 'FORBIDDEN'],
      [{ 'X-API-Key': aliceKey.key }, 403, 'FORBIDDEN'],
      [{ Cookie: alice.cookie }, 401, 'UNAUTHORIZED'],
    ];
    for (const [headers, status, code] of cases) {
      const answer = await call(local.gateway.url('/api/admin/v1/keys'), {
        headers,
        body: { accountId: alice.accountId, type: 'secret' },
      });
      expect([headers, answer.status, answer.body.error.code]).toEqual([headers, status, code]);
    }
  });
});
