import { createKey } from './support/provisioning.js';
import { bearer, call } from './support/http.js';
import { useGateway } from './support/gateway-fixture.js';

const local = useGateway({ account: 'keys' });

const models = (key: string) => call(local.gateway.url('/api/v1/models'), { headers: bearer(key) });
const patch = (id: string, body: unknown, headers = local.account.session) =>
  call(local.gateway.url(`/api/v1/keys/${id}`), { method: 'PATCH', headers, body });

test('create shows the full key once; the listing masks it', async () => {
  const created = await call(local.gateway.url('/api/v1/keys'), {
    headers: local.account.session,
    body: { rateLimit: 50 },
  });
  expect(created.status).toBe(201);
  expect(created.body.success).toBe(true);
  const { keyId, key, name, message } = created.body.data;
  expect(key).toMatch(/^sk_[a-z2-7]{20}_[A-Za-z0-9_-]{43}$/);
  expect(key).toContain(keyId);
  expect(name).toBe('Default');
  expect(message).toMatch(/only once/);

  const listed = await call(local.gateway.url('/api/v1/keys'), { headers: { Cookie: local.account.cookie } });
  expect(listed.status).toBe(200);
  expect(listed.text).not.toContain(key);
  const entry = listed.body.data.keys.find((k: { id: string }) => k.id === keyId);
  expect(entry).toMatchObject({ id: keyId, name: 'Default', enabled: true, rateLimit: 50, type: 'secret' });
  expect(entry.maskedKey).toBe(`sk_${keyId}_••••`);
  expect(Date.parse(entry.createdAt)).not.toBeNaN();
});

test('the dashboard and the admin API answer key creation with the same fields', async () => {
  const body = { name: 'same', rateLimit: 70 };
  const fromSession = await call(local.gateway.url('/api/v1/keys'), { headers: local.account.session, body });
  const fromAdmin = await call(local.gateway.url('/api/admin/v1/keys'), {
    headers: bearer(local.gateway.info.adminToken),
    body: { ...body, accountId: local.account.accountId, type: 'secret' },
  });
  expect([fromSession.status, fromAdmin.status]).toEqual([201, 201]);
  expect(Object.keys(fromSession.body.data).sort()).toEqual(Object.keys(fromAdmin.body.data).sort());
  const stable = ({ keyId, id, key, maskedKey, createdAt, ...rest }: Record<string, unknown>) => {
    expect(id).toBe(keyId);
    expect(maskedKey).toBe(`sk_${String(keyId)}_••••`);
    expect(String(key)).toContain(String(keyId));
    expect(Date.parse(String(createdAt))).not.toBeNaN();
    return rest;
  };
  expect(stable(fromSession.body.data)).toEqual(stable(fromAdmin.body.data));
  expect(stable(fromSession.body.data)).toMatchObject({
    accountId: local.account.accountId,
    name: 'same',
    rateLimit: 70,
  });
});

test('lifecycle: use, disable → 401, enable → use, delete → 401, and 401 after a restart', async () => {
  const { keyId, key } = await createKey(local.gateway, local.account, { name: 'lifecycle' });
  expect((await models(key)).status).toBe(200);

  const disabled = await patch(keyId, { enabled: false });
  expect(disabled.status).toBe(200);
  expect(disabled.body).toMatchObject({ success: true, data: { keyId, updated: true, enabled: false } });
  const refused = await models(key);
  expect(refused.status).toBe(401);
  expect(refused.body.error.code).toBe('INVALID_API_KEY');

  expect((await patch(keyId, { enabled: true })).status).toBe(200);
  expect((await models(key)).status).toBe(200);

  const deleted = await call(local.gateway.url(`/api/v1/keys/${keyId}`), {
    method: 'DELETE',
    headers: local.account.session,
  });
  expect(deleted.status).toBe(204);
  expect(deleted.text).toBe('');
  expect((await models(key)).status).toBe(401);
  // Revocation is permanent: the key can be neither changed nor deleted again.
  expect((await patch(keyId, { enabled: true })).status).toBe(404);
  expect(
    (await call(local.gateway.url(`/api/v1/keys/${keyId}`), { method: 'DELETE', headers: local.account.session }))
      .status,
  ).toBe(404);
  const listed = await call(local.gateway.url('/api/v1/keys'), { headers: { Cookie: local.account.cookie } });
  expect(listed.body.data.keys.map((k: { id: string }) => k.id)).not.toContain(keyId);

  await local.gateway.restart();
  expect((await models(key)).status).toBe(401);
  // The runtime's own first key survives the restart.
  expect((await models(local.gateway.info.apiKey)).status).toBe(200);
}, 60_000);

test('PATCH changes name and rateLimit, and the new limit applies', async () => {
  const { keyId, key } = await createKey(local.gateway, local.account);
  expect((await patch(keyId, { name: 'renamed', rateLimit: 7 })).status).toBe(200);
  const answer = await models(key);
  expect(answer.headers.get('x-ratelimit-limit')).toBe('7');
  const listed = await call(local.gateway.url('/api/v1/keys'), { headers: { Cookie: local.account.cookie } });
  expect(listed.body.data.keys.find((k: { id: string }) => k.id === keyId)).toMatchObject({
    name: 'renamed',
    rateLimit: 7,
  });
});

