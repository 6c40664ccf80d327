import fc from 'fast-check';
import { toItem } from '../../../lambdas/store/dynamo.js';
import {
  addTotalsItem,
  addLedgerItem,
  emptySummary,
  NO_KEY,
  type UsageSummary,
  type UsageTotals,
} from '../../../lambdas/store/usage-summary.js';

const dayItem = (fields: Record<string, unknown>) =>
  toItem({ pk: 'ACCOUNT#a', sk: 'DAY#x', type: 'day', unpricedRequests: 0, unpricedTokens: 0, ...fields });
const ledgerItem = (fields: Record<string, unknown>) =>
  toItem({ pk: 'ACCOUNT#a', sk: 'LEDGER#x', type: 'ledger', priced: true, ...fields });

const FIGURES = ['requests', 'tokens', 'costMicroUsd', 'unpricedRequests', 'unpricedTokens'] as const;
const sumOf = (parts: Record<string, UsageTotals>) =>
  Object.fromEntries(FIGURES.map((name) => [name, Object.values(parts).reduce((sum, part) => sum + part[name], 0)]));
const totalsOf = (summary: UsageSummary) => Object.fromEntries(FIGURES.map((name) => [name, summary[name]]));

test('day totals and ledger entries are split by route as well as by model', () => {
  const summary = emptySummary();
  addTotalsItem(
    summary,
    dayItem({ model: 'gpt-5', route: 'chat-completions', requests: 3, tokens: 30, costMicroUsd: 300 }),
  );
  addTotalsItem(summary, dayItem({ model: 'gpt-5', route: 'battle', requests: 2, tokens: 20, costMicroUsd: 200 }));
  addLedgerItem(summary, ledgerItem({ model: 'claude-sonnet-4-5', route: 'battle', totalTokens: 7, costMicroUsd: 70 }));
  expect(summary.byRoute).toEqual({
    'chat-completions': {
      requests: 3,
      tokens: 30,
      costMicroUsd: 300,
      unpricedRequests: 0,
      unpricedTokens: 0,
      units: {},
    },
    battle: { requests: 3, tokens: 27, costMicroUsd: 270, unpricedRequests: 0, unpricedTokens: 0, units: {} },
  });
  expect(summary.byModel['gpt-5']).toMatchObject({ requests: 5, tokens: 50 });
  expect(totalsOf(summary)).toMatchObject({ requests: 6, tokens: 57, costMicroUsd: 570 });
});

test('totals and entries are split by key; usage made without a key is `none`', () => {
  const summary = emptySummary();
  addTotalsItem(
    summary,
    dayItem({ model: 'gpt-5', route: 'chat-completions', keyId: 'k1', requests: 4, tokens: 40, costMicroUsd: 400 }),
  );
  addTotalsItem(summary, dayItem({ model: 'gpt-5', route: 'fashion-run', requests: 1, tokens: 0, costMicroUsd: 50 }));
  addLedgerItem(
    summary,
    ledgerItem({ model: 'gpt-5', route: 'chat-completions', keyId: 'k2', totalTokens: 7, costMicroUsd: 70 }),
  );
  expect(Object.fromEntries(Object.entries(summary.byKey).map(([id, totals]) => [id, totals.requests]))).toEqual({
    k1: 4,
    k2: 1,
    [NO_KEY]: 1,
  });
});

test('by model, by route and by key each sum to the totals, exactly', () => {
  const counts = fc.nat({ max: 1_000_000 });
  const day = fc.record({
    model: fc.constantFrom('gpt-5', 'claude-sonnet-4-5', 'acme/unlisted'),
    route: fc.constantFrom('chat-completions', 'battle', 'fight'),
    keyId: fc.option(fc.constantFrom('k1', 'k2'), { nil: undefined }),
    requests: counts,
    tokens: counts,
    costMicroUsd: counts,
    unpricedRequests: counts,
    unpricedTokens: counts,
  });
  const entry = fc.record({
    model: fc.constantFrom('gpt-5', 'claude-sonnet-4-5'),
    route: fc.constantFrom('chat-completions', 'battle', 'fight', 'chat-legacy'),
    keyId: fc.option(fc.constantFrom('k1', 'k3'), { nil: undefined }),
    totalTokens: counts,
    costMicroUsd: counts,
    priced: fc.boolean(),
  });
  fc.assert(
    fc.property(fc.array(day), fc.array(entry), (days, entries) => {
      const summary = emptySummary();
      for (const item of days) addTotalsItem(summary, dayItem(item));
      for (const item of entries) addLedgerItem(summary, ledgerItem(item));
      expect(sumOf(summary.byModel)).toEqual(totalsOf(summary));
      expect(sumOf(summary.byRoute)).toEqual(totalsOf(summary));
      expect(sumOf(summary.byKey)).toEqual(totalsOf(summary));
      expect(summary.requests).toBe(days.reduce((sum, d) => sum + d.requests, 0) + entries.length);
    }),
  );
});

test('units of non-token work add up from day totals and ledger entries, by model, by route and overall', () => {
  const summary = emptySummary();
  addTotalsItem(
    summary,
    dayItem({
      model: 'minimax/speech-2.6-hd',
      route: 'media-speech',
      requests: 2,
      tokens: 0,
      costMicroUsd: 50,
      units_characters: 500,
    }),
  );
  addTotalsItem(
    summary,
    dayItem({ model: 'exa/auto', route: 'search', requests: 3, tokens: 0, costMicroUsd: 21, units_search: 3 }),
  );
  addLedgerItem(
    summary,
    ledgerItem({
      model: 'minimax/speech-2.6-hd',
      route: 'media-speech',
      totalTokens: 0,
      costMicroUsd: 10,
      unit: 'characters',
      quantity: 100,
    }),
  );
  addLedgerItem(summary, ledgerItem({ model: 'gpt-5', route: 'chat-completions', totalTokens: 9, costMicroUsd: 9 }));
  expect(summary.units).toEqual({ characters: 600, search: 3 });
  expect(summary.byModel['minimax/speech-2.6-hd']!.units).toEqual({ characters: 600 });
  expect(summary.byRoute['search']!.units).toEqual({ search: 3 });
  expect(summary.byRoute['chat-completions']!.units).toEqual({});
});
