import type { AttributeValue, BatchStatementRequest } from '@aws-sdk/client-dynamodb';
import type { Item } from './dynamo.js';

/** Statements BatchExecuteStatement takes in one call. */
export const MAX_STATEMENTS_PER_BATCH = 25;

/**
 * The item as a PartiQL `INSERT`: its attribute names in the statement, its values as
 * parameters, so no value is ever spliced into the text. An INSERT creates the item or fails
 * with `DuplicateItem` when its key is taken; it can never replace an item, which is why IAM's
 * `dynamodb:PartiQLInsert` is an append-only grant (PutItem, by contrast, overwrites unless the
 * caller chooses to send a condition). Attribute names are the store's own identifiers; a quote
 * in one is doubled as PartiQL escapes it.
 */
export function insertStatement(table: string, item: Item): BatchStatementRequest {
  const names = Object.keys(item);
  const tuple = names.map((name) => `'${name.replaceAll("'", "''")}':?`).join(',');
  return {
    Statement: `INSERT INTO "${table.replaceAll('"', '""')}" VALUE {${tuple}}`,
    Parameters: names.map((name) => item[name] as AttributeValue),
  };
}
