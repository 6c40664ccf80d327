import fc from 'fast-check';
import { toItem } from '../../../lambdas/store/dynamo.js';
import {
  addDayItem,
  addLedgerItem,
  emptySummary,
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
  addDayItem(
    summary,
    dayItem({ model: 'gpt-5', route: 'chat-completions', requests: 3, tokens: 30, costMicroUsd: 300 }),
  );
  addDayItem(summary, dayItem({ model: 'gpt-5', route: 'battle', requests: 2, tokens: 20, costMicroUsd: 200 }));
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

test('a day total written before routes were kept is counted as unattributed', () => {
  const summary = emptySummary();
  // Such an item may also predate the unpriced counts: it has neither attribute.
  addDayItem(summary, toItem({ type: 'day', model: 'gpt-5', requests: 4, tokens: 40, costMicroUsd: 400 }));
  expect(summary.byRoute).toEqual({
    unattributed: { requests: 4, tokens: 40, costMicroUsd: 400, unpricedRequests: 0, unpricedTokens: 0, units: {} },
  });
  expect(summary.byModel['gpt-5']).toEqual(summary.byRoute['unattributed']);
});

test('by model and by route each sum to the totals, exactly', () => {
  const counts = fc.nat({ max: 1_000_000 });
  const day = fc.record({
    model: fc.constantFrom('gpt-5', 'claude-sonnet-4-5', 'acme/unlisted'),
    route: fc.option(fc.constantFrom('chat-completions', 'battle', 'fight'), { nil: undefined }),
    requests: counts,
    tokens: counts,
    costMicroUsd: counts,
    unpricedRequests: counts,
    unpricedTokens: counts,
  });
  const entry = fc.record({
    model: fc.constantFrom('gpt-5', 'claude-sonnet-4-5'),
    route: fc.constantFrom('chat-completions', 'battle', 'fight', 'chat-legacy'),
    totalTokens: counts,
    costMicroUsd: counts,
    priced: fc.boolean(),
  });
  fc.assert(
    fc.property(fc.array(day), fc.array(entry), (days, entries) => {
      const summary = emptySummary();
      for (const item of days) addDayItem(summary, dayItem(item));
      for (const item of entries) addLedgerItem(summary, ledgerItem(item));
      expect(sumOf(summary.byModel)).toEqual(totalsOf(summary));
      expect(sumOf(summary.byRoute)).toEqual(totalsOf(summary));
      expect(summary.requests).toBe(days.reduce((sum, d) => sum + d.requests, 0) + entries.length);
    }),
  );
});

test('units of non-token work add up from day totals and ledger entries, by model, by route and overall', () => {
  const summary = emptySummary();
  addDayItem(
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
  addDayItem(
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
