import { gunzipSync, gzipSync } from 'node:zlib';
import { dynamo, fromItem, tableName, toItem } from './dynamo.js';
import type { DynamoDb } from './dynamodb-client.js';

/**
 * Requests' content (prompts and answers) for keys that opted in (docs/interface.md §4.8.1):
 * one item per request in the jobs table, `ACCOUNT#<account>#REQUEST#<request id>` / `CONTENT`,
 * under the tables' one customer-managed key like the ledger, gone after the key's retention
 * (TTL `expiresAt`). Its own partition per request, so no account's traffic piles onto one
 * item, and under the account's leading key, so the caller reads it under its tenant session.
 * The content is gzipped JSON; what does not fit an item even so is cut from the oldest
 * messages first and marked `truncated`. Never in the usage table: that one is exported to S3
 * for finance, and the content has no business there.
 */

export interface RequestContent {
  readonly requestId: string;
  readonly at: string;
  readonly keyId?: string;
  readonly route: string;
  /** The messages as they went upstream (after guardrails: redacted PII stays redacted). */
  readonly messages: readonly unknown[];
  /** The answer as the caller received it: its message, or the text a stream delivered. */
  readonly answer: unknown;
  /** True when messages were dropped (oldest first) to fit an item. */
  readonly truncated: boolean;
}

/** Gzipped bytes an item may hold: DynamoDB's 400 KB less the keys and attributes beside it. */
export const MAX_CONTENT_BYTES = 380_000;

const contentKey = (accountId: string, requestId: string) =>
  toItem({ pk: `ACCOUNT#${accountId}#REQUEST#${requestId}`, sk: 'CONTENT' });

/** The content gzipped within MAX_CONTENT_BYTES, dropping the oldest messages while it is not. */
export function encodeContent(content: RequestContent): Buffer | undefined {
  let messages = [...content.messages];
  for (;;) {
    const truncated = content.truncated || messages.length < content.messages.length;
    const body = gzipSync(JSON.stringify({ ...content, messages, truncated }));
    if (body.length <= MAX_CONTENT_BYTES) return body;
    if (messages.length === 0) return undefined;
    // Halving what is dropped keeps this to a few rounds however many messages there are.
    messages = messages.slice(Math.max(1, Math.floor(messages.length / 2)));
  }
}

/**
 * Keeps a request's content for `retentionDays`. False when even its answer alone does not fit
 * an item (nothing is kept then).
 */
export async function putRequestContent(
  accountId: string,
  content: RequestContent,
  retentionDays: number,
  now = Date.now(),
): Promise<boolean> {
  const body = encodeContent(content);
  if (!body) return false;
  await dynamo().putItem({
    TableName: tableName('jobs'),
    Item: {
      ...contentKey(accountId, content.requestId),
      ...toItem({ at: content.at, expiresAt: Math.floor(now / 1000) + retentionDays * 86_400, body }),
    },
  });
  return true;
}

/** A request's content, read with the caller's own tenant client; undefined when none is kept. */
export async function getRequestContent(
  db: Pick<DynamoDb, 'getItem'>,
  accountId: string,
  requestId: string,
  now = Date.now(),
): Promise<RequestContent | undefined> {
  const { Item } = await db.getItem({ TableName: tableName('jobs'), Key: contentKey(accountId, requestId) });
  if (!Item) return undefined;
  const { expiresAt, body } = fromItem<{ expiresAt?: number; body?: Uint8Array }>(Item);
  // TTL deletes within days of expiry, not at it: an expired item is not answered.
  if (!body || (expiresAt !== undefined && expiresAt * 1000 <= now)) return undefined;
  return JSON.parse(gunzipSync(body).toString('utf8')) as RequestContent;
}
