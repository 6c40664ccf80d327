/** Field rules for dashboard accounts, shared by provisioning and sign-in. */
export const EMAIL = {
  type: 'string',
  minLength: 3,
  maxLength: 254,
  pattern: '^[^@\\s]+@[^@\\s]+\\.[^@\\s]+$',
} as const;

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
    password: { type: 'string', minLength: 1, maxLength: 256 },
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
    currentPassword: { type: 'string', minLength: 1, maxLength: 256 },
    newPassword: { type: 'string', minLength: 1, maxLength: 256 },
  },
  required: ['currentPassword', 'newPassword'],
  additionalProperties: false,
} as const;
