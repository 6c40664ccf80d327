import type { UsageEntry } from '../store/usage-items.js';
import { MalformedUsageEntryError, readUsageEntry } from './usage-entry-reader.js';

/**
 * A retry message's body at most: SQS takes 256 KiB (262,144 bytes) per message; the rest is
 * room for the message's own attributes. An entry is about 500 bytes of JSON, so a message
 * carries a few hundred, more than a batch of failed puts ever holds.
 */
export const MAX_RETRY_MESSAGE_BYTES = 200_000;
const VERSION = 1;

/** A retry message's body: `{"v":1,"entries":[...]}`. */
interface RetryMessage {
  readonly v: typeof VERSION;
  readonly entries: readonly UsageEntry[];
}

/** The entries as message bodies of at most MAX_RETRY_MESSAGE_BYTES each, in order. */
export function retryMessageBodies(entries: readonly UsageEntry[]): string[] {
  const bodies: string[] = [];
  let parts: string[] = [];
  let bytes = 0;
  const envelope = Buffer.byteLength(JSON.stringify({ v: VERSION, entries: [] }));
  for (const entry of entries) {
    const json = JSON.stringify(entry);
    const size = Buffer.byteLength(json) + 1;
    if (envelope + size > MAX_RETRY_MESSAGE_BYTES)
      throw new MalformedUsageEntryError(`entry ${entry.requestId}#${entry.sequence} is too large for a retry message`);
    if (parts.length > 0 && envelope + bytes + size > MAX_RETRY_MESSAGE_BYTES) {
      bodies.push(bodyOf(parts));
      parts = [];
      bytes = 0;
    }
    parts.push(json);
    bytes += size;
  }
  if (parts.length > 0) bodies.push(bodyOf(parts));
  return bodies;
}

const bodyOf = (entryJson: readonly string[]) => `{"v":${VERSION},"entries":[${entryJson.join(',')}]}`;

/** The entries of a retry message; throws MalformedUsageEntryError naming what is wrong. */
export function entriesOfRetryMessage(body: string): UsageEntry[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    throw new MalformedUsageEntryError('a retry message is not JSON');
  }
  const message = parsed as Partial<RetryMessage> | null;
  if (typeof message !== 'object' || message === null || message.v !== VERSION || !Array.isArray(message.entries))
    throw new MalformedUsageEntryError(`a retry message must be {"v":${VERSION},"entries":[...]}`);
  return message.entries.map((entry: unknown, i) => {
    if (typeof entry !== 'object' || entry === null)
      throw new MalformedUsageEntryError(`entries[${i}]: must be an object`);
    try {
      return readUsageEntry(entry as Record<string, unknown>);
    } catch (error) {
      throw new MalformedUsageEntryError(`entries[${i}].${(error as Error).message}`);
    }
  });
}
