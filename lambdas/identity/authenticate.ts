import type { AuthScheme } from '../../lib/routes.js';
import { required } from '../config/configuration.js';
import { ENV } from '../config/environment.js';
import { IdentityError, invalidCredentials, missingCredentials, notAllowed } from './identity-errors.js';
import { getLiveSession } from '../store/sessions.js';
import { parseKey, verifyKey } from './api-key-format.js';
import { isCurrentSecret } from './current-secret.js';
import type { ApiKeyRecord } from '../store/api-keys.js';
import { findApiKey } from './key-directory.js';
import type { Principal } from './principal.js';
import { hashSessionId, SESSION_COOKIE } from './session-cookie.js';

const STATE_CHANGING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** What authentication reads of a request (http/request.ts's GatewayRequest is one). */
export interface PresentedRequest {
  readonly method: string;
  /** Lower-cased header names. */
  readonly headers: Readonly<Record<string, string>>;
  readonly cookies: Readonly<Record<string, string>>;
  /** `functionUrl` when the request came through a function URL, signed by its caller. */
  readonly door: string;
}

/** What authentication needs from the deployment (lambdas/config/configuration.ts). */
export interface AuthenticationSettings {
  /** Where the admin token lives: required on admin routes, and where `mayReadAdminToken`. */
  readonly adminTokenSecretId?: string;
  /** The dashboard's own origins, the only ones cookie-authenticated writes may come from. */
  readonly allowedOrigins?: readonly string[];
  /** The route's function may read the admin token (to tell a mistaken admin token apart). */
  readonly mayReadAdminToken?: boolean;
}

/**
 * Resolves the caller from whichever credential the request carries and the route accepts.
 * A missing credential is 401 UNAUTHORIZED, a bad one 401 INVALID_API_KEY, and a valid
 * credential of a kind the route does not accept 403.
 */
export async function authenticate(
  req: PresentedRequest,
  schemes: readonly AuthScheme[],
  settings: AuthenticationSettings = {},
): Promise<Principal> {
  const token = presentedToken(req);
  if (schemes.includes('admin')) return authenticateAdmin(token, settings);
  if (token !== undefined) {
    if (settings.mayReadAdminToken && (await isAdminToken(token, settings)))
      throw notAllowed('The admin token reaches only the admin API (/api/admin/v1/*)');
    return authenticateKey(req, token, schemes);
  }
  const sessionId = req.cookies[SESSION_COOKIE];
  if (sessionId && schemes.includes('session')) return authenticateSession(req, sessionId, settings);
  throw missingCredentials(`Missing credentials: this route accepts ${accepted(schemes)}`);
}

/** How a caller presents each scheme but the admin token (whose routes take nothing else). */
const SCHEME_WORDS: Readonly<Record<Exclude<AuthScheme, 'admin'>, string>> = {
  secretKey: 'a secret API key (Authorization: Bearer sk_… or X-API-Key)',
  publishableKey: 'a publishable key (pk_…) from one of its allowed origins',
  session: `the dashboard session cookie (${SESSION_COOKIE}, set by POST /api/v1/auth/login)`,
};

/** What a route accepts, from its manifest schemes, so a refusal says what to send instead. */
const accepted = (schemes: readonly AuthScheme[]): string =>
  schemes.flatMap((scheme) => (scheme === 'admin' ? [] : [SCHEME_WORDS[scheme]])).join(' or ');

const SIGV4_AUTHORIZATION = /^AWS4-HMAC-SHA256\s/;

/**
 * The API key the caller presents. Function URLs are IAM-authenticated: a signed caller's SigV4
 * signature occupies `Authorization`, so the key comes in `X-API-Key`. Lambda has verified the
 * signature before invoking the function (the URL's auth type is AWS_IAM), so it is not checked
 * again here; only function-URL events get this reading, since a REST API request with such a
 * header reached no signature check at all.
 */
function presentedToken(req: PresentedRequest): string | undefined {
  const signed = req.door === 'functionUrl' && SIGV4_AUTHORIZATION.test(req.headers['authorization'] ?? '');
  if (signed) return req.headers['x-api-key'];
  return bearerToken(req) ?? req.headers['x-api-key'];
}

function bearerToken(req: PresentedRequest): string | undefined {
  const header = req.headers['authorization'];
  if (!header) return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!match) throw invalidCredentials('Authorization header must be "Bearer <key>"');
  return match[1];
}

