import type { LocalGateway } from '../../../local/child-runtime.js';
import { accountItems } from './ledger-entries.js';

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
 * Per `<day> <model> <route>`: what the day-total items say, and what their ledger entries add up
 * to. A day total written before totals were kept per route has route `unattributed`.
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
      const totals = (dayTotals[`${item['day']} ${item['model']} ${item['route'] ?? 'unattributed'}`] ??= zero());
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
