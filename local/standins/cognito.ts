/**
 * Cognito user pool stand-in for the local runtime: one pool whose username is the email
 * address (the cloud pool signs in by email), with one app client whose explicit auth flows
 * are enforced as Cognito enforces them (by default the cloud client's: the admin password
 * flow and refresh tokens, so InitiateAuth with a password is refused). Error names and
 * messages follow the real service, including "prevent user existence errors" (an unknown
 * user and a wrong password look the same). Admin operations must be signed (aws-json-server.ts).
 *
 * Software-token MFA as Cognito runs it: AssociateSoftwareToken (with an access token, or the
 * session of an MFA_SETUP challenge) gives a new secret, VerifySoftwareToken checks a code of it
 * and configures it, SetUserMFAPreference / AdminSetUserMFAPreference turn it on or off; a
 * sign-in of a user with it on is answered with the SOFTWARE_TOKEN_MFA challenge, and in a pool
 * whose MFA is ON a user without it gets the MFA_SETUP challenge. Codes are real RFC 6238 TOTP
 * (totp.ts), each good once.
 *
 * Sign-in lockout as Cognito documents it ("Lockout behavior for failed sign-in attempts"), for
 * InitiateAuth and AdminInitiateAuth alike: after 5 failed password checks a user is locked for
 * 1 s, and each further failure locks for twice as long (2^(n-5) s for n failures), up to 15
 * minutes. An attempt during a lock, right password or not, is NotAuthorizedException
 * "Password attempts exceeded" and does not lengthen it. A successful sign-in after the lock,
 * or 15 minutes without any attempt, starts the count again. Only existing users are locked:
 * the documentation describes locking users, and an unknown name always reads as a wrong
 * password. Lock state lives in memory: a restart of the stand-in clears it.
 *
 * Tokens are JWT-shaped (HS256 under a key kept in the state file) so code that reads claims
 * such as `sub` from the IdToken, or calls GetUser with the AccessToken, works as in the cloud.
 * They are not verifiable against a Cognito JWKS; nothing local needs that.
 */
import { createHmac, randomBytes, randomInt, randomUUID, scrypt, timingSafeEqual } from 'node:crypto';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { matchTotp, newTotpSecret, TOTP_STEP_SECONDS } from './totp.js';
import {
  AwsJsonError,
  epochSeconds,
  loadJsonState,
  optionalString,
  requireString,
  saveJsonState,
  startAwsJsonServer,
  type AwsJsonInput,
  type AwsJsonServer,
} from './aws-json-server.js';

export interface PasswordPolicy {
  readonly minimumLength: number;
  readonly requireUppercase: boolean;
  readonly requireLowercase: boolean;
  readonly requireNumbers: boolean;
  readonly requireSymbols: boolean;
}

/** The cloud pool's policy; keep in step with the CDK user pool. */
export const DEFAULT_PASSWORD_POLICY: PasswordPolicy = {
  minimumLength: 12,
  requireUppercase: true,
  requireLowercase: true,
  requireNumbers: true,
  requireSymbols: true,
};

/** The cloud app client's explicit auth flows (lib/constructs/user-pool.ts); keep in step. */
export const DEFAULT_CLIENT_AUTH_FLOWS: readonly string[] = [
  'ALLOW_ADMIN_USER_PASSWORD_AUTH',
  'ALLOW_REFRESH_TOKEN_AUTH',
];

/** The pool's MFA setting, as CloudFormation names it. */
export type PoolMfa = 'OFF' | 'OPTIONAL' | 'ON';

export interface CognitoStandInOptions {
  readonly dataDir: string;
  /** The only pool and client this stand-in knows; other ids get ResourceNotFoundException. */
  readonly userPoolId: string;
  readonly clientId: string;
  readonly port?: number;
  readonly passwordPolicy?: PasswordPolicy;
  /** The app client's `ExplicitAuthFlows`. @default DEFAULT_CLIENT_AUTH_FLOWS */
  readonly clientAuthFlows?: readonly string[];
  /** @default 'OPTIONAL', as the cloud pool unless MFA is required */
  readonly mfa?: PoolMfa;
  /** How long a challenge's session answers (the app client's AuthSessionValidity). @default 3 minutes, Cognito's */
  readonly authSessionValidityMs?: number;
  /** Clock in epoch ms, for token expiry and TOTP codes. */
  readonly now?: () => number;
}

