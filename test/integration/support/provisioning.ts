import { bearer, call, type Answer } from './http.js';
import type { LocalGateway } from '../../../local/child-runtime.js';

/** A provisioned account with a signed-in dashboard session. */
export interface TestAccount {
  accountId: string;
  email: string;
  /** The user's own password, chosen at the first sign-in. */
  password: string;
  /** The admin-set password the first sign-in replaced. */
  temporaryPassword: string;
  /** `gw_session=<id>`, ready for a Cookie header. */
  cookie: string;
  /** Headers for cookie-authenticated writes: the cookie plus the dashboard's own origin. */
  session: Record<string, string>;
}

let counter = 0;

export async function provisionAccount(gateway: LocalGateway, label = 'user'): Promise<TestAccount> {
  const email = `${label}-${process.pid}-${Date.now()}-${counter++}@example.com`;
  const created = await call(gateway.url('/api/admin/v1/accounts'), {
    headers: bearer(gateway.info.adminToken),
    body: { email, name: label },
  });
  if (created.status !== 201) throw new Error(`account: ${created.status} ${created.text}`);
  const temporary = created.body.data.dashboard.initialPassword as string;
  const password = `${temporary}-own`;
  const cookie = await firstSignIn(gateway, email, temporary, password);
  return {
    accountId: created.body.data.accountId,
    email,
    password,
    temporaryPassword: temporary,
    cookie,
    session: { Cookie: cookie, Origin: gateway.info.baseUrl },
  };
}

export async function login(gateway: LocalGateway, email: string, password: string): Promise<string> {
  const answer = await signInCall(gateway, { email, password });
  if (answer.status !== 200) throw new Error(`login: ${answer.status} ${answer.text}`);
  return cookieOf(answer);
}

/** The first sign-in with an admin-set password: refused without, then signed in with, the user's own. */
export async function firstSignIn(
  gateway: LocalGateway,
  email: string,
  temporary: string,
  newPassword: string,
): Promise<string> {
  const refused = await signInCall(gateway, { email, password: temporary });
  if (refused.status !== 403) throw new Error(`first login: ${refused.status} ${refused.text}`);
  const answer = await signInCall(gateway, { email, password: temporary, newPassword });
  if (answer.status === 200) return cookieOf(answer);
  // A busy store can refuse the session after Cognito took the new password: it is the password now.
  if (answer.status === 401) return login(gateway, email, newPassword);
  throw new Error(`new password: ${answer.status} ${answer.text}`);
}

const cookieOf = (answer: Answer) => /gw_session=[^;]*/.exec(answer.headers.get('set-cookie') ?? '')![0];

/**
 * A sign-in, tried again while the gateway answers 503 (its store is busy: files that throttle
 * the embedded DynamoDB provision accounts too), after the Retry-After it gives.
 */
async function signInCall(gateway: LocalGateway, body: Record<string, string>): Promise<Answer> {
  for (let attempt = 1; ; attempt++) {
    const answer = await call(gateway.url('/api/v1/auth/login'), { body });
    if (answer.status !== 503 || attempt >= 10) return answer;
    await new Promise((resolve) => setTimeout(resolve, 1000 * Number(answer.headers.get('retry-after') ?? 1)));
  }
}

export async function createKey(
  gateway: LocalGateway,
  account: TestAccount,
  body: Record<string, unknown> = {},
): Promise<{ keyId: string; key: string }> {
  const answer = await call(gateway.url('/api/v1/keys'), { headers: account.session, body });
  if (answer.status !== 201) throw new Error(`key: ${answer.status} ${answer.text}`);
  return { keyId: answer.body.data.keyId, key: answer.body.data.key };
}

export async function adminKey(
  gateway: LocalGateway,
  body: Record<string, unknown>,
): Promise<{ keyId: string; key: string }> {
  const answer = await call(gateway.url('/api/admin/v1/keys'), { headers: bearer(gateway.info.adminToken), body });
  if (answer.status !== 201) throw new Error(`admin key: ${answer.status} ${answer.text}`);
  return { keyId: answer.body.data.keyId, key: answer.body.data.key };
}
