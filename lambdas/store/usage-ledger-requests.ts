import { toItem, type Item } from './dynamo.js';
import type { DynamoDb } from './dynamodb-client.js';
import { ledgerShardPks } from './usage-ledger-shards.js';

/**
 * An account's ledger read newest first, one request at a time, without a scan: every shard is
 * queried backwards (`ScanIndexForward: false`) a few entries at a time and the shards are
 * merged by sort key. A request's entries hash to different shards (usage-ledger-shards.ts) but
 * share the sort key's `LEDGER#<at>#<requestId>#` prefix, so in the merged order they are
 * adjacent: a request is complete once every shard has been read past its prefix.
 */

/** The most entries one Query asks for: a refill grows to it, so a deep read costs few calls. */
export const MAX_QUERY_ENTRIES = 100;

export interface LedgerRequestReader {
  readonly db: Pick<DynamoDb, 'query'>;
  /** The usage table's physical name. */
  readonly table: string;
}

export interface LedgerRequestRange {
  /** The lowest sort key read (inclusive): `LEDGER#<from>`. */
  readonly fromSk: string;
  /**
   * The highest sort key read (inclusive). A cursor's request prefix works as an exclusive bound:
   * no entry's key equals a prefix, and the prefixed request's own entries sort above it.
   */
  readonly toSk: string;
}

/** One request's ledger items, in sequence order, and the prefix that names its position. */
export interface LedgerRequest {
  readonly prefix: string;
  readonly items: readonly Item[];
}

export interface LedgerRequestBudget {
  /** Entries each shard's first Query asks for (a page's expected share, with a margin). */
  readonly firstQueryEntries: number;
  /**
   * Query calls this read may make once it has completed one request: a page ends when they are
   * spent. The first request is always completed, so every page moves the cursor.
   */
  readonly queries: number;
}

interface Shard {
  readonly pk: string;
  /** Read but not yet merged, newest first. */
  buffer: Item[];
  startKey: Item | undefined;
  done: boolean;
  limit: number;
}

/** The request prefix of a ledger sort key: `LEDGER#<at>#<requestId>#` (request ids hold no `#`). */
export const requestPrefixOf = (sk: string): string => sk.slice(0, sk.lastIndexOf('#') + 1);

const skOf = (item: Item): string => item['sk']?.S ?? '';

/**
 * Reads an account's ledger requests newest first within a range and a budget of Query calls.
 * `next()` answers the next complete request, `'end'` when the range holds no more, or `'budget'`
 * when the calls are spent (the request being gathered is then left for the next page).
 */
export class LedgerRequestsNewestFirst {
  private readonly shards: Shard[];
  private started = false;
  private completed = 0;
  /** Query calls made, the first round's included. */
  private queries = 0;

  constructor(
    private readonly reader: LedgerRequestReader,
    accountId: string,
    private readonly range: LedgerRequestRange,
    private readonly budget: LedgerRequestBudget,
  ) {
    this.shards = ledgerShardPks(accountId).map((pk) => ({
      pk,
      buffer: [],
      startKey: undefined,
      done: range.fromSk > range.toSk,
      limit: Math.min(MAX_QUERY_ENTRIES, Math.max(1, budget.firstQueryEntries)),
    }));
  }

  /** Whether the range is read to its end: nothing buffered, every shard's Query finished. */
  get exhausted(): boolean {
    return this.started && this.shards.every((shard) => shard.done && shard.buffer.length === 0);
  }

  async next(): Promise<LedgerRequest | 'end' | 'budget'> {
    if (!this.started) {
      this.started = true;
      await Promise.all(this.shards.filter((shard) => !shard.done).map((shard) => this.read(shard)));
    }
    let prefix: string | undefined;
    const items: Item[] = [];
    for (;;) {
      const head = this.safeHead();
      if (head === 'exhausted') break;
      if (head === undefined) {
        if (this.completed > 0 && this.queries >= this.budget.queries) return 'budget';
        await this.read(this.dryShard());
        continue;
      }
      const sk = skOf(head.buffer[0]!);
      const itsPrefix = requestPrefixOf(sk);
      if (prefix !== undefined && itsPrefix !== prefix) break;
      prefix = itsPrefix;
      items.push(head.buffer.shift()!);
    }
    if (prefix === undefined) return 'end';
    this.completed++;
    // Read newest first, so the request's entries came highest sequence first.
    return { prefix, items: items.reverse() };
  }

  /**
   * The shard whose buffered head is the newest unread item of all the shards, when that is
   * known: every shard not read to the range's end holds a buffered item (a dry one's unread
   * items may sort anywhere below what it gave). `undefined` when a dry shard must be read
   * first; `'exhausted'` when every shard is read to the range's end.
   */
  private safeHead(): Shard | undefined | 'exhausted' {
    let best: Shard | undefined;
    for (const shard of this.shards) {
      if (shard.buffer.length === 0) {
        if (!shard.done) return undefined;
      } else if (!best || skOf(shard.buffer[0]!) > skOf(best.buffer[0]!)) best = shard;
    }
    return best ?? 'exhausted';
  }

  private dryShard(): Shard {
    return this.shards.find((shard) => shard.buffer.length === 0 && !shard.done)!;
  }

  private async read(shard: Shard): Promise<void> {
    this.queries++;
    const page = await this.reader.db.query({
      TableName: this.reader.table,
      KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
      ExpressionAttributeValues: toItem({ ':pk': shard.pk, ':from': this.range.fromSk, ':to': this.range.toSk }),
      ScanIndexForward: false,
      Limit: shard.limit,
      ExclusiveStartKey: shard.startKey,
    });
    const items = page.Items ?? [];
    shard.buffer.push(...items);
    shard.startKey = page.LastEvaluatedKey;
    shard.done = page.LastEvaluatedKey === undefined;
    // A shard that ran dry before the others is denser than its share: ask it for more next time.
    shard.limit = Math.min(MAX_QUERY_ENTRIES, shard.limit * 2);
  }
}
