import { ENV, optionalEnv } from '../config/environment.js';

/**
 * In Lambda an instance serves one request at a time, so there are no other requests' writes
 * to wait for; a longer wait would only lengthen, and bill, every invocation. Two
 * milliseconds still let one request's own writes (its ledger entries, its cached answer)
 * travel together.
 */
export const DEFAULT_WRITE_BEHIND_MS = 2;
const MAX_WRITE_BEHIND_MS = 1_000;

/**
 * How long a write made after the response (usage, cached answers) waits for other requests'
 * writes to share its DynamoDB call. A long-lived process serving many requests at once (the
 * local runtime) sets a longer window with STORE_WRITE_BEHIND_MS: fewer, fuller batches, and
 * no write landing in the middle of each next request. The client never waits for it.
 */
export function writeBehindMs(): number {
  const raw = optionalEnv(ENV.storeWriteBehindMs);
  if (raw === undefined) return DEFAULT_WRITE_BEHIND_MS;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0 || value > MAX_WRITE_BEHIND_MS)
    throw new Error(`${ENV.storeWriteBehindMs} must be an integer from 0 to ${MAX_WRITE_BEHIND_MS}, not ${raw}`);
  return value;
}