/**
 * Control `POST /__local/totp-clock?advanceSteps=N` (0 to 10; 0 reads it): moves the clock TOTP
 * codes are checked against N steps ahead, and answers `{offsetMs}`. A code is good once, so a
 * test's authenticator would otherwise wait up to 30 s for the next step; it reads the offset
 * and computes its codes at the same time. Nothing else (tokens, lockouts) moves.
 */
export const TOTP_CLOCK_CONTROL = 'totp-clock';

type UserStatus = 'FORCE_CHANGE_PASSWORD' | 'CONFIRMED';

/** A user's software token: the verified secret, one being set up, and the last step a code was used from. */
interface SoftwareToken {
  secret?: string;
  pending?: string;
  enabled: boolean;
  lastUsedStep: number;
}

interface StoredUser {
  sub: string;
  attributes: Record<string, string>;
  passwordHash: string;
  status: UserStatus;
  created: number;
  lastModified: number;
  totp?: SoftwareToken;
}

/** Which challenge a session answers; an MFA_SETUP session also whether its code was verified. */
interface ChallengeSession {
  key: string;
  expires: number;
  challenge: 'NEW_PASSWORD_REQUIRED' | 'SOFTWARE_TOKEN_MFA' | 'MFA_SETUP';
  verified?: boolean;
}

/** InitiateAuth's flows and the ExplicitAuthFlows value that allows each. */
const CLIENT_FLOWS: Readonly<Record<string, string>> = {
  USER_PASSWORD_AUTH: 'ALLOW_USER_PASSWORD_AUTH',
  USER_SRP_AUTH: 'ALLOW_USER_SRP_AUTH',
  CUSTOM_AUTH: 'ALLOW_CUSTOM_AUTH',
  USER_AUTH: 'ALLOW_USER_AUTH',
  REFRESH_TOKEN_AUTH: 'ALLOW_REFRESH_TOKEN_AUTH',
  REFRESH_TOKEN: 'ALLOW_REFRESH_TOKEN_AUTH',
};
// ADMIN_NO_SRP_AUTH is the older name of the admin password flow.
const ADMIN_PASSWORD_FLOWS = new Set(['ADMIN_USER_PASSWORD_AUTH', 'ADMIN_NO_SRP_AUTH']);

interface State {
  version: 1;
  /** Signs tokens; persisted so tokens stay valid across a restart, as in the cloud. */
  signingKey: string;
  /** Keyed by lower-cased email: sign-in by email is case-insensitive. */
  users: Record<string, StoredUser>;
}

/** Cognito's documented lockout (see the header). */
const LOCKOUT = {
  freeFailures: 5,
  firstLockMs: 1_000,
  maxLockMs: 15 * 60_000,
  quietMs: 15 * 60_000,
} as const;

interface Lockout {
  failures: number;
  lockedUntil: number;
  lastAttempt: number;
}

