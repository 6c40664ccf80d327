import { bearer, call, type Answer } from './support/http.js';
import { useGateway } from './support/gateway-fixture.js';
import { authenticator, codeAt, standInTotpClock, wrongCode } from '../support/authenticator.js';

/**
 * A deployment that requires MFA of every dashboard user (DASHBOARD_MFA=required, what the
 * dashboardMfa context value sets; the Cognito stand-in's pool then has MFA on): a user
 * without an authenticator sets one up at sign-in, and cannot turn it off.
 */
const local = useGateway({ env: { DASHBOARD_MFA: 'required' } });

const signIn = (body: unknown) => call(local.gateway.url('/api/v1/auth/login'), { body });
const cookieOf = (answer: Answer) => /gw_session=[^;]*/.exec(answer.headers.get('set-cookie') ?? '')?.[0];

test('the first sign-in chooses the password, then sets up the authenticator, then signs in with its code', async () => {
  const email = `required-${process.pid}@example.com`;
  const created = await call(local.gateway.url('/api/admin/v1/accounts'), {
    headers: bearer(local.gateway.info.adminToken),
    body: { email, name: 'Required' },
  });
  const temporary = created.body.data.dashboard.initialPassword as string;
  const password = 'Own-Password-123';
  expect((await signIn({ email, password: temporary })).body.error.code).toBe('PASSWORD_CHANGE_REQUIRED');

  // The new password is taken, and the answer is the authenticator's secret: no session yet.
  const first = await signIn({ email, password: temporary, newPassword: password });
  expect(first.status).toBe(202);
  expect(first.headers.get('set-cookie')).toBeNull();
  expect(first.headers.get('cache-control')).toBe('no-store');
  const { secret, otpauthUri } = first.body.data.mfaSetup;
  expect(first.body).toEqual({ success: true, data: { mfaSetup: { secret, otpauthUri } } });
  expect(new URL(otpauthUri).searchParams.get('secret')).toBe(secret);

  const wrong = await signIn({ email, password, totpCode: wrongCode(secret) });
  expect([wrong.status, wrong.body.error.code, wrong.body.error.field]).toEqual([401, 'INVALID_TOTP_CODE', 'totpCode']);
  expect(wrong.headers.get('set-cookie')).toBeNull();
  const device = authenticator(secret, standInTotpClock(local.gateway.aws.cognito));
  const done = await signIn({ email, password, totpCode: await device.next() });
  expect(done.status).toBe(200);
  const cookie = cookieOf(done)!;
  expect(cookie).toMatch(/^gw_session=/);

  // From now on the code is asked for, and MFA cannot be turned off.
  const without = await signIn({ email, password });
  expect([without.status, without.body.error.code]).toEqual([401, 'MFA_REQUIRED']);
  expect((await signIn({ email, password, totpCode: await device.next() })).status).toBe(200);
  const off = await call(local.gateway.url('/api/v1/auth/mfa'), {
    method: 'DELETE',
    headers: { Cookie: cookie, Origin: local.gateway.info.baseUrl },
    body: { currentPassword: password, totpCode: codeAt(secret, Date.now()) },
  });
  expect([off.status, off.body.error.code]).toEqual([409, 'CONFLICT']);
  expect(off.body.error.message).toMatch(/requires/);
}, 120_000);

test('a sign-in without the code begins the set-up again, with a new secret; the old one no longer confirms', async () => {
  const email = `again-${process.pid}@example.com`;
  const created = await call(local.gateway.url('/api/admin/v1/accounts'), {
    headers: bearer(local.gateway.info.adminToken),
    body: { email, name: 'Again' },
  });
  const password = 'Own-Password-456';
  const temporary = created.body.data.dashboard.initialPassword as string;
  const first = await signIn({ email, password: temporary, newPassword: password });
  const second = await signIn({ email, password });
  expect(second.status).toBe(202);
  const [old, fresh] = [first.body.data.mfaSetup.secret, second.body.data.mfaSetup.secret];
  expect(fresh).not.toBe(old);
  const stale = await signIn({ email, password, totpCode: codeAt(old, Date.now()) });
  expect([stale.status, stale.body.error.code]).toEqual([401, 'INVALID_TOTP_CODE']);
  expect((await signIn({ email, password, totpCode: codeAt(fresh, Date.now()) })).status).toBe(200);
});
