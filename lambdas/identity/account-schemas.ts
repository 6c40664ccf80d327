/** Field rules for dashboard accounts, shared by provisioning and sign-in. */
export const EMAIL = {
  type: 'string',
  minLength: 3,
  maxLength: 254,
  pattern: '^[^@\\s]+@[^@\\s]+\\.[^@\\s]+$',
} as const;

/** An authenticator app's current code (RFC 6238: six digits, every 30 seconds). */
export const TOTP_CODE = {
  type: 'string',
  pattern: '^[0-9]{6}$',
  description: "The authenticator app's current six-digit code",
} as const;

const PASSWORD = { type: 'string', minLength: 1, maxLength: 256 } as const;

/** Request bodies of provisioning and sign-in, compiled by their handlers and documented as they are. */
export const CREATE_ACCOUNT_BODY = {
  type: 'object',
  properties: {
    email: EMAIL,
    name: { type: 'string', minLength: 1, maxLength: 100 },
  },
  required: ['email', 'name'],
  additionalProperties: false,
} as const;

export const LOGIN_BODY = {
  type: 'object',
  properties: {
    email: EMAIL,
    password: PASSWORD,
    totpCode: {
      ...TOTP_CODE,
      nullable: true,
      description:
        "The authenticator app's current code: required once the account has MFA (`MFA_REQUIRED`), and to " +
        'finish an authenticator set-up a sign-in began (202)',
    },
    newPassword: {
      type: 'string',
      nullable: true,
      minLength: 1,
      maxLength: 256,
      description:
        "Replaces `password` (the user's own change, which ends the other sessions); required with the " +
        'temporary password an administrator set (`PASSWORD_CHANGE_REQUIRED`)',
    },
  },
  required: ['email', 'password'],
  additionalProperties: false,
} as const;

/** `POST /api/v1/auth/password`: a signed-in user's own change of password. */
export const CHANGE_PASSWORD_BODY = {
  type: 'object',
  properties: {
    currentPassword: PASSWORD,
    newPassword: PASSWORD,
    totpCode: {
      ...TOTP_CODE,
      nullable: true,
      description: "The authenticator app's current code, once the account has MFA",
    },
  },
  required: ['currentPassword', 'newPassword'],
  additionalProperties: false,
} as const;

/**
 * `POST /api/v1/auth/mfa`: with `currentPassword` (and `totpCode` where an authenticator is on,
 * to replace it) a set-up begins; with `totpCode` alone, a code of the new secret confirms it.
 */
export const MFA_SETUP_BODY = {
  type: 'object',
  properties: {
    currentPassword: { ...PASSWORD, nullable: true, description: 'Begins a set-up' },
    totpCode: {
      ...TOTP_CODE,
      nullable: true,
      description:
        'Alone: a code of the secret the set-up gave, which confirms it. Beside `currentPassword`: ' +
        'the present authenticator’s code, to replace it',
    },
  },
  additionalProperties: false,
} as const;

/** `DELETE /api/v1/auth/mfa`: the password and a code of the authenticator turn it off. */
export const MFA_DISABLE_BODY = {
  type: 'object',
  properties: { currentPassword: PASSWORD, totpCode: TOTP_CODE },
  required: ['currentPassword', 'totpCode'],
  additionalProperties: false,
} as const;
