import type { AttributeValue, DynamoDBRecord } from 'aws-lambda';
import type { UsageEntry } from '../store/usage-items.js';
import { isLedgerShardPk } from '../store/usage-ledger-shards.js';
import { MalformedUsageEntryError, readUsageEntry } from './usage-entry-reader.js';

/**
 * What one usage-table stream record means to the aggregator: a new ledger entry to count, or
 * nothing (a totals or checkpoint write, an entry of the unsharded ledger, whose day totals
 * were written with it). Entries are only ever inserted, so only an INSERT counts.
 */
export function ledgerEntryOf(record: DynamoDBRecord): UsageEntry | undefined {
  if (record.eventName !== 'INSERT') return undefined;
  const pk = record.dynamodb?.Keys?.['pk']?.S ?? record.dynamodb?.NewImage?.['pk']?.S;
  if (pk === undefined || !isLedgerShardPk(pk)) return undefined;
  const image = record.dynamodb?.NewImage;
  // The stream must carry new images: without one the entry cannot be counted, and skipping it would lose it.
  if (image === undefined) throw new MalformedUsageEntryError(`the stream record of ${pk} has no new image`);
  if (image['type']?.S !== 'ledger')
    throw new MalformedUsageEntryError(`${pk} holds an item that is not a ledger entry`);
  return readUsageEntry(plainValues(image));
}

/** The string, number and boolean attributes of an image as plain values: all a ledger item has. */
function plainValues(image: Readonly<Record<string, AttributeValue>>): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(image)) {
    if (value.S !== undefined) values[name] = value.S;
    else if (value.N !== undefined) values[name] = Number(value.N);
    else if (value.BOOL !== undefined) values[name] = value.BOOL;
  }
  return values;
}
