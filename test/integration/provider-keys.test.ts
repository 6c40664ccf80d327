import { provisionAccount } from './support/provisioning.js';
import { bearer, call } from './support/http.js';
import { scanAll } from './support/ledger.js';
import { useGateway } from './support/gateway-fixture.js';

const local = useGateway({ account: 'byok', key: { via: 'admin', body: { type: 'secret' } }, simulator: 'openai' });

const OWN_KEY = 'sk-own-openai-key-for-tests-9876';
const create = (body: unknown, session = local.account.session) =>
  call(local.gateway.url('/api/v1/provider-keys'), { headers: session, body });
const chatKeyUsed = async () => {
  await local.simulator.reset();
  const answer = await call(local.gateway.url('/api/v1/chat/completions'), {
    headers: { ...bearer(local.key), 'X-Cache': 'no-cache' },
    body: { model: 'gpt', messages: [{ role: 'user', content: 'whose key?' }] },
  });
  expect(answer.status).toBe(200);
  const [request] = await local.simulator.requests();
  return request!.headers['authorization'];
};

test('a stored key replaces the platform key for its provider, until it is deleted', async () => {
  expect(await chatKeyUsed()).toBe('Bearer sim-local-key');
  const created = await create({ provider: 'openai', slug: 'my-openai', apiKey: OWN_KEY, displayName: 'Mine' });
  expect(created.status).toBe(201);
  expect(created.body.data).toMatchObject({
    provider: 'openai',
    slug: 'my-openai',
    displayName: 'Mine',
    apiKey: '••••9876',
  });
  expect(created.text).not.toContain(OWN_KEY);
  expect(await chatKeyUsed()).toBe(`Bearer ${OWN_KEY}`);

  const listed = await call(local.gateway.url('/api/v1/provider-keys'), { headers: { Cookie: local.account.cookie } });
  expect(listed.body.data.keys).toEqual([expect.objectContaining({ id: created.body.data.id, apiKey: '••••9876' })]);
  expect(listed.text).not.toContain(OWN_KEY);
  expect(JSON.stringify(await scanAll(local.gateway))).not.toContain(OWN_KEY);

  const deleted = await call(local.gateway.url(`/api/v1/provider-keys/${created.body.data.id}`), {
    method: 'DELETE',
    headers: local.account.session,
  });
  expect(deleted.status).toBe(204);
  expect(await chatKeyUsed()).toBe('Bearer sim-local-key');
  // The slug is free again.
  expect((await create({ provider: 'openai', slug: 'my-openai', apiKey: OWN_KEY })).status).toBe(201);
});

test('slugs are unique per account, not across accounts', async () => {
  expect((await create({ provider: 'anthropic', slug: 'shared-slug', apiKey: 'sk-ant-1234567890' })).status).toBe(201);
  const again = await create({ provider: 'google', slug: 'shared-slug', apiKey: 'AIza-1234567890' });
  expect(again.status).toBe(409);
  expect(again.body.error.field).toBe('slug');
  const other = await provisionAccount(local.gateway, 'byok-other');
  expect(
    (await create({ provider: 'anthropic', slug: 'shared-slug', apiKey: 'sk-ant-0987654321' }, other.session)).status,
  ).toBe(201);
});

test('another account cannot see or delete a key: 404', async () => {
  const mine = await create({ provider: 'xai', slug: 'private-xai', apiKey: 'xai-private-12345678' });
  const other = await provisionAccount(local.gateway, 'byok-intruder');
  const list = await call(local.gateway.url('/api/v1/provider-keys'), { headers: { Cookie: other.cookie } });
  expect(list.body.data.keys.map((k: { id: string }) => k.id)).not.toContain(mine.body.data.id);
  const deleted = await call(local.gateway.url(`/api/v1/provider-keys/${mine.body.data.id}`), {
    method: 'DELETE',
    headers: other.session,
  });
  expect(deleted.status).toBe(404);
});

test.each([
  [{ slug: 'a-b', apiKey: 'sk-12345678' }, 'provider'],
  [{ provider: 'mistral', slug: 'a-b', apiKey: 'sk-12345678' }, 'provider'],
  [{ provider: 'openai', slug: 'A_B', apiKey: 'sk-12345678' }, 'slug'],
  [{ provider: 'openai', slug: 'x', apiKey: 'sk-12345678' }, 'slug'],
  [{ provider: 'openai', slug: 'ok-slug' }, 'apiKey'],
  [{ provider: 'openai', slug: 'ok-slug', apiKey: 'short' }, 'apiKey'],
  [{ provider: 'openai', slug: 'ok-slug', apiKey: 'sk-1234567890', extra: true }, 'extra'],
])('%j is a 400 naming %s', async (body, field) => {
  const answer = await create(body);
  expect(answer.status).toBe(400);
  expect(answer.body.error.field).toBe(field);
});

test('an unknown provider is refused with the providers it may be', async () => {
  const answer = await create({ provider: 'mistral', slug: 'a-b', apiKey: 'sk-12345678' });
  expect(answer.body.error).toMatchObject({
    field: 'provider',
    message: 'provider: must be one of openai, anthropic, google, xai, openrouter',
  });
});

test('provider keys need a session; an API key is refused', async () => {
  expect((await call(local.gateway.url('/api/v1/provider-keys'))).status).toBe(401);
  expect((await call(local.gateway.url('/api/v1/provider-keys'), { headers: bearer(local.key) })).status).toBe(403);
  expect(
    (
      await call(local.gateway.url('/api/v1/provider-keys/pkey_x'), {
        method: 'DELETE',
        headers: local.account.session,
      })
    ).status,
  ).toBe(404);
});
