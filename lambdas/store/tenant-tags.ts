/**
 * The names the tenant boundary in IAM is built from, shared by the functions that tag and the
 * stack whose policies match the tags (lib/constructs/tenant-access-role.ts).
 */

/** The session tag a tenant session carries: the account it may read (`aws:PrincipalTag/account`). */
export const TENANT_SESSION_TAG = 'account';

/**
 * The tag every provider-key secret carries from its creation: the account it belongs to
 * (`secretsmanager:ResourceTag/gateway:account`). The tenant session reads a secret only when
 * this tag equals its own session tag.
 */
export const SECRET_ACCOUNT_TAG = 'gateway:account';