test.each([
  [{ rateLimit: 0 }, 'rateLimit'],
  [{ rateLimit: 10001 }, 'rateLimit'],
  [{ rateLimit: 1.5 }, 'rateLimit'],
  [{ rateLimit: '10' }, 'rateLimit'],
  [{ name: '' }, 'name'],
  [{ name: 'x'.repeat(101) }, 'name'],
  [{ enabled: 'yes' }, 'enabled'],
  [{ colour: 'blue' }, 'colour'],
])('PATCH %j is a 400 naming %s', async (body, field) => {
  const { keyId } = await createKey(local.gateway, local.account);
  const answer = await patch(keyId, body);
  expect(answer.status).toBe(400);
  expect(answer.body.error).toMatchObject({ code: 'BAD_REQUEST', field });
  expect(answer.body.error.message).toContain(field);
});

test('PATCH reads null as "unchanged": the key stays enabled, named and limited', async () => {
  const { keyId, key } = await createKey(local.gateway, local.account, { name: 'kept', rateLimit: 9 });
  expect((await patch(keyId, { name: null, rateLimit: null, enabled: null })).status).toBe(400);
  expect((await patch(keyId, { name: 'renamed', enabled: null, rateLimit: null })).status).toBe(200);
  const answer = await models(key);
  expect(answer.status).toBe(200);
  expect(answer.headers.get('x-ratelimit-limit')).toBe('9');
  const listed = await call(local.gateway.url('/api/v1/keys'), { headers: { Cookie: local.account.cookie } });
  expect(listed.body.data.keys.find((k: { id: string }) => k.id === keyId)).toMatchObject({
    name: 'renamed',
    rateLimit: 9,
    enabled: true,
  });
});

test('POST /keys reads null as "not given"', async () => {
  const body = { name: null, rateLimit: null, type: null, allowedOrigins: null };
  const created = await call(local.gateway.url('/api/v1/keys'), { headers: local.account.session, body });
  expect(created.status).toBe(201);
  expect(created.body.data).toMatchObject({ name: 'Default', rateLimit: 600, type: 'secret', enabled: true });
});

test('PATCH with no change, or malformed JSON, is a 400', async () => {
  const { keyId } = await createKey(local.gateway, local.account);
  expect((await patch(keyId, {})).status).toBe(400);
  const malformed = await call(local.gateway.url(`/api/v1/keys/${keyId}`), {
    method: 'PATCH',
    headers: { ...local.account.session, 'Content-Type': 'application/json' },
    rawBody: '{"name":',
  });
  expect(malformed.status).toBe(400);
  expect(malformed.body.error.field).toBe('body');
});

test.each([
  [{ rateLimit: 0 }, 'rateLimit'],
  [{ rateLimit: 20000 }, 'rateLimit'],
  [{ name: 5 }, 'name'],
  [{ type: 'publishable' }, 'allowedOrigins'],
  [{ type: 'secret', allowedOrigins: ['https://a.example'] }, 'allowedOrigins'],
  [{ type: 'publishable', allowedOrigins: ['not a url'] }, 'allowedOrigins[0]'],
])('POST /keys %j is a 400 naming %s', async (body, field) => {
  const answer = await call(local.gateway.url('/api/v1/keys'), { headers: local.account.session, body });
  expect(answer.status).toBe(400);
  expect(answer.body.error.field).toBe(field);
});

test('unknown key ids are 404 for PATCH and DELETE', async () => {
  expect((await patch('nosuchkey', { name: 'x' })).status).toBe(404);
  const deleted = await call(local.gateway.url('/api/v1/keys/nosuchkey'), {
    method: 'DELETE',
    headers: local.account.session,
  });
  expect(deleted.status).toBe(404);
  expect(deleted.body.error.code).toBe('NOT_FOUND');
});

test('key management needs a session: none is 401, an API key is 403', async () => {
  const none = await call(local.gateway.url('/api/v1/keys'));
  expect(none.status).toBe(401);
  expect(none.body).toMatchObject({ success: false, error: { code: 'UNAUTHORIZED' } });
  const withKey = await call(local.gateway.url('/api/v1/keys'), { headers: bearer(local.gateway.info.apiKey) });
  expect(withKey.status).toBe(403);
  // Both say what the route takes instead, so a caller is not sent from a 401 to a 403.
  const sessionOnly = 'the dashboard session cookie (gw_session, set by POST /api/v1/auth/login)';
  expect(none.body.error.message).toBe(`Missing credentials: this route accepts ${sessionOnly}`);
  expect(none.body.error.message).not.toMatch(/API key|Bearer/);
  expect(withKey.body.error.message).toBe(`Secret API keys cannot reach this route: it accepts ${sessionOnly}`);
});

test('a route taking keys and sessions names both in its 401', async () => {
  const none = await call(local.gateway.url('/api/v1/usage'));
  expect(none.status).toBe(401);
  expect(none.body.error.message).toBe(
    'Missing credentials: this route accepts a secret API key (Authorization: Bearer sk_… or X-API-Key) ' +
      'or the dashboard session cookie (gw_session, set by POST /api/v1/auth/login)',
  );
});

test('cookie writes need an allowed Origin', async () => {
  const noOrigin = await call(local.gateway.url('/api/v1/keys'), {
    headers: { Cookie: local.account.cookie },
    body: {},
  });
  expect(noOrigin.status).toBe(403);
  const foreign = await call(local.gateway.url('/api/v1/keys'), {
    headers: { Cookie: local.account.cookie, Origin: 'https://evil.example' },
    body: {},
  });
  expect(foreign.status).toBe(403);
  // Reads are not state-changing and need no Origin.
  expect((await call(local.gateway.url('/api/v1/keys'), { headers: { Cookie: local.account.cookie } })).status).toBe(
    200,
  );
});
