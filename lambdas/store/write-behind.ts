import { configuration } from '../config/configuration.js';

/**
 * How long a write made after the response (usage, cached answers) waits for other requests'
 * writes to share its DynamoDB call: the configuration's STORE_WRITE_BEHIND_MS. In Lambda an
 * instance serves one request at a time, so there are no other requests' writes to wait for; a
 * longer wait would only lengthen, and bill, every invocation, and the default two
 * milliseconds still let one request's own writes (its ledger entries, its cached answer)
 * travel together. A long-lived process serving many requests at once (the local runtime)
 * sets a longer window: fewer, fuller batches, and no write landing in the middle of each next
 * request. The client never waits for it.
 */
export const writeBehindMs = (): number => configuration().writeBehindMs;
