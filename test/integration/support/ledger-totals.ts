import type { LocalGateway } from '../../../local/child-runtime.js';
import { accountItems } from './ledger-entries.js';
import { until } from './poll.js';

export interface Sums {
  requests: number;
  tokens: number;
  promptTokens: number;
  completionTokens: number;
  costMicroUsd: number;
  unpricedRequests: number;
  unpricedTokens: number;
}

/**
 * Per `<day> <model> <route>`: what the day-total items say (over every key), and what their
 * ledger entries add up to.
 */
export interface TotalsAndLedger {
  readonly dayTotals: Record<string, Sums>;
  readonly ledgerSums: Record<string, Sums>;
}

const zero = (): Sums => ({
  requests: 0,
  tokens: 0,
  promptTokens: 0,
  completionTokens: 0,
  costMicroUsd: 0,
  unpricedRequests: 0,
  unpricedTokens: 0,
});

export async function totalsAndLedger(gateway: LocalGateway, accountId: string): Promise<TotalsAndLedger> {
  const dayTotals: Record<string, Sums> = {};
  const ledgerSums: Record<string, Sums> = {};
  for (const item of await accountItems(gateway, accountId)) {
    if (item['type'] === 'day') {
      const totals = (dayTotals[`${item['day']} ${item['model']} ${item['route']}`] ??= zero());
      for (const name of Object.keys(totals) as (keyof Sums)[]) totals[name] += Number(item[name] ?? 0);
    } else if (item['type'] === 'ledger') {
      const sums = (ledgerSums[`${item['day']} ${item['model']} ${item['route']}`] ??= zero());
      const tokens = Number(item['promptTokens']) + Number(item['completionTokens']);
      sums.requests += 1;
      sums.tokens += tokens;
      sums.promptTokens += Number(item['promptTokens']);
      sums.completionTokens += Number(item['completionTokens']);
      sums.costMicroUsd += Number(item['costMicroUsd']);
      if (item['priced'] === false) {
        sums.unpricedRequests += 1;
        sums.unpricedTokens += tokens;
      }
    }
  }
  return { dayTotals, ledgerSums };
}

/**
 * The totals and ledger of the days starting with `dayPrefix` once the totals have caught up
 * with the ledger (the aggregator runs off the request path), or as they are when the polls give
 * up. `settled` may ask for more (the ledger holding every entry expected).
 */
export function settledTotals(
  gateway: LocalGateway,
  accountId: string,
  dayPrefix: string,
  settled: (ledger: Record<string, Sums>) => boolean = () => true,
): Promise<{ totals: Record<string, Sums>; ledger: Record<string, Sums> }> {
  const of = (sums: Record<string, Sums>) =>
    Object.fromEntries(Object.entries(sums).filter(([key]) => key.startsWith(dayPrefix)));
  return until(
    async () => {
      const { dayTotals, ledgerSums } = await totalsAndLedger(gateway, accountId);
      return { totals: of(dayTotals), ledger: of(ledgerSums) };
    },
    (state) => JSON.stringify(sorted(state.totals)) === JSON.stringify(sorted(state.ledger)) && settled(state.ledger),
  );
}

const sorted = (sums: Record<string, Sums>) => Object.entries(sums).sort(([a], [b]) => a.localeCompare(b));
