import { call, type Answer } from './support/http.js';
import { useGateway } from './support/gateway-fixture.js';
import { login, provisionAccount, type TestAccount } from './support/provisioning.js';
import { postFrom } from './support/source-address.js';
import { authenticator, codeAt, standInTotpClock, wrongCode } from '../support/authenticator.js';

/** A safety net, not a bound: a device moves the stand-in's TOTP clock instead of waiting for the next step. */
const WITH_WAITS_MS = 120_000;

/**
 * TOTP MFA for dashboard users over HTTP, against the local runtime and its Cognito stand-in:
 * set up and confirmed at POST /api/v1/auth/mfa, asked at every sign-in, turned off with
 * DELETE. Codes come from the tests' own authenticator (test/support/authenticator.ts).
 */
const local = useGateway();

const mfa = (account: TestAccount, body: unknown, method = 'POST', headers = account.session) =>
  call(local.gateway.url('/api/v1/auth/mfa'), { method, headers, body });
const signIn = (body: unknown) => call(local.gateway.url('/api/v1/auth/login'), { body });

/** An account whose authenticator is on; its device. */
async function withAuthenticator(label: string) {
  const account = await provisionAccount(local.gateway, label);
  const begun = await mfa(account, { currentPassword: account.password });
  expect(begun.status).toBe(200);
  const device = authenticator(begun.body.data.setup.secret, standInTotpClock(local.gateway.aws.cognito));
  const confirmed = await mfa(account, { totpCode: await device.next() });
  expect(confirmed.body).toEqual({ success: true, data: { enabled: true } });
  return { account, device };
}

function expectRefused(answer: Answer, status: number, code: string, field?: string): void {
  expect([answer.status, answer.body.error?.code]).toEqual([status, code]);
  if (field) expect(answer.body.error.field).toBe(field);
  expect(answer.headers.get('set-cookie')).toBeNull();
}

test(
  'set up: the password gives a secret and its otpauth URI; a code of it switches MFA on',
  async () => {
    const account = await provisionAccount(local.gateway, 'mfa-setup');
    expectRefused(await mfa(account, { totpCode: '123456' }), 409, 'CONFLICT');
    expectRefused(await mfa(account, { currentPassword: 'Wrong-Password-1!' }), 401, 'UNAUTHORIZED');

    const begun = await mfa(account, { currentPassword: account.password });
    expect(begun.status).toBe(200);
    expect(begun.headers.get('cache-control')).toBe('no-store');
    const { secret, otpauthUri } = begun.body.data.setup;
    // Only what the app needs: no Cognito token or session travels with it.
    expect(begun.body).toEqual({ success: true, data: { enabled: false, setup: { secret, otpauthUri } } });
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    const uri = new URL(otpauthUri);
    expect([uri.protocol, uri.host]).toEqual(['otpauth:', 'totp']);
    expect(decodeURIComponent(uri.pathname)).toBe(`/AI Gateway:${account.email}`);
    expect(Object.fromEntries(uri.searchParams)).toEqual({
      secret,
      issuer: 'AI Gateway',
      algorithm: 'SHA1',
      digits: '6',
      period: '30',
    });

    // Not on until confirmed: sign-in still needs only the password.
    expect(await login(local.gateway, account.email, account.password)).toMatch(/^gw_session=/);
    expectRefused(await mfa(account, { totpCode: wrongCode(secret) }), 401, 'INVALID_TOTP_CODE', 'totpCode');
    const device = authenticator(secret, standInTotpClock(local.gateway.aws.cognito));
    const confirmed = await mfa(account, { totpCode: await device.next() });
    expect(confirmed.body).toEqual({ success: true, data: { enabled: true } });
    // Confirmed once: the set-up is used up.
    expectRefused(await mfa(account, { totpCode: await device.next() }), 409, 'CONFLICT');
  },
  WITH_WAITS_MS,
);

test(
  'sign-in with MFA: MFA_REQUIRED without a code, INVALID_TOTP_CODE for a wrong or used one, a session with the right one',
  async () => {
    const { account, device } = await withAuthenticator('mfa-login');
    const credentials = { email: account.email, password: account.password };
    expectRefused(await signIn(credentials), 401, 'MFA_REQUIRED', 'totpCode');
    expectRefused(
      await signIn({ ...credentials, totpCode: wrongCode(device.secret) }),
      401,
      'INVALID_TOTP_CODE',
      'totpCode',
    );
    // A right code does not rescue a wrong password, which is the usual answer.
    const code = await device.next();
    expectRefused(await signIn({ ...credentials, password: 'Wrong-Password-1!', totpCode: code }), 401, 'UNAUTHORIZED');
    const signedIn = await signIn({ ...credentials, totpCode: code });
    expect(signedIn.status).toBe(200);
    expect(signedIn.headers.get('set-cookie')).toMatch(/^gw_session=/);
    expect(signedIn.body.data).toMatchObject({ accountId: account.accountId, email: account.email });
    // The same code again is refused, even within its 30 s.
    expectRefused(await signIn({ ...credentials, totpCode: code }), 401, 'INVALID_TOTP_CODE', 'totpCode');
    // The password change asks for it too.
    const change = (body: unknown) =>
      call(local.gateway.url('/api/v1/auth/password'), { headers: account.session, body });
    expectRefused(
      await change({ currentPassword: account.password, newPassword: 'Mfa-Changed-123' }),
      401,
      'MFA_REQUIRED',
    );
    const changed = await change({
      currentPassword: account.password,
      newPassword: 'Mfa-Changed-123',
      totpCode: await device.next(),
    });
    expect(changed.status).toBe(200);
  },
  WITH_WAITS_MS,
);

