import { authenticate } from '../../lambdas/identity/authenticate.js';
import { KEY_CACHE_TTL_MS } from '../../lambdas/identity/key-directory.js';
import type { GatewayRequest } from '../../lambdas/http/request.js';
import { createKey, provisionAccount } from './support/provisioning.js';
import { call } from './support/http.js';
import { useGateway } from './support/gateway-fixture.js';

/**
 * Two instances: the runtime process, where the key is disabled, and this test process,
 * which authenticates with the same production code against the same table and has the key
 * cached. The disable must reach this instance within the 5 s bound.
 */
const local = useGateway({ runtimeTables: true });

const requestWith = (key: string): GatewayRequest => ({
  method: 'GET',
  path: '/api/v1/models',
  headers: { authorization: `Bearer ${key}` },
  query: {},
  pathParams: {},
  cookies: {},
  rawBody: '',
  sourceIp: '127.0.0.1',
  platformRequestId: 'test',
  door: 'restApi',
  baseUrl: '',
});

async function secondsUntilRefused(key: string): Promise<number> {
  const start = Date.now();
  for (;;) {
    try {
      await authenticate(requestWith(key), ['secretKey']);
    } catch {
      return (Date.now() - start) / 1000;
    }
    if (Date.now() - start > 10_000) return Infinity;
    await new Promise((done) => setTimeout(done, 100));
  }
}

test.each([['disable'], ['revoke']])(
  '%s on one instance takes effect on another within 5 s',
  async (action) => {
    expect(KEY_CACHE_TTL_MS).toBeLessThanOrEqual(5_000);
    const account = await provisionAccount(local.gateway, action);
    const { keyId, key } = await createKey(local.gateway, account);
    // This instance caches the key as enabled.
    await expect(authenticate(requestWith(key), ['secretKey'])).resolves.toMatchObject({ keyId });

    const change =
      action === 'disable'
        ? await call(local.gateway.url(`/api/v1/keys/${keyId}`), {
            method: 'PATCH',
            headers: account.session,
            body: { enabled: false },
          })
        : await call(local.gateway.url(`/api/v1/keys/${keyId}`), { method: 'DELETE', headers: account.session });
    expect(change.status).toBeLessThan(300);

    const seconds = await secondsUntilRefused(key);
    expect(seconds).toBeLessThanOrEqual(5);
  },
  20_000,
);
