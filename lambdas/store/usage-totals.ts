import type { TransactWriteItem } from '@aws-sdk/client-dynamodb';
import { toItem } from './dynamo.js';
import { accountPk, addCounters, addEntry, zeroCounters, type Counters, type UsageEntry } from './usage-items.js';

/**
 * The totals the aggregator derives from the ledger (lambdas/usage/usage-aggregator.ts), per
 * account: one item per UTC day and one per UTC hour, each split by model, route and API key.
 * They live in their own partition, apart from the ledger's shards, and only the aggregator
 * writes them, a batch of stream records at a time: a busy tenant's requests never write here.
 */
export const totalsPk = (accountId: string) => `${accountPk(accountId)}#TOTALS`;

/** The key id of totals of entries made without an API key (a job settled for a dashboard session). */
export const NO_KEY_ID = '-';

export type TotalsGrain = 'day' | 'hour';

/** `DAY#<yyyy-mm-dd>#<model>#<route>#<keyId>` */
export const dayTotalSk = (day: string, model: string, route: string, keyId: string) =>
  `DAY#${day}#${model}#${route}#${keyId}`;
/** `HOUR#<yyyy-mm-ddThh>#<model>#<route>#<keyId>` */
export const hourTotalSk = (hour: string, model: string, route: string, keyId: string) =>
  `HOUR#${hour}#${model}#${route}#${keyId}`;

/** What a set of entries adds to one totals item. */
export interface TotalsDelta extends Counters {
  readonly accountId: string;
  readonly grain: TotalsGrain;
  /** `yyyy-mm-dd` for a day, `yyyy-mm-ddThh` for an hour. */
  readonly period: string;
  readonly model: string;
  readonly route: string;
  /** Absent for entries made without an API key (their items are keyed NO_KEY_ID). */
  readonly keyId?: string;
}

const periodOf = (entry: UsageEntry, grain: TotalsGrain) => entry.at.slice(0, grain === 'day' ? 10 : 13);

function skOf(delta: Pick<TotalsDelta, 'grain' | 'period' | 'model' | 'route' | 'keyId'>): string {
  const sk = delta.grain === 'day' ? dayTotalSk : hourTotalSk;
  return sk(delta.period, delta.model, delta.route, delta.keyId ?? NO_KEY_ID);
}

/** The two totals items (its day's, its hour's) an entry adds to, as `<pk>\n<sk>` keys. */
export function totalsKeysOf(entry: UsageEntry): [string, string] {
  const key = (grain: TotalsGrain) =>
    `${totalsPk(entry.accountId)}\n${skOf({ grain, period: periodOf(entry, grain), ...entry })}`;
  return [key('day'), key('hour')];
}

/** Sums entries into one delta per totals item, however many entries share one. */
export class TotalsDeltas {
  private readonly byKey = new Map<string, TotalsDelta>();

  get size(): number {
    return this.byKey.size;
  }

  /** How many items not yet in these deltas the entry would add (0, 1 or 2). */
  newItemsOf(entry: UsageEntry): number {
    return totalsKeysOf(entry).filter((key) => !this.byKey.has(key)).length;
  }

  add(entry: UsageEntry): void {
    const [dayKey, hourKey] = totalsKeysOf(entry);
    for (const [grain, key] of [
      ['day', dayKey],
      ['hour', hourKey],
    ] as const) {
      let delta = this.byKey.get(key);
      if (!delta) {
        delta = {
          accountId: entry.accountId,
          grain,
          period: periodOf(entry, grain),
          model: entry.model,
          route: entry.route,
          ...(entry.keyId === undefined ? {} : { keyId: entry.keyId }),
          ...zeroCounters(),
        };
        this.byKey.set(key, delta);
      }
      addEntry(delta, entry);
    }
  }

  all(): TotalsDelta[] {
    return [...this.byKey.values()];
  }
}

/** Adds a delta to its totals item, setting its labels (the same on every update of the item). */
export function totalsUpdate(delta: TotalsDelta, table: string): TransactWriteItem {
  const labels: Record<string, string> = {
    type: delta.grain,
    accountId: delta.accountId,
    day: delta.period.slice(0, 10),
    model: delta.model,
    route: delta.route,
  };
  if (delta.grain === 'hour') labels['hour'] = delta.period;
  if (delta.keyId !== undefined) labels['keyId'] = delta.keyId;
  const names = Object.keys(labels);
  const add = addCounters(delta);
  return {
    Update: {
      TableName: table,
      Key: toItem({ pk: totalsPk(delta.accountId), sk: skOf(delta) }),
      UpdateExpression: `${add.expression} SET ${names.map((name) => `#${name} = :${name}`).join(', ')}`,
      ExpressionAttributeNames: Object.fromEntries(names.map((name) => [`#${name}`, name])),
      ExpressionAttributeValues: toItem({
        ...add.values,
        ...Object.fromEntries(names.map((name) => [`:${name}`, labels[name]])),
      }),
    },
  };
}
