import { adminKey, createKey, provisionAccount } from './support/provisioning.js';
import { bearer, call } from './support/http.js';
import { scanAll } from './support/ledger.js';
import { useGateway } from './support/gateway-fixture.js';

const local = useGateway();

test('keys, the admin token and dashboard passwords never reach logs, DynamoDB items or later responses', async () => {
  const account = await provisionAccount(local.gateway, 'canary');
  const dashboardKey = await createKey(local.gateway, account, { name: 'canary' });
  const provisioned = await adminKey(local.gateway, { accountId: account.accountId, type: 'secret' });
  const publishable = await adminKey(local.gateway, {
    accountId: account.accountId,
    type: 'publishable',
    allowedOrigins: ['https://canary.example'],
  });
  const secrets = [
    dashboardKey.key,
    provisioned.key,
    publishable.key,
    local.gateway.info.adminToken,
    local.gateway.info.apiKey,
    // Sent to the login and new-password routes, passed on to the user pool only.
    account.temporaryPassword,
    account.password,
  ];
  // The secret parts alone, too: a log line that dropped the prefix would still leak.
  const secretParts = secrets.map((secret) => secret.slice(-43));

  // Use every key on success and failure paths, so their log lines exist.
  const later = [
    await call(local.gateway.url('/api/v1/models'), { headers: bearer(dashboardKey.key) }),
    await call(local.gateway.url('/api/v1/usage?from=bad'), { headers: bearer(provisioned.key) }),
    await call(local.gateway.url('/api/v1/usage'), {
      headers: { ...bearer(publishable.key), Origin: 'https://canary.example' },
    }),
    await call(local.gateway.url('/api/v1/keys'), { headers: { Cookie: account.cookie } }),
    await call(local.gateway.url('/api/admin/v1/usage?accountId=' + account.accountId), {
      headers: bearer(local.gateway.info.adminToken),
    }),
    await call(local.gateway.url('/api/admin/v1/keys'), {
      headers: bearer(local.gateway.info.adminToken),
      body: { accountId: 'nope', type: 'secret' },
    }),
    await call(local.gateway.url(`/api/v1/keys/${dashboardKey.keyId}`), {
      method: 'PATCH',
      headers: account.session,
      body: { enabled: false },
    }),
    await call(local.gateway.url('/api/v1/models'), { headers: bearer(dashboardKey.key) }),
  ];
  expect(later.map((answer) => answer.status)).toEqual([200, 400, 403, 200, 200, 404, 200, 401]);

  // A password change, refused by the policy and then made: neither password is written anywhere.
  const changedPassword = `${account.password}-changed`;
  const refusedPassword = `${account.password}-changed`.toLowerCase();
  const changes = [
    await call(local.gateway.url('/api/v1/auth/login'), {
      body: { email: account.email, password: account.password, newPassword: refusedPassword },
    }),
    await call(local.gateway.url('/api/v1/auth/login'), {
      body: { email: account.email, password: account.password, newPassword: changedPassword },
    }),
  ];
  expect(changes.map((answer) => answer.status)).toEqual([400, 200]);
  secrets.push(changedPassword, refusedPassword);
  secretParts.push(changedPassword.slice(-43), refusedPassword.slice(-43));

  // `npm start` prints its own first key in the banner on purpose; everything else is logs.
  const logs = local.gateway.logs();
  const items = JSON.stringify(await scanAll(local.gateway));
  expect(items).toContain(dashboardKey.keyId); // the scan did see the key records
  for (const [i, secret] of secrets.entries()) {
    expect(items).not.toContain(secret);
    expect(items).not.toContain(secretParts[i]);
    expect(logs).not.toContain(secret);
    expect(logs).not.toContain(secretParts[i]);
    for (const answer of later) expect(answer.text).not.toContain(secretParts[i]);
  }
  expect(logs).toContain('"route":"keys-update"'); // the logs were captured at all
});
