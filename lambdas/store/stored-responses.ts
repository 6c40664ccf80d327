import { gunzipSync, gzipSync } from 'node:zlib';
import { conditionHolds, dynamo, fromItem, nowSeconds, tableName, toItem } from './dynamo.js';
import type { DynamoDb } from './dynamodb-client.js';
import { accountPk } from './usage-items.js';

/**
 * Stored Responses (jobs table): what `POST /api/v1/responses` keeps with `store` true, so that
 * `GET`/`DELETE /api/v1/responses/{id}` find it and a later request continues from it with
 * `previous_response_id`. One item per response, `ACCOUNT#<accountId>#RESPONSE#<id>` / `RESPONSE`,
 * kept 30 days (TTL, and checked on read). The key leads with the account, so a caller's reads
 * run under its tenant session (lib/tenant-access-policy.ts): another account's response is out
 * of IAM's reach, not only refused by a check. The body is opaque here (the responses feature's
 * record), stored as JSON, gzipped when large; a body too large for an item even so is not kept.
 */

export const STORED_RESPONSE_TTL_SECONDS = 30 * 86_400;

/** An item holds 400 KB; this leaves room for the keys and attributes beside the body. */
export const MAX_STORED_RESPONSE_BYTES = 380 * 1024;
const GZIP_ABOVE_BYTES = 16 * 1024;

export interface StoredResponseRef {
  readonly accountId: string;
  readonly responseId: string;
}

/** A body as its item keeps it: JSON, gzipped when large. */
export type EncodedResponse = { readonly json: string } | { readonly gzip: Buffer };

const key = (ref: StoredResponseRef) =>
  toItem({ pk: `${accountPk(ref.accountId)}#RESPONSE#${ref.responseId}`, sk: 'RESPONSE' });

/** The body encoded for its item; undefined when even gzipped it is too large to keep. */
export function encodeStoredResponse(body: unknown): EncodedResponse | undefined {
  const json = Buffer.from(JSON.stringify(body));
  if (json.length <= GZIP_ABOVE_BYTES) return { json: json.toString() };
  const gzip = gzipSync(json);
  return gzip.length > MAX_STORED_RESPONSE_BYTES ? undefined : { gzip };
}

/** Keeps a new response; its id is fresh, so an existing item means a defect and is not replaced. */
export async function putStoredResponse(
  ref: StoredResponseRef,
  body: EncodedResponse,
  now = Date.now(),
): Promise<void> {
  await dynamo().putItem({
    TableName: tableName('jobs'),
    Item: {
      ...key(ref),
      ...toItem({ type: 'response', accountId: ref.accountId, ...body, expiresAt: expiresAt(now) }),
    },
    ConditionExpression: 'attribute_not_exists(pk)',
  });
}

/**
 * The account's stored response, or undefined for an unknown, expired or deleted id. `db` is
 * the account's tenant-session client (the callers' reads); another account's item is named by
 * a key the session may not read, and by a key this account's id never produces.
 */
export async function getStoredResponse(ref: StoredResponseRef, db: DynamoDb, now = Date.now()): Promise<unknown> {
  const { Item } = await db.getItem({ TableName: tableName('jobs'), Key: key(ref), ConsistentRead: true });
  if (!Item) return undefined;
  const stored = fromItem<{ accountId?: string; json?: string; gzip?: Uint8Array; expiresAt?: number }>(Item);
  if (stored.accountId !== ref.accountId || (stored.expiresAt ?? 0) <= nowSeconds(now)) return undefined;
  return JSON.parse(stored.gzip ? gunzipSync(stored.gzip).toString() : (stored.json ?? 'null'));
}

/** Deletes the account's stored response: false when there was none (or it had expired). */
export async function deleteStoredResponse(ref: StoredResponseRef, now = Date.now()): Promise<boolean> {
  return conditionHolds(() =>
    dynamo().deleteItem({
      TableName: tableName('jobs'),
      Key: key(ref),
      ConditionExpression: 'attribute_exists(pk) AND expiresAt > :now',
      ExpressionAttributeValues: toItem({ ':now': nowSeconds(now) }),
    }),
  );
}

const expiresAt = (now: number) => nowSeconds(now) + STORED_RESPONSE_TTL_SECONDS;
