import { dynamo, fromItem, nowSeconds, tableName, toItem } from './dynamo.js';

/** Descriptions are the caller's data (they reveal the image): stored per account. */
const descriptionKey = (accountId: string, imageHash: string) =>
  toItem({ pk: `IMAGEDESC#${accountId}#${imageHash}`, sk: 'IMAGEDESC' });

export const IMAGE_DESCRIPTION_TTL_SECONDS = 7 * 86_400;

/** A description and what writing it took: image analysis answers a repeat with all of it. */
export interface StoredImageDescription {
  readonly description: string;
  /** The concrete model that wrote it; absent on entries stored before it was kept. */
  readonly model?: string;
  readonly provider?: string;
  readonly promptTokens?: number;
  readonly completionTokens?: number;
}

export async function getImageDescription(
  accountId: string,
  imageHash: string,
  now = Date.now(),
): Promise<StoredImageDescription | undefined> {
  const { Item } = await dynamo().getItem({ TableName: tableName('cache'), Key: descriptionKey(accountId, imageHash) });
  if (!Item) return undefined;
  const { description, model, provider, promptTokens, completionTokens, expiresAt } = fromItem<
    StoredImageDescription & { expiresAt: number }
  >(Item);
  return expiresAt > nowSeconds(now) ? { description, model, provider, promptTokens, completionTokens } : undefined;
}

export async function putImageDescription(
  accountId: string,
  imageHash: string,
  stored: StoredImageDescription,
  now = Date.now(),
): Promise<void> {
  await dynamo().putItem({
    TableName: tableName('cache'),
    Item: {
      ...descriptionKey(accountId, imageHash),
      ...toItem({ ...stored, expiresAt: nowSeconds(now) + IMAGE_DESCRIPTION_TTL_SECONDS }),
    },
  });
}
