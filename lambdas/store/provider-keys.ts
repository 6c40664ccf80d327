import type { ProviderId } from '../catalog/model-catalog.js';
import { dynamo, fromItem, isConditionFailure, tableName, toItem, type Item } from './dynamo.js';
import { ownedItems } from './owner-index.js';

/**
 * A caller's own provider key, as recorded in the identity table: metadata and where the
 * secret lives. The key itself is only ever in its own Secrets Manager secret.
 */
export interface ProviderKeyRecord {
  readonly id: string;
  readonly accountId: string;
  readonly provider: ProviderId;
  readonly slug: string;
  readonly displayName?: string;
  /** The last four characters, for recognising the key in listings. */
  readonly last4: string;
  readonly secretId: string;
  readonly createdAt: string;
}

const recordKey = (id: string) => toItem({ pk: `PROVIDERKEY#${id}`, sk: 'PROVIDERKEY' });
const slugKey = (accountId: string, slug: string) =>
  toItem({ pk: `PROVIDERKEY_SLUG#${accountId}#${slug}`, sk: 'SLUG' });

export class SlugTakenError extends Error {}

/** Claims the slug for the account first, so two concurrent creates cannot share one. */
export async function claimSlug(accountId: string, slug: string, id: string): Promise<void> {
  try {
    await dynamo().putItem({
      TableName: tableName('identity'),
      Item: { ...slugKey(accountId, slug), ...toItem({ providerKeyId: id }) },
      ConditionExpression: 'attribute_not_exists(pk)',
    });
  } catch (error) {
    if (isConditionFailure(error)) throw new SlugTakenError(slug);
    throw error;
  }
}

export async function releaseSlug(accountId: string, slug: string): Promise<void> {
  await dynamo().deleteItem({ TableName: tableName('identity'), Key: slugKey(accountId, slug) });
}

export async function putProviderKey(record: ProviderKeyRecord): Promise<void> {
  await dynamo().putItem({
    TableName: tableName('identity'),
    Item: {
      ...recordKey(record.id),
      ...toItem({
        ...record,
        ownerPk: `ACCOUNT#${record.accountId}`,
        ownerSk: `PROVIDERKEY#${record.createdAt}#${record.id}`,
      }),
    },
  });
}

export async function getProviderKey(id: string): Promise<ProviderKeyRecord | undefined> {
  const { Item } = await dynamo().getItem({
    TableName: tableName('identity'),
    Key: recordKey(id),
    ConsistentRead: true,
  });
  return Item ? toRecord(Item) : undefined;
}

/** Oldest first. */
export async function listProviderKeys(accountId: string): Promise<ProviderKeyRecord[]> {
  const records: ProviderKeyRecord[] = [];
  for await (const item of ownedItems('identity', accountId, 'PROVIDERKEY#')) records.push(toRecord(item));
  return records;
}

export async function deleteProviderKey(record: ProviderKeyRecord): Promise<void> {
  await dynamo().deleteItem({ TableName: tableName('identity'), Key: recordKey(record.id) });
}

function toRecord(item: Item): ProviderKeyRecord {
  const raw = fromItem<ProviderKeyRecord>(item);
  return {
    id: raw.id,
    accountId: raw.accountId,
    provider: raw.provider,
    slug: raw.slug,
    ...(raw.displayName ? { displayName: raw.displayName } : {}),
    last4: raw.last4,
    secretId: raw.secretId,
    createdAt: raw.createdAt,
  };
}
