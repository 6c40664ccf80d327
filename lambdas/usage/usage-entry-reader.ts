import { USAGE_UNITS } from '../catalog/unit-prices.js';
import type { UsageEntry } from '../store/usage-items.js';
import { parseIsoInstant } from './iso-instant.js';
import { ENTRY_ATTRIBUTES } from './usage-attributes.js';

/** A ledger entry (a stream image, a retry message's) that cannot be counted as it stands. */
export class MalformedUsageEntryError extends Error {
  override readonly name = 'MalformedUsageEntryError';
}

const REQUIRED: readonly (keyof UsageEntry)[] = [
  'requestId',
  'sequence',
  'accountId',
  'route',
  'model',
  'promptTokens',
  'completionTokens',
  'costMicroUsd',
  'priced',
  'estimated',
  'cached',
  'status',
  'at',
];
/** Counters that are summed into totals: whole and not negative, so sums stay exact. */
const COUNTS: readonly (keyof UsageEntry)[] = ['sequence', 'promptTokens', 'completionTokens', 'costMicroUsd'];
const PURPOSES: readonly string[] = ['answer', 'vote', 'search'];
const JS_TYPE = { S: 'string', N: 'number', BOOL: 'boolean' } as const;

/**
 * The entry in a plain record (a decoded JSON message, a stream image's values): every field
 * of UsageEntry with its declared type (usage-attributes.ts), the required ones present,
 * counts whole, `at` an ISO instant. Other fields (an item's pk, sk, totalTokens) are left out.
 */
export function readUsageEntry(record: Readonly<Record<string, unknown>>): UsageEntry {
  const entry: Record<string, unknown> = {};
  for (const [name, type] of Object.entries(ENTRY_ATTRIBUTES)) {
    const value = record[name];
    if (value === undefined) continue;
    if (typeof value !== JS_TYPE[type] || (type === 'N' && !Number.isFinite(value)))
      throw new MalformedUsageEntryError(`${name}: must be a ${JS_TYPE[type]}`);
    entry[name] = value;
  }
  for (const name of REQUIRED)
    if (entry[name] === undefined) throw new MalformedUsageEntryError(`${name}: is required`);
  for (const name of COUNTS) {
    const value = entry[name] as number;
    if (!Number.isSafeInteger(value) || value < 0)
      throw new MalformedUsageEntryError(`${name}: must be a whole number, not negative`);
  }
  if (entry['quantity'] !== undefined && !((entry['quantity'] as number) >= 0))
    throw new MalformedUsageEntryError('quantity: must not be negative');
  if (entry['unit'] !== undefined && !(USAGE_UNITS as readonly unknown[]).includes(entry['unit']))
    throw new MalformedUsageEntryError(`unit: must be one of ${USAGE_UNITS.join(', ')}`);
  if (entry['purpose'] !== undefined && !PURPOSES.includes(entry['purpose'] as string))
    throw new MalformedUsageEntryError(`purpose: must be one of ${PURPOSES.join(', ')}`);
  if (parseIsoInstant(entry['at'] as string) === undefined)
    throw new MalformedUsageEntryError('at: must be an ISO 8601 date-time');
  return entry as unknown as UsageEntry;
}
