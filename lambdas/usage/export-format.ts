import type { Item } from '../store/dynamo.js';
import { KEY_ATTRIBUTES } from './usage-attributes.js';

/**
 * The line formats of DynamoDB's export to S3 (DYNAMODB_JSON, one JSON object per line of the
 * gzipped data files): a full export writes `{"Item":{...}}` per item, an incremental export
 * `{"Metadata":{"WriteTimestampMicros":{"N":...}},"Keys":{...},"NewImage":{...},"OldImage":{...}}`
 * per changed item (no NewImage when the item was deleted, no OldImage under NEW_IMAGE).
 * Attribute values keep their DynamoDB type tags (`{"S":...}`, `{"N":"..."}`, `{"BOOL":...}`).
 */
export interface ItemChange {
  /** When DynamoDB applied the write, in microseconds since the epoch. */
  readonly writtenAtMicros: number;
  /** The item after the write; absent when the write deleted it. */
  readonly newImage?: Item;
  readonly oldImage?: Item;
}

/** An exported line that is not one of the two formats. */
export class ExportFormatError extends Error {
  override readonly name = 'ExportFormatError';
}

export const fullExportLine = (item: Item): string => JSON.stringify({ Item: item });

export function incrementalExportLine(change: ItemChange): string {
  const image = change.newImage ?? change.oldImage;
  if (!image) throw new ExportFormatError('an incremental export line needs the new or the old image');
  return JSON.stringify({
    Metadata: { WriteTimestampMicros: { N: String(change.writtenAtMicros) } },
    Keys: keysOf(image),
    ...(change.newImage ? { NewImage: change.newImage } : {}),
    ...(change.oldImage ? { OldImage: change.oldImage } : {}),
  });
}

/** What one line says about one item: its image after the line (undefined: deleted). */
export interface ExportedItem {
  readonly key: string;
  readonly image: Item | undefined;
}

export function parseExportLine(line: string): ExportedItem {
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch {
    throw new ExportFormatError(`not a JSON line: ${line.slice(0, 80)}`);
  }
  const record = (isObject(parsed) ? parsed : {}) as Record<string, unknown>;
  if (isObject(record['Item'])) return { key: keyOf(record['Item'] as Item), image: record['Item'] as Item };
  if (isObject(record['Keys']) && isObject(record['Metadata'])) {
    const image = isObject(record['NewImage']) ? (record['NewImage'] as Item) : undefined;
    return { key: keyOf(record['Keys'] as Item), image };
  }
  throw new ExportFormatError(`neither a full ("Item") nor an incremental ("Keys", "Metadata") export line`);
}

/**
 * The items as the exports leave them, given their lines in the order the exports were taken
 * (a full export first, then incremental exports oldest first): a later line about an item
 * replaces an earlier one, and a deletion removes it. An item therefore counts once however
 * many exports carry it. Blank lines (DynamoDB writes an empty file per empty partition) are skipped.
 */
export function itemsOfExport(lines: Iterable<string>): Item[] {
  const items = new Map<string, Item>();
  for (const line of lines) {
    if (line.trim() === '') continue;
    const { key, image } = parseExportLine(line);
    items.delete(key);
    if (image) items.set(key, image);
  }
  return [...items.values()];
}

function keysOf(image: Item): Item {
  const keys: Item = {};
  for (const name of Object.keys(KEY_ATTRIBUTES)) {
    const value = image[name];
    if (!value) throw new ExportFormatError(`the image has no key attribute ${name}`);
    keys[name] = value;
  }
  return keys;
}

function keyOf(image: Item): string {
  return JSON.stringify(Object.values(keysOf(image)));
}

function isObject(value: unknown): value is object {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