async function authenticateAdmin(token: string | undefined, settings: AuthenticationSettings): Promise<Principal> {
  if (token === undefined) throw missingCredentials('Missing admin token: send Authorization: Bearer <admin token>');
  if (await isCurrentAdminToken(token, settings)) return { kind: 'admin' };
  if (await isUsableKey(token)) throw notAllowed('API keys cannot reach the admin API: send the admin token');
  throw invalidCredentials('Invalid admin token');
}

/**
 * Whether a token that is not an API key is the admin token. Asked only on routes whose
 * function may read it (the key-management routes, where a partner may mistake one credential
 * for the other); elsewhere such a token is just an invalid credential.
 */
async function isAdminToken(token: string, settings: AuthenticationSettings): Promise<boolean> {
  if (parseKey(token)) return false;
  return isCurrentAdminToken(token, settings);
}

/**
 * How often a non-matching token may make an instance read the admin token afresh: a rotated
 * token works everywhere within seconds, not after the secret cache's five minutes.
 */
const ADMIN_TOKEN_REREAD_MS = 5_000;

async function isCurrentAdminToken(token: string, settings: AuthenticationSettings): Promise<boolean> {
  const secretId = required(settings.adminTokenSecretId, ENV.adminTokenSecretId);
  return isCurrentSecret(token, secretId, ADMIN_TOKEN_REREAD_MS);
}

/** Whether the token is a working API key; store failures still propagate. */
const isUsableKey = (token: string): Promise<boolean> =>
  findUsableKey(token).then(
    () => true,
    (error: unknown) => {
      if (error instanceof IdentityError) return false;
      throw error;
    },
  );

/** The key's record when the key is real, enabled and not revoked; 401 otherwise. */
async function findUsableKey(token: string): Promise<ApiKeyRecord> {
  const parsed = parseKey(token);
  if (!parsed) throw invalidCredentials();
  const record = await findApiKey(parsed.keyId);
  if (!record || record.revoked || !record.hash || !verifyKey(token, record.hash)) throw invalidCredentials();
  if (!record.enabled) throw invalidCredentials('API key is disabled');
  return record;
}

async function authenticateKey(
  req: PresentedRequest,
  token: string,
  schemes: readonly AuthScheme[],
): Promise<Principal> {
  const record = await findUsableKey(token);
  const { accountId, keyId, rateLimit, budget, contentLog } = record;
  const ofKey = { accountId, keyId, rateLimit, ...(budget ? { budget } : {}), ...(contentLog ? { contentLog } : {}) };
  if (record.type === 'secret') {
    if (!schemes.includes('secretKey'))
      throw notAllowed(`Secret API keys cannot reach this route: it accepts ${accepted(schemes)}`);
    return { kind: 'secretKey', ...ofKey };
  }
  if (!schemes.includes('publishableKey')) {
    throw notAllowed('Publishable keys can only reach the chat modes, never key management or usage');
  }
  const origin = req.headers['origin'];
  if (!origin || !record.allowedOrigins.includes(origin)) {
    throw notAllowed('This publishable key is not allowed from this origin');
  }
  return { kind: 'publishableKey', ...ofKey, origin };
}

async function authenticateSession(
  req: PresentedRequest,
  sessionId: string,
  settings: AuthenticationSettings,
): Promise<Principal> {
  const sessionHash = hashSessionId(sessionId);
  const session = await getLiveSession(sessionHash);
  if (!session) throw missingCredentials('Session expired or signed out: sign in again');
  if (STATE_CHANGING.has(req.method)) assertTrustedOrigin(req, settings.allowedOrigins ?? []);
  return { kind: 'session', accountId: session.accountId, email: session.email, sessionHash };
}

/**
 * Cookies ride along on cross-site requests, so a state-changing cookie request must come
 * from one of the dashboard's own origins. A missing Origin is refused too: browsers send it
 * on every such request, so only a forged or non-browser request lacks it.
 */
function assertTrustedOrigin(req: PresentedRequest, allowedOrigins: readonly string[]): void {
  const origin = req.headers['origin'];
  if (!origin || !allowedOrigins.includes(origin)) {
    throw notAllowed('Origin not allowed for cookie-authenticated requests');
  }
}