test(
  'wrong codes count as failed sign-ins: five, then the account is locked, the right code too',
  async () => {
    const { account, device } = await withAuthenticator('mfa-guess');
    const from = '127.0.0.31';
    const attempt = (totpCode?: string) =>
      postFrom(from, local.gateway.url('/api/v1/auth/login'), {
        email: account.email,
        password: account.password,
        totpCode,
      });
    // Attempts without a code count too: the right password alone clears nothing.
    expectRefused(await attempt(), 401, 'MFA_REQUIRED');
    for (let i = 0; i < 4; i++) expectRefused(await attempt(wrongCode(device.secret)), 401, 'INVALID_TOTP_CODE');
    const locked = await attempt(await device.next());
    expectRefused(locked, 429, 'RATE_LIMIT_EXCEEDED');
    expect(locked.headers.get('retry-after')).toMatch(/^[1-9]\d*$/);
  },
  WITH_WAITS_MS,
);

test(
  'turned off with the password and a code; then sign-in needs the password alone',
  async () => {
    const { account, device } = await withAuthenticator('mfa-off');
    const off = (body: unknown, headers = account.session) => mfa(account, body, 'DELETE', headers);
    expectRefused(await off({ currentPassword: account.password }), 400, 'BAD_REQUEST', 'totpCode');
    expectRefused(
      await off({ currentPassword: account.password, totpCode: wrongCode(device.secret) }),
      401,
      'INVALID_TOTP_CODE',
    );
    // Refused before any code is checked: a code the device need not spend.
    expectRefused(
      await off({ currentPassword: 'Wrong-Password-1!', totpCode: codeAt(device.secret, Date.now()) }),
      401,
      'UNAUTHORIZED',
    );
    const { Origin: _origin, ...withoutOrigin } = account.session;
    expectRefused(
      await off({ currentPassword: account.password, totpCode: codeAt(device.secret, Date.now()) }, withoutOrigin),
      403,
      'FORBIDDEN',
    );
    const done = await off({ currentPassword: account.password, totpCode: await device.next() });
    expect(done.body).toEqual({ success: true, data: { enabled: false } });
    expect(await login(local.gateway, account.email, account.password)).toMatch(/^gw_session=/);
    expectRefused(await off({ currentPassword: account.password, totpCode: '000000' }), 409, 'CONFLICT');
  },
  WITH_WAITS_MS,
);

test(
  'a new authenticator replaces the old one: begun with a code of the old, confirmed with one of the new',
  async () => {
    const { account, device: old } = await withAuthenticator('mfa-replace');
    expectRefused(await mfa(account, { currentPassword: account.password }), 401, 'MFA_REQUIRED', 'totpCode');
    const begun = await mfa(account, { currentPassword: account.password, totpCode: await old.next() });
    expect(begun.body.data.enabled).toBe(true);
    const fresh = authenticator(begun.body.data.setup.secret, standInTotpClock(local.gateway.aws.cognito));
    expect((await mfa(account, { totpCode: await fresh.next() })).body.data).toEqual({ enabled: true });
    const credentials = { email: account.email, password: account.password };
    // The old secret's code of now, not spent on the old secret: refused all the same.
    expectRefused(await signIn({ ...credentials, totpCode: codeAt(old.secret, Date.now()) }), 401, 'INVALID_TOTP_CODE');
    expect((await signIn({ ...credentials, totpCode: await fresh.next() })).status).toBe(200);
  },
  WITH_WAITS_MS,
);

describe('bad input names the field', () => {
  let account: TestAccount;
  beforeAll(async () => {
    account = await provisionAccount(local.gateway, 'mfa-input');
  });

  test.each([
    [{}, 'totpCode'],
    [{ totpCode: '12345' }, 'totpCode'],
    [{ totpCode: '1234567' }, 'totpCode'],
    [{ totpCode: 123456 }, 'totpCode'],
    [{ totpCode: '12a456' }, 'totpCode'],
    [{ currentPassword: '' }, 'currentPassword'],
    [{ currentPassword: 'x'.repeat(257) }, 'currentPassword'],
    [{ currentPassword: 'x', secret: 'mine' }, 'secret'],
  ])('POST /auth/mfa %j is a 400 naming %s', async (body, field) => {
    expectRefused(await mfa(account, body), 400, 'BAD_REQUEST', field);
  });

  test.each([
    [{ totpCode: '123456' }, 'currentPassword'],
    [{ currentPassword: 'x', totpCode: '' }, 'totpCode'],
  ])('DELETE /auth/mfa %j is a 400 naming %s', async (body, field) => {
    expectRefused(await mfa(account, body, 'DELETE'), 400, 'BAD_REQUEST', field);
  });

  test.each([
    [{ email: 'a@b.example', password: 'x', totpCode: '12345' }, 'totpCode'],
    [{ email: 'a@b.example', password: 'x', totpCode: 123456 }, 'totpCode'],
  ])('login %j is a 400 naming %s', async (body, field) => {
    expectRefused(await signIn(body), 400, 'BAD_REQUEST', field);
  });

  test('the MFA routes take the session cookie and an allowed Origin only', async () => {
    expectRefused(await mfa(account, { currentPassword: account.password }, 'POST', {}), 401, 'UNAUTHORIZED');
    const foreign = { ...account.session, Origin: 'https://evil.example' };
    expectRefused(await mfa(account, { currentPassword: account.password }, 'POST', foreign), 403, 'FORBIDDEN');
  });
});
