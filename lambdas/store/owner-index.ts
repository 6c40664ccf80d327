import { dynamo, tableName, toItem, type Item } from './dynamo.js';
import { OWNER_INDEX, type TableName } from './table-schema.js';

/** Every record of one kind an account owns, oldest first, across all pages. */
export async function* ownedItems(table: TableName, accountId: string, kindPrefix: string): AsyncGenerator<Item> {
  let startKey: Item | undefined;
  do {
    const page = await dynamo().query({
      TableName: tableName(table),
      IndexName: OWNER_INDEX.name,
      KeyConditionExpression: '#pk = :pk AND begins_with(#sk, :prefix)',
      ExpressionAttributeNames: { '#pk': OWNER_INDEX.partitionKey, '#sk': OWNER_INDEX.sortKey },
      ExpressionAttributeValues: toItem({ ':pk': `ACCOUNT#${accountId}`, ':prefix': kindPrefix }),
      ExclusiveStartKey: startKey,
    });
    yield* page.Items ?? [];
    startKey = page.LastEvaluatedKey;
  } while (startKey);
}
