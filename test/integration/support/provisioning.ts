import { bearer, call } from './http.js';
import type { LocalGateway } from '../../../local/child-runtime.js';

/** A provisioned account with a signed-in dashboard session. */
export interface TestAccount {
  accountId: string;
  email: string;
  password: string;
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
  const password = created.body.data.dashboard.initialPassword as string;
  const cookie = await login(gateway, email, password);
  return {
    accountId: created.body.data.accountId,
    email,
    password,
    cookie,
    session: { Cookie: cookie, Origin: gateway.info.baseUrl },
  };
}

export async function login(gateway: LocalGateway, email: string, password: string): Promise<string> {
  const answer = await call(gateway.url('/api/v1/auth/login'), { body: { email, password } });
  if (answer.status !== 200) throw new Error(`login: ${answer.status} ${answer.text}`);
  return /gw_session=[^;]*/.exec(answer.headers.get('set-cookie') ?? '')![0];
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
