import { dynamo, fromItem, nowSeconds, tableName, toItem } from './dynamo.js';

/**
 * Authenticator set-ups begun and not yet confirmed, one per account, in the cache table:
 * `pk = MFASETUP#<account id>`, `sk = PENDING`, TTL `expiresAt`. What the confirmation needs is
 * kept here, never sent to the caller: the user's Cognito access token (a signed-in set-up) or
 * the MFA_SETUP challenge's session (a set-up at sign-in). Short-lived (checked on read too:
 * TTL deletion is late), and a new set-up replaces the one before.
 */

/** Whose set-up it is to Cognito: the access token, or the challenge session. */
export type MfaSetupAuthority = { readonly accessToken: string } | { readonly session: string };

export interface PendingMfaSetup {
  readonly authority: MfaSetupAuthority;
  /** Epoch seconds; also the TTL attribute. */
  readonly expiresAt: number;
}

const itemKey = (accountId: string) => toItem({ pk: `MFASETUP#${accountId}`, sk: 'PENDING' });

export async function putPendingMfaSetup(
  accountId: string,
  authority: MfaSetupAuthority,
  expiresAtMs: number,
): Promise<void> {
  await dynamo().putItem({
    TableName: tableName('cache'),
    Item: { ...itemKey(accountId), ...toItem({ authority, expiresAt: nowSeconds(expiresAtMs) }) },
  });
}

export async function getPendingMfaSetup(accountId: string, now = Date.now()): Promise<PendingMfaSetup | undefined> {
  const { Item } = await dynamo().getItem({
    TableName: tableName('cache'),
    Key: itemKey(accountId),
    ConsistentRead: true,
  });
  if (!Item) return undefined;
  const pending = fromItem<PendingMfaSetup>(Item);
  return pending.expiresAt > nowSeconds(now) ? pending : undefined;
}

export async function deletePendingMfaSetup(accountId: string): Promise<void> {
  await dynamo().deleteItem({ TableName: tableName('cache'), Key: itemKey(accountId) });
}
