import { dynamo, fromItem, nowSeconds, tableName, toItem } from './dynamo.js';

/** Descriptions are the caller's data (they reveal the image): stored per account. */
const descriptionKey = (accountId: string, imageHash: string) =>
  toItem({ pk: `IMAGEDESC#${accountId}#${imageHash}`, sk: 'IMAGEDESC' });

export const IMAGE_DESCRIPTION_TTL_SECONDS = 7 * 86_400;

export async function getImageDescription(
  accountId: string,
  imageHash: string,
  now = Date.now(),
): Promise<string | undefined> {
  const { Item } = await dynamo().getItem({ TableName: tableName('cache'), Key: descriptionKey(accountId, imageHash) });
  if (!Item) return undefined;
  const { description, expiresAt } = fromItem<{ description: string; expiresAt: number }>(Item);
  return expiresAt > nowSeconds(now) ? description : undefined;
}

export async function putImageDescription(
  accountId: string,
  imageHash: string,
  description: string,
  now = Date.now(),
): Promise<void> {
  await dynamo().putItem({
    TableName: tableName('cache'),
    Item: {
      ...descriptionKey(accountId, imageHash),
      ...toItem({ description, expiresAt: nowSeconds(now) + IMAGE_DESCRIPTION_TTL_SECONDS }),
    },
  });
}
