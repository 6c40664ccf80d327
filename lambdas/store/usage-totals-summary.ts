import { queryPartition, visitLedgerShards, type UsageTableReader } from './usage-ledger-reads.js';
import type { Item } from './dynamo.js';
import { addTotalsItem, addLedgerItem, emptySummary, NO_KEY, type UsageSummary } from './usage-summary.js';
import { totalsPk } from './usage-totals.js';

/** What a summary counts: everything, or one API key's usage (`NO_KEY`: usage made without one). */
export interface UsageFilter {
  readonly keyId?: string;
}

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;

/**
 * Usage between two instants, both inclusive, from the sharded ledger's layout: whole UTC days
 * from the day totals, whole hours at either edge from the hour totals, and only the partial
 * hours at the very edges from the ledger (all its shards). So a period costs a few queries of
 * totals plus at most two hours of entries, however many entries its days hold. A key filter
 * skips other keys' items as they are read: totals are kept per key, so nothing is lost.
 */
export async function summarizeTotals(
  reader: UsageTableReader,
  accountId: string,
  fromMs: number,
  toMs: number,
  filter: UsageFilter = {},
): Promise<UsageSummary> {
  const summary = emptySummary();
  const { keyId } = filter;
  const wanted = (item: Item) => keyId === undefined || (item['keyId']?.S ?? NO_KEY) === keyId;
  const pk = totalsPk(accountId);
  const days = splitWhole(fromMs, toMs, DAY_MS);
  if (days.whole) {
    const [first, last] = days.whole;
    for await (const item of queryPartition(reader, pk, `DAY#${dayOf(first)}#`, `DAY#${dayOf(last)}#\uffff`))
      if (wanted(item)) addTotalsItem(summary, item);
  }
  for (const [edgeFrom, edgeTo] of days.edges) {
    const hours = splitWhole(edgeFrom, edgeTo, HOUR_MS);
    if (hours.whole) {
      const [first, last] = hours.whole;
      for await (const item of queryPartition(reader, pk, `HOUR#${hourOf(first)}#`, `HOUR#${hourOf(last)}#\uffff`))
        if (wanted(item)) addTotalsItem(summary, item);
    }
    for (const [from, to] of hours.edges)
      await visitLedgerShards(reader, accountId, from, to, (item) => {
        if (wanted(item)) addLedgerItem(summary, item);
      });
  }
  return summary;
}

const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const hourOf = (ms: number) => new Date(ms).toISOString().slice(0, 13);

/**
 * [from, to] (inclusive) as the whole units inside it (the first and last unit's starts) and
 * the parts before and after them (inclusive ranges), or all of it as one edge when it holds
 * no whole unit.
 */
export function splitWhole(
  fromMs: number,
  toMs: number,
  unitMs: number,
): { whole?: [number, number]; edges: [number, number][] } {
  const firstWhole = Math.ceil(fromMs / unitMs) * unitMs;
  const wholeEnd = Math.floor((toMs + 1) / unitMs) * unitMs; // exclusive
  if (firstWhole >= wholeEnd) return { edges: [[fromMs, toMs]] };
  const edges: [number, number][] = [];
  if (fromMs < firstWhole) edges.push([fromMs, firstWhole - 1]);
  if (wholeEnd <= toMs) edges.push([wholeEnd, toMs]);
  return { whole: [firstWhole, wholeEnd - unitMs], edges };
}