const TOKEN_TTL_SECONDS = 3600;
// Cognito's own list of special characters; a space inside the password also counts.
const SYMBOLS = /[\^$*.[\]{}()?"!@#%&/\\,><':;|_~`=+\- ]/;
const PASSWORD_SHAPE = /^\S(.*\S)?$/s;
const EMAIL = /^[^\s@]+@[^\s@]+$/;
const SCRYPT = { N: 16384, r: 8, p: 1, keyLength: 32 };
const scryptAsync = promisify(scrypt) as (pw: string, salt: Buffer, len: number, opts: object) => Promise<Buffer>;

const incorrect = () => new AwsJsonError('NotAuthorizedException', 'Incorrect username or password.');
const codeMismatch = () => new AwsJsonError('CodeMismatchException', 'Invalid code received for user');
const invalidSession = () =>
  new AwsJsonError('NotAuthorizedException', 'Invalid session for the user, session is expired.');
const attemptsExceeded = () => new AwsJsonError('NotAuthorizedException', 'Password attempts exceeded');

export async function startCognitoStandIn(options: CognitoStandInOptions): Promise<AwsJsonServer> {
  if (!/^[\w-]+_[0-9a-zA-Z]+$/.test(options.userPoolId)) throw new Error(`invalid user pool id ${options.userPoolId}`);
  const { userPoolId, clientId } = options;
  const clientFlows = new Set(options.clientAuthFlows ?? DEFAULT_CLIENT_AUTH_FLOWS);
  const poolMfa = options.mfa ?? 'OPTIONAL';
  const challengeTtlMs = options.authSessionValidityMs ?? 3 * 60_000;
  const policy = options.passwordPolicy ?? DEFAULT_PASSWORD_POLICY;
  const now = options.now ?? Date.now;
  /** How far ahead TOTP codes are checked (TOTP_CLOCK_CONTROL). */
  let totpClockOffsetMs = 0;
  const file = join(options.dataDir, `cognito-${userPoolId}.json`);
  const state = loadJsonState<State>(file, () => ({
    version: 1,
    signingKey: randomBytes(32).toString('base64'),
    users: {},
  }));
  const save = (): void => saveJsonState(file, state);
  const signingKey = Buffer.from(state.signingKey, 'base64');
  // Challenge sessions are short-lived and, like Cognito's, do not need to survive a restart.
  const sessions = new Map<string, ChallengeSession>();
  // Keyed like `state.users`, and only for users that exist: bounded by the pool's size.
  const lockouts = new Map<string, Lockout>();
  let issuer = '';

  function checkPool(input: AwsJsonInput): void {
    if (requireString(input, 'UserPoolId') !== userPoolId) {
      throw new AwsJsonError('ResourceNotFoundException', `User pool ${String(input.UserPoolId)} does not exist.`);
    }
  }

  function checkClient(input: AwsJsonInput): void {
    if (requireString(input, 'ClientId') !== clientId) {
      throw new AwsJsonError('ResourceNotFoundException', `User pool client ${String(input.ClientId)} does not exist.`);
    }
  }

  /** By email (any case) or by the sub, which Cognito reports as the username. */
  function lookup(username: string): [string, StoredUser] | undefined {
    const key = username.toLowerCase();
    if (state.users[key]) return [key, state.users[key]];
    return Object.entries(state.users).find(([, u]) => u.sub === username);
  }

  function requireUser(input: AwsJsonInput): [string, StoredUser] {
    const found = lookup(requireString(input, 'Username'));
    if (!found) throw new AwsJsonError('UserNotFoundException', 'User does not exist.');
    return found;
  }

  const userView = (u: StoredUser) => ({
    Username: u.sub,
    Enabled: true,
    UserStatus: u.status,
    UserCreateDate: epochSeconds(u.created),
    UserLastModifiedDate: epochSeconds(u.lastModified),
  });
  const attributeList = (u: StoredUser) => Object.entries(u.attributes).map(([Name, Value]) => ({ Name, Value }));

  function tokens(u: StoredUser) {
    const iat = Math.floor(now() / 1000);
    const common = { sub: u.sub, iss: issuer, iat, auth_time: iat, exp: iat + TOKEN_TTL_SECONDS, jti: randomUUID() };
    return {
      IdToken: sign(signingKey, {
        ...common,
        token_use: 'id',
        aud: clientId,
        'cognito:username': u.sub,
        email: u.attributes.email,
        email_verified: u.attributes.email_verified === 'true',
      }),
      AccessToken: sign(signingKey, {
        ...common,
        token_use: 'access',
        client_id: clientId,
        username: u.sub,
        scope: 'aws.cognito.signin.user.admin',
      }),
      RefreshToken: randomBytes(48).toString('base64url'),
      ExpiresIn: TOKEN_TTL_SECONDS,
      TokenType: 'Bearer',
    };
  }

  /** USERNAME and PASSWORD checked under the lockout; tokens, or the new-password challenge. */
  async function passwordAuth(input: AwsJsonInput) {
    const params = (input.AuthParameters ?? {}) as Record<string, unknown>;
    if (typeof params.USERNAME !== 'string' || typeof params.PASSWORD !== 'string') {
      throw new AwsJsonError('InvalidParameterException', 'Missing required parameter USERNAME or PASSWORD');
    }
    const found = lookup(params.USERNAME);
    const lockout = found && currentLockout(found[0]);
    if (lockout && lockout.lockedUntil > now()) {
      lockout.lastAttempt = now();
      throw attemptsExceeded();
    }
    // Hash even for an unknown user so response time does not reveal which emails exist.
    const ok = await verifyPassword(params.PASSWORD, found?.[1].passwordHash);
    if (!found || !ok) {
      if (found) recordFailure(found[0]);
      throw incorrect();
    }
    const [key, user] = found;
    lockouts.delete(key);
    if (user.status === 'FORCE_CHANGE_PASSWORD') {
      const { sub: _sub, email_verified: _verified, ...visible } = user.attributes;
      return {
        ChallengeName: 'NEW_PASSWORD_REQUIRED',
        Session: openSession(key, 'NEW_PASSWORD_REQUIRED'),
        ChallengeParameters: {
          USER_ID_FOR_SRP: user.sub,
          requiredAttributes: '[]',
          userAttributes: JSON.stringify(visible),
        },
      };
    }
    return afterPassword(key, user);
  }

  function openSession(key: string, challenge: ChallengeSession['challenge'], verified?: boolean): string {
    const session = randomBytes(48).toString('base64url');
    sessions.set(session, { key, expires: now() + challengeTtlMs, challenge, ...(verified ? { verified } : {}) });
    return session;
  }

  /** A live session of this challenge, or Cognito's refusal. */
  function liveSession(id: string, challenge: ChallengeSession['challenge']): ChallengeSession {
    const session = sessions.get(id);
    if (!session || session.expires <= now() || session.challenge !== challenge) throw invalidSession();
    return session;
  }

  /** The password is settled: the second factor's challenge, or the tokens. */
  function afterPassword(key: string, user: StoredUser) {
    const sub = user.sub;
    if (poolMfa !== 'OFF' && user.totp?.enabled && user.totp.secret) {
      return {
        ChallengeName: 'SOFTWARE_TOKEN_MFA',
        Session: openSession(key, 'SOFTWARE_TOKEN_MFA'),
        ChallengeParameters: { USER_ID_FOR_SRP: sub },
      };
    }
    if (poolMfa === 'ON') {
      return {
        ChallengeName: 'MFA_SETUP',
        Session: openSession(key, 'MFA_SETUP'),
        ChallengeParameters: { MFAS_CAN_SETUP: '["SOFTWARE_TOKEN_MFA"]', USER_ID_FOR_SRP: sub },
      };
    }
    return { AuthenticationResult: tokens(user), ChallengeParameters: {} };
  }

  /**
   * Checks a code of the user's secret (or of the pending one, which no code has been used
   * from), consuming it: a code is refused for the rest of its window once it has been used.
   */
  function useCode(user: StoredUser, code: string, of: 'secret' | 'pending'): boolean {
    const token = user.totp;
    const secret = token?.[of];
    if (!token || !secret) return false;
    const step = matchTotp(secret, code, now() + totpClockOffsetMs, of === 'secret' ? token.lastUsedStep : -1);
    if (step === undefined) return false;
    if (of === 'pending') {
      token.secret = secret;
      delete token.pending;
    }
    token.lastUsedStep = step;
    user.lastModified = now();
    save();
    return true;
  }

  /** The user an AssociateSoftwareToken or VerifySoftwareToken call is for: by access token, or by MFA_SETUP session. */
  function tokenOrSessionUser(input: AwsJsonInput): { key: string; user: StoredUser; session?: ChallengeSession } {
    if (input.AccessToken !== undefined) {
      const [key, user] = tokenUser(input);
      return { key, user };
    }
    const session = liveSession(requireString(input, 'Session'), 'MFA_SETUP');
    const user = state.users[session.key];
    if (!user) throw new AwsJsonError('UserNotFoundException', 'User does not exist.');
    return { key: session.key, user, session };
  }

  /** SoftwareTokenMfaSettings applied; SMS and e-mail MFA are not configured in this pool. */
  function setMfaPreference(user: StoredUser, input: AwsJsonInput): void {
    for (const other of ['SMSMfaSettings', 'EmailMfaSettings', 'WebAuthnMfaSettings']) {
      const settings = input[other] as { Enabled?: unknown } | undefined;
      if (settings?.Enabled === true)
        throw new AwsJsonError(
          'InvalidParameterException',
          `${other.replace('Settings', '')} is not enabled for this user pool.`,
        );
    }
    const settings = input.SoftwareTokenMfaSettings as { Enabled?: unknown; PreferredMfa?: unknown } | undefined;
    if (settings === undefined) return;
    if (typeof settings !== 'object' || settings === null)
      throw new AwsJsonError('InvalidParameterException', 'SoftwareTokenMfaSettings must be an object.');
    if (settings.Enabled === true || settings.PreferredMfa === true) {
      if (poolMfa === 'OFF')
        throw new AwsJsonError('InvalidParameterException', 'MFA is not enabled for this user pool.');
      if (!user.totp?.secret)
        throw new AwsJsonError('InvalidParameterException', 'User has not verified software token mfa');
      user.totp.enabled = true;
    } else if (settings.Enabled === false && user.totp) {
      user.totp.enabled = false;
    }
    user.lastModified = now();
    save();
  }

  const mfaView = (u: StoredUser) =>
    u.totp?.enabled && u.totp.secret
      ? { UserMFASettingList: ['SOFTWARE_TOKEN_MFA'], PreferredMfaSetting: 'SOFTWARE_TOKEN_MFA' }
      : {};

  /** RespondToAuthChallenge and its admin twin. */
  async function respond(input: AwsJsonInput) {
    const challenge = requireString(input, 'ChallengeName');
    if (challenge !== 'NEW_PASSWORD_REQUIRED' && challenge !== 'SOFTWARE_TOKEN_MFA' && challenge !== 'MFA_SETUP') {
      throw new AwsJsonError(
        'InvalidParameterException',
        'Only NEW_PASSWORD_REQUIRED, SOFTWARE_TOKEN_MFA and MFA_SETUP are supported by the local stand-in.',
      );
    }
    const sessionId = requireString(input, 'Session');
    const session = liveSession(sessionId, challenge);
    const responses = (input.ChallengeResponses ?? {}) as Record<string, unknown>;
    if (typeof responses.USERNAME !== 'string')
      throw new AwsJsonError('InvalidParameterException', 'Missing required parameter USERNAME');
    // A session answers only for the user it was issued to.
    if (lookup(responses.USERNAME)?.[0] !== session.key)
      throw new AwsJsonError('NotAuthorizedException', 'Invalid session for the user.');
    const user = state.users[session.key] as StoredUser;
    switch (challenge) {
      case 'NEW_PASSWORD_REQUIRED':
        if (typeof responses.NEW_PASSWORD !== 'string')
          throw new AwsJsonError('InvalidParameterException', 'Missing required parameter NEW_PASSWORD');
        await setPassword(session.key, responses.NEW_PASSWORD, true);
        break;
      case 'SOFTWARE_TOKEN_MFA':
        if (typeof responses.SOFTWARE_TOKEN_MFA_CODE !== 'string')
          throw new AwsJsonError('InvalidParameterException', 'Missing required parameter SOFTWARE_TOKEN_MFA_CODE');
        if (!useCode(user, responses.SOFTWARE_TOKEN_MFA_CODE, 'secret')) throw codeMismatch();
        sessions.delete(sessionId);
        return { AuthenticationResult: tokens(user), ChallengeParameters: {} };
      case 'MFA_SETUP':
        if (!session.verified)
          throw new AwsJsonError(
            'InvalidParameterException',
            'Software token MFA has not been verified for this session.',
          );
        sessions.delete(sessionId);
        return { AuthenticationResult: tokens(user), ChallengeParameters: {} };
    }
    sessions.delete(sessionId);
    return afterPassword(session.key, user);
  }

  /** The user's lockout, forgotten after a quiet spell. */
  function currentLockout(key: string): Lockout | undefined {
    const lockout = lockouts.get(key);
    if (lockout && lockout.lastAttempt <= now() - LOCKOUT.quietMs) {
      lockouts.delete(key);
      return undefined;
    }
    return lockout;
  }

  function recordFailure(key: string): void {
    const lockout = currentLockout(key) ?? { failures: 0, lockedUntil: 0, lastAttempt: 0 };
    lockout.failures++;
    lockout.lastAttempt = now();
    if (lockout.failures >= LOCKOUT.freeFailures) {
      const lockMs = LOCKOUT.firstLockMs * 2 ** (lockout.failures - LOCKOUT.freeFailures);
      lockout.lockedUntil = now() + Math.min(LOCKOUT.maxLockMs, lockMs);
    }
    lockouts.set(key, lockout);
  }

  async function setPassword(key: string, password: string, permanent: boolean): Promise<void> {
    checkPassword(password, policy);
    const hash = await hashPassword(password);
    const user = state.users[key];
    if (!user) throw new AwsJsonError('UserNotFoundException', 'User does not exist.');
    user.passwordHash = hash;
    user.status = permanent ? 'CONFIRMED' : 'FORCE_CHANGE_PASSWORD';
    user.lastModified = now();
    save();
  }

  /** The user an access token names, or Cognito's refusal. */
  function tokenUser(input: AwsJsonInput): [string, StoredUser] {
    const claims = verify(signingKey, requireString(input, 'AccessToken', 'NotAuthorizedException'));
    if (!claims || claims.token_use !== 'access')
      throw new AwsJsonError('NotAuthorizedException', 'Invalid Access Token');
    if (typeof claims.exp !== 'number' || claims.exp * 1000 <= now())
      throw new AwsJsonError('NotAuthorizedException', 'Access Token has expired');
    const found = lookup(String(claims.sub));
    if (!found) throw new AwsJsonError('UserNotFoundException', 'User does not exist.');
    return found;
  }

  const operations = {
    async AdminCreateUser(input: AwsJsonInput) {
      checkPool(input);
      const username = requireString(input, 'Username');
      if (!EMAIL.test(username)) throw new AwsJsonError('InvalidParameterException', 'Username should be an email.');
      const action = optionalString(input, 'MessageAction');
      if (action !== undefined && action !== 'SUPPRESS') {
        throw new AwsJsonError(
          'InvalidParameterException',
          'The local stand-in sends no messages: use MessageAction SUPPRESS.',
        );
      }
      const attributes = readAttributes(input.UserAttributes, username);
      const key = username.toLowerCase();
      const exists = () => {
        if (state.users[key])
          throw new AwsJsonError('UsernameExistsException', 'An account with the given email already exists.');
      };
      exists();
      const temporary = optionalString(input, 'TemporaryPassword') ?? generatePassword();
      checkPassword(temporary, policy);
      const passwordHash = await hashPassword(temporary);
      exists(); // again: another request may have created the user while this one was hashing
      const sub = randomUUID();
      const user: StoredUser = {
        sub,
        attributes: { sub, ...attributes },
        passwordHash,
        status: 'FORCE_CHANGE_PASSWORD',
        created: now(),
        lastModified: now(),
      };
      state.users[key] = user;
      save();
      return { User: { ...userView(user), Attributes: attributeList(user) } };
    },

    async AdminSetUserPassword(input: AwsJsonInput) {
      checkPool(input);
      const [key] = requireUser(input);
      await setPassword(key, requireString(input, 'Password'), input.Permanent === true);
      return {};
    },

    AdminGetUser(input: AwsJsonInput) {
      checkPool(input);
      const [, user] = requireUser(input);
      return { ...userView(user), UserAttributes: attributeList(user), ...mfaView(user) };
    },

    InitiateAuth(input: AwsJsonInput) {
      checkClient(input);
      const flow = requireString(input, 'AuthFlow');
      const allowedBy = CLIENT_FLOWS[flow];
      if (allowedBy === undefined)
        throw new AwsJsonError('InvalidParameterException', 'Initiate Auth method not supported.');
      if (!clientFlows.has(allowedBy))
        throw new AwsJsonError('InvalidParameterException', `${flow} flow not enabled for this client`);
      if (flow !== 'USER_PASSWORD_AUTH')
        throw new AwsJsonError('InvalidParameterException', `${flow} is not supported by the local stand-in.`);
      return passwordAuth(input);
    },

    AdminInitiateAuth(input: AwsJsonInput) {
      checkPool(input);
      checkClient(input);
      const flow = requireString(input, 'AuthFlow');
      if (!ADMIN_PASSWORD_FLOWS.has(flow)) {
        if (flow in CLIENT_FLOWS)
          throw new AwsJsonError('InvalidParameterException', `${flow} is not supported by the local stand-in.`);
        throw new AwsJsonError('InvalidParameterException', 'Initiate Auth method not supported.');
      }
      if (!clientFlows.has('ALLOW_ADMIN_USER_PASSWORD_AUTH'))
        throw new AwsJsonError('InvalidParameterException', 'Auth flow not enabled for this client');
      return passwordAuth(input);
    },

    RespondToAuthChallenge(input: AwsJsonInput) {
      checkClient(input);
      return respond(input);
    },

    AdminRespondToAuthChallenge(input: AwsJsonInput) {
      checkPool(input);
      checkClient(input);
      return respond(input);
    },

    /** A new secret for the user, pending until a code of it is verified; by access token or MFA_SETUP session. */
    AssociateSoftwareToken(input: AwsJsonInput) {
      const { key, user } = tokenOrSessionUser(input);
      if (input.AccessToken === undefined) sessions.delete(requireString(input, 'Session'));
      const secret = newTotpSecret();
      (user.totp ??= { enabled: false, lastUsedStep: -1 }).pending = secret;
      save();
      return {
        SecretCode: secret,
        ...(input.AccessToken === undefined ? { Session: openSession(key, 'MFA_SETUP') } : {}),
      };
    },

    /** A code of the pending secret makes it the user's; in an MFA_SETUP session it is also switched on. */
    VerifySoftwareToken(input: AwsJsonInput) {
      const { key, user, session } = tokenOrSessionUser(input);
      if (!user.totp?.pending)
        throw new AwsJsonError('InvalidParameterException', 'User has not associated a software token.');
      if (!useCode(user, requireString(input, 'UserCode'), 'pending'))
        throw new AwsJsonError('EnableSoftwareTokenMFAException', 'Code mismatch and fail enable Software Token MFA');
      if (session) {
        sessions.delete(requireString(input, 'Session'));
        (user.totp as SoftwareToken).enabled = true;
        save();
      }
      return { Status: 'SUCCESS', ...(session ? { Session: openSession(key, 'MFA_SETUP', true) } : {}) };
    },

    SetUserMFAPreference(input: AwsJsonInput) {
      const [, user] = tokenUser(input);
      setMfaPreference(user, input);
      return {};
    },

    AdminSetUserMFAPreference(input: AwsJsonInput) {
      checkPool(input);
      const [, user] = requireUser(input);
      setMfaPreference(user, input);
      return {};
    },

    GetUser(input: AwsJsonInput) {
      const [, user] = tokenUser(input);
      return { Username: user.sub, UserAttributes: attributeList(user), ...mfaView(user) };
    },

    /** The signed-in user's own change: the access token, the password it has now, the new one. */
    async ChangePassword(input: AwsJsonInput) {
      const [key, user] = tokenUser(input);
      const previous = requireString(input, 'PreviousPassword');
      const proposed = requireString(input, 'ProposedPassword');
      if (!(await verifyPassword(previous, user.passwordHash))) throw incorrect();
      await setPassword(key, proposed, true);
      return {};
    },
  };

  const server = await startAwsJsonServer({
    targetPrefix: 'AWSCognitoIdentityProviderService',
    operations,
    port: options.port,
    controls: {
      [TOTP_CLOCK_CONTROL]: (query) => {
        const steps = Number(query.get('advanceSteps') ?? '0');
        if (!Number.isInteger(steps) || steps < 0 || steps > 10) throw new Error('advanceSteps must be 0 to 10');
        totpClockOffsetMs += steps * TOTP_STEP_SECONDS * 1000;
        return { offsetMs: totpClockOffsetMs };
      },
    },
  });
  issuer = `${server.url}/${userPoolId}`;
  return server;
}

function readAttributes(raw: unknown, username: string): Record<string, string> {
  const list = raw ?? [];
  if (!Array.isArray(list)) throw new AwsJsonError('InvalidParameterException', 'UserAttributes must be a list.');
  const attributes: Record<string, string> = {};
  for (const a of list as { Name?: unknown; Value?: unknown }[]) {
    if (typeof a?.Name !== 'string' || typeof (a.Value ?? '') !== 'string') {
      throw new AwsJsonError('InvalidParameterException', 'Each user attribute needs a Name and a string Value.');
    }
    if (a.Name === 'sub') throw new AwsJsonError('InvalidParameterException', 'Cannot modify an already provided sub');
    attributes[a.Name] = (a.Value as string | undefined) ?? '';
  }
  if (attributes.email !== undefined && attributes.email.toLowerCase() !== username.toLowerCase()) {
    throw new AwsJsonError('InvalidParameterException', 'The email attribute must match the username.');
  }
  attributes.email = username;
  return attributes;
}

export function checkPassword(password: string, policy: PasswordPolicy): void {
  if (password.length > 256 || !PASSWORD_SHAPE.test(password)) {
    throw new AwsJsonError(
      'InvalidParameterException',
      "Value at 'password' failed to satisfy constraint: Member must satisfy regular expression pattern: ^[\\S]+.*[\\S]+$",
    );
  }
  const fail = (rule: string) =>
    new AwsJsonError('InvalidPasswordException', `Password did not conform with policy: ${rule}`);
  if (password.length < policy.minimumLength) throw fail('Password not long enough');
  if (policy.requireLowercase && !/[a-z]/.test(password)) throw fail('Password must have lowercase characters');
  if (policy.requireUppercase && !/[A-Z]/.test(password)) throw fail('Password must have uppercase characters');
  if (policy.requireNumbers && !/[0-9]/.test(password)) throw fail('Password must have numeric characters');
  if (policy.requireSymbols && !SYMBOLS.test(password)) throw fail('Password must have symbol characters');
}

/** Satisfies any policy up to 64 characters; nobody learns it when messages are suppressed. */
function generatePassword(): string {
  const pick = (set: string) => set[randomInt(set.length)];
  return `${randomBytes(48).toString('base64url')}${pick('ABCDEFGHJKLMNPQRSTUVWXYZ')}${pick('abcdefghijkmnpqrstuvwxyz')}${pick('23456789')}${pick('!#%+=')}`;
}

async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const { N, r, p, keyLength } = SCRYPT;
  const hash = await scryptAsync(password, salt, keyLength, { N, r, p });
  return ['scrypt', N, r, p, salt.toString('base64'), hash.toString('base64')].join('$');
}

