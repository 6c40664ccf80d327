import { ledgerSk, type UsageEntry } from '../../../lambdas/store/usage-items.js';
import { shardedLedgerItem as ledgerItem } from '../../../lambdas/store/usage-ledger-shards.js';

const entry = (overrides: Partial<UsageEntry> = {}): UsageEntry => ({
  requestId: 'req-1',
  sequence: 0,
  accountId: 'acc-1',
  route: 'chat-completions',
  model: 'gpt-5',
  provider: 'openai',
  promptTokens: 10,
  completionTokens: 5,
  costMicroUsd: 100,
  priced: true,
  estimated: false,
  cached: false,
  status: 200,
  at: '2026-07-01T10:00:00.000Z',
  ...overrides,
});

describe('ledger item', () => {
  test('an entry without arena tags has no such attributes, not even empty ones', () => {
    const item = ledgerItem(entry());
    for (const name of ['sessionId', 'round', 'agent', 'purpose']) expect(item).not.toHaveProperty(name);
  });

  test('arena tags are flat attributes', () => {
    const item = ledgerItem(entry({ sessionId: 'ses_1', round: 2, agent: 'claude', purpose: 'vote' }));
    expect(item).toMatchObject({
      sessionId: { S: 'ses_1' },
      round: { N: '2' },
      agent: { S: 'claude' },
      purpose: { S: 'vote' },
    });
  });

  test('an arena request id with slashes and dashes keeps its entry inside its instant', () => {
    const at = '2026-07-01T10:00:00.000Z';
    const sk = ledgerSk(at, 'ses_a-b/r1/claude-2/answer', 3);
    expect(sk).toBe('LEDGER#2026-07-01T10:00:00.000Z#ses_a-b/r1/claude-2/answer#0003');
    // The bounds a partial-day summary reads for exactly that instant.
    expect(sk >= `LEDGER#${at}` && sk <= `LEDGER#${at}#\uffff`).toBe(true);
    expect(ledgerSk(at, 'ses_a-b/r1/claude-2/vote', 0)).not.toBe(ledgerSk(at, 'ses_a-b/r1/claude-2/answer', 0));
  });
});
