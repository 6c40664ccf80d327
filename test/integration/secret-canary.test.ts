import { adminKey, createKey, provisionAccount } from './support/provisioning.js';
import { bearer, call } from './support/http.js';
import { scanAll } from './support/ledger.js';
import { useGateway } from './support/gateway-fixture.js';
import { authenticator, standInTotpClock, wrongCode } from '../support/authenticator.js';

const local = useGateway();

test('keys, the admin token, dashboard passwords and authenticator secrets and codes never reach logs, DynamoDB items or later responses', async () => {
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

  // An authenticator set up, confirmed and used, a wrong code tried: neither its secret nor a
  // code is written anywhere (a code as the JSON string or parameter it would be logged as).
  const session = {
    Cookie: /gw_session=[^;]*/.exec(changes[1]!.headers.get('set-cookie') ?? '')![0],
    Origin: local.gateway.info.baseUrl,
  };
  const begun = await call(local.gateway.url('/api/v1/auth/mfa'), {
    headers: session,
    body: { currentPassword: changedPassword },
  });
  const device = authenticator(begun.body.data.setup.secret, standInTotpClock(local.gateway.aws.cognito));
  const codes = [wrongCode(device.secret), await device.next(), await device.next()];
  const mfaCalls = [
    await call(local.gateway.url('/api/v1/auth/mfa'), { headers: session, body: { totpCode: codes[0] } }),
    await call(local.gateway.url('/api/v1/auth/mfa'), { headers: session, body: { totpCode: codes[1] } }),
    await call(local.gateway.url('/api/v1/auth/login'), {
      body: { email: account.email, password: changedPassword, totpCode: codes[2] },
    }),
  ];
  expect([begun.status, ...mfaCalls.map((answer) => answer.status)]).toEqual([200, 401, 200, 200]);
  secrets.push(device.secret);
  secretParts.push(device.secret);

  // `npm start` prints its own first key in the banner on purpose; everything else is logs.
  const logs = local.gateway.logs();
  const items = JSON.stringify(await scanAll(local.gateway));
  expect(items).toContain(dashboardKey.keyId); // the scan did see the key records
  for (const code of codes) {
    for (const written of [logs, items]) {
      expect(written).not.toContain(`"${code}"`);
      expect(written).not.toContain(`=${code}`);
    }
  }
  for (const [i, secret] of secrets.entries()) {
    expect(items).not.toContain(secret);
    expect(items).not.toContain(secretParts[i]);
    expect(logs).not.toContain(secret);
    expect(logs).not.toContain(secretParts[i]);
    for (const answer of later) expect(answer.text).not.toContain(secretParts[i]);
  }
  expect(logs).toContain('"route":"keys-update"'); // the logs were captured at all
  expect(logs).toContain('"route":"auth-mfa"');
}, 120_000);