async function verifyPassword(password: string, stored: string | undefined): Promise<boolean> {
  const [scheme, N, r, p, salt, hash] = (stored ?? '').split('$');
  if (scheme !== 'scrypt' || !salt || !hash) {
    await hashPassword(password);
    return false;
  }
  const expected = Buffer.from(hash, 'base64');
  const actual = await scryptAsync(password, Buffer.from(salt, 'base64'), expected.length, {
    N: Number(N),
    r: Number(r),
    p: Number(p),
  });
  return timingSafeEqual(actual, expected);
}

function sign(key: Buffer, claims: Record<string, unknown>): string {
  const header = Buffer.from(JSON.stringify({ alg: 'HS256', typ: 'JWT', kid: 'local' })).toString('base64url');
  const body = `${header}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}`;
  return `${body}.${createHmac('sha256', key).update(body).digest('base64url')}`;
}

function verify(key: Buffer, token: string): Record<string, unknown> | undefined {
  const parts = token.split('.');
  if (parts.length !== 3) return undefined;
  const expected = createHmac('sha256', key).update(`${parts[0]}.${parts[1]}`).digest();
  const actual = Buffer.from(parts[2] as string, 'base64url');
  if (actual.length !== expected.length || !timingSafeEqual(actual, expected)) return undefined;
  try {
    return JSON.parse(Buffer.from(parts[1] as string, 'base64url').toString('utf8')) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}
