import { unmarshall } from '@aws-sdk/util-dynamodb';
import {
  dayDeltas,
  dayKeysEnd,
  dayKeysStart,
  daySk,
  dayUpdate,
  ledgerItem,
  ledgerSk,
  type UsageEntry,
} from '../../../lambdas/store/usage-items.js';
import { MAX_ENTRIES_PER_TRANSACTION } from '../../../lambdas/store/usage-writes.js';

process.env['USAGE_TABLE'] ??= 'usage-unit';

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

describe('day deltas', () => {
  test('one delta per day, model and route: routes of one model stay apart', () => {
    const deltas = dayDeltas([
      entry({ sequence: 0 }),
      entry({ sequence: 1, costMicroUsd: 50 }),
      entry({ sequence: 2, route: 'battle' }),
      entry({ sequence: 3, route: 'battle', model: 'claude-sonnet-4-5', priced: false, costMicroUsd: 0 }),
    ]);
    expect(deltas).toEqual([
      expect.objectContaining({
        model: 'gpt-5',
        route: 'chat-completions',
        requests: 2,
        tokens: 30,
        costMicroUsd: 150,
      }),
      expect.objectContaining({ model: 'gpt-5', route: 'battle', requests: 1, tokens: 15, costMicroUsd: 100 }),
      expect.objectContaining({
        model: 'claude-sonnet-4-5',
        route: 'battle',
        requests: 1,
        unpricedRequests: 1,
        unpricedTokens: 15,
      }),
    ]);
  });

  test('a full transaction still fits DynamoDB: one put and at most one day update per entry', () => {
    const entries = Array.from({ length: MAX_ENTRIES_PER_TRANSACTION }, (_, i) =>
      entry({ sequence: i, model: `model-${i}`, route: `route-${i}` }),
    );
    expect(entries.length + dayDeltas(entries).length).toBeLessThanOrEqual(100);
  });
});

describe('day update', () => {
  test('is keyed by day, model and route, and stores the route as an attribute', () => {
    const [delta] = dayDeltas([entry({ route: 'fight' })]);
    const update = dayUpdate(delta!).Update!;
    expect(unmarshall(update.Key!)).toEqual({ pk: 'ACCOUNT#acc-1', sk: 'DAY#2026-07-01#gpt-5#fight' });
    expect(update.UpdateExpression).toContain('#route = :route');
    expect(unmarshall(update.ExpressionAttributeValues!)).toMatchObject({ ':route': 'fight', ':model': 'gpt-5' });
  });

  test("a day's keys, whatever the model and route, lie in the range a summary reads", () => {
    for (const sk of [daySk('2026-07-01', 'gpt-5', 'chat-completions'), 'DAY#2026-07-01#gpt-5' /* before routes */]) {
      expect(sk > dayKeysStart('2026-07-01') && sk < dayKeysEnd('2026-07-01')).toBe(true);
    }
    expect(daySk('2026-07-02', 'a', 'b') > dayKeysEnd('2026-07-01')).toBe(true);
  });
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
