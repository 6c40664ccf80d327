/** Field rules for dashboard accounts, shared by provisioning and sign-in. */
export const EMAIL = {
  type: 'string',
  minLength: 3,
  maxLength: 254,
  pattern: '^[^@\\s]+@[^@\\s]+\\.[^@\\s]+$',
} as const;
