import { createDynamoDb, type DynamoDb } from '../../../lambdas/store/dynamodb-client.js';
import type { UsageEntry } from '../../../lambdas/store/usage-items.js';
import { putLedgerEntries } from '../../../lambdas/store/usage-ledger-puts.js';
import { ledgerShard } from '../../../lambdas/store/usage-ledger-shards.js';
import {
  cursorOf,
  PAGE_QUERY_BUDGET,
  parseRequestLogQuery,
  requestLogPage,
  type RequestRow,
} from '../../../lambdas/usage/request-log.js';
import { UsageError } from '../../../lambdas/usage/usage-errors.js';
import { useLocalDynamoDb } from '../../support/local-dynamodb.js';
import { usageEntry } from '../../support/usage-pipeline-harness.js';

const local = useLocalDynamoDb('request-log');
let db: DynamoDb;
let table: string;
/** Query calls made through `reader()` since the last reset. */
let queries = 0;
beforeAll(() => {
  db = createDynamoDb({
    endpoint: local().endpoint,
    region: 'us-east-1',
    credentials: () => ({ accessKeyId: 'test', secretAccessKey: 'test' }),
  });
  table = local().tableNames.usage;
});
const reader = () => ({
  table,
  db: {
    query: (input: Parameters<DynamoDb['query']>[0]) => {
      queries++;
      return db.query(input);
    },
  },
});

let run = 0;
const newAccount = () => `log-${++run}`;

async function seed(entries: readonly UsageEntry[]): Promise<void> {
  const outcome = await putLedgerEntries(entries, { db, table });
  expect(outcome.failed).toEqual([]);
}

/** `count` one-entry requests a second apart from 10:00, request `r<i>` at second i. */
const requests = (accountId: string, count: number, overrides: (i: number) => Partial<UsageEntry> = () => ({})) =>
  Array.from({ length: count }, (_, i) =>
    usageEntry({
      accountId,
      requestId: `r${String(i).padStart(5, '0')}`,
      at: new Date(Date.UTC(2026, 6, 1, 10) + i * 1000).toISOString(),
      ...overrides(i),
    }),
  );

/** Every page of a query, following the cursors, with the Query calls each made. */
async function everyPage(accountId: string, query: Record<string, string>) {
  const pages: { rows: RequestRow[]; queries: number }[] = [];
  let cursor: string | undefined;
  do {
    queries = 0;
    const page = await requestLogPage(
      reader(),
      accountId,
      parseRequestLogQuery({ ...query, ...(cursor ? { cursor } : {}) }),
    );
    pages.push({ rows: page.requests, queries });
    cursor = page.nextCursor;
  } while (cursor);
  return pages;
}

const fieldOf = (run: () => unknown): string | undefined => {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError);
    return (error as UsageError).field;
  }
  return undefined;
};

describe('the query', () => {
  test('defaults: the whole ledger, 50 a page, no filter', () => {
    expect(parseRequestLogQuery({})).toEqual({ fromSk: 'LEDGER#', toSk: 'LEDGER#\uffff', limit: 50 });
  });

  test('from and to bound the sort keys; a date means its whole UTC day', () => {
    expect(parseRequestLogQuery({ from: '2026-07-01', to: '2026-07-01' })).toMatchObject({
      fromSk: 'LEDGER#2026-07-01T00:00:00.000Z',
      toSk: 'LEDGER#2026-07-01T23:59:59.999Z#\uffff',
    });
  });

  test('a cursor continues below its request, within `to`', () => {
    const position = 'LEDGER#2026-07-01T10:00:00.000Z#r00001#';
    expect(parseRequestLogQuery({ cursor: cursorOf(position) }).toSk).toBe(position);
    expect(parseRequestLogQuery({ cursor: cursorOf(position), to: '2026-06-30' }).toSk).toBe(
      'LEDGER#2026-06-30T23:59:59.999Z#\uffff',
    );
  });

  test.each([
    ['from', { from: 'yesterday' }],
    ['from', { from: '2026-07-02', to: '2026-07-01' }],
    ['to', { to: '2026-02-30' }],
    ['limit', { limit: '0' }],
    ['limit', { limit: '201' }],
    ['limit', { limit: '1.5' }],
    ['limit', { limit: '' }],
    ['keyId', { keyId: 'KEY' }],
    ['model', { model: 'a b' }],
    ['model', { model: 'x'.repeat(201) }],
    ['route', { route: 'Chat' }],
    ['status', { status: '99' }],
    ['status', { status: '600' }],
    ['status', { status: 'ok' }],
    ['cursor', { cursor: 'not a cursor' }],
    ['cursor', { cursor: cursorOf('ACCOUNT#other#L0') }],
    ['cursor', { cursor: cursorOf('LEDGER#2026-07-01T10:00:00.000Z#r1#') + 'A' }],
    ['cursor', { cursor: cursorOf('LEDGER#2026-07-01T10:00:00.000Z#r#1#') }],
    ['cursor', { cursor: 'x'.repeat(601) }],
  ])('a bad %s is refused, naming it', (field, query) => {
    expect(fieldOf(() => parseRequestLogQuery(query))).toBe(field);
  });

  test('every valid filter is kept', () => {
    expect(
      parseRequestLogQuery({ keyId: 'none', model: 'openai/gpt-5', route: 'chat-completions', status: '429' }),
    ).toMatchObject({ keyId: 'none', model: 'openai/gpt-5', route: 'chat-completions', status: 429 });
  });
});

describe('pages of requests', () => {
  test('newest first, each request once, over every shard, a page after another', async () => {
    const accountId = newAccount();
    await seed(requests(accountId, 230));
    const pages = await everyPage(accountId, { limit: '50' });
    const ids = pages.flatMap((page) => page.rows.map((row) => row.id));
    expect(ids).toEqual(Array.from({ length: 230 }, (_, i) => `r${String(229 - i).padStart(5, '0')}`));
    expect(pages.map((page) => page.rows.length)).toEqual([50, 50, 50, 50, 30]);
    for (const page of pages) expect(page.queries).toBeLessThanOrEqual(PAGE_QUERY_BUDGET);
  });

  test('a log of whole pages ends on its last full page: no empty page after it', async () => {
    const accountId = newAccount();
    await seed(requests(accountId, 100));
    expect((await everyPage(accountId, { limit: '50' })).map((page) => page.rows.length)).toEqual([50, 50]);
  });

  test("a request's attempts in different shards are one row: the fallback, its tokens, cost and timings", async () => {
    const accountId = newAccount();
    const at = '2026-07-01T12:00:00.000Z';
    const attempts = [
      { model: 'gpt-5', status: 429, outcome: 'rate_limit', durationMs: 40, costMicroUsd: 0 },
      { model: 'gpt-5', status: 503, outcome: 'upstream_error', durationMs: 60, costMicroUsd: 0 },
      {
        model: 'claude-sonnet-4',
        provider: 'anthropic',
        status: 200,
        outcome: 'ok',
        durationMs: 900,
        firstTokenMs: 120,
      },
    ].map((attempt, sequence) => usageEntry({ accountId, requestId: 'fallen', sequence, at, ...attempt }));
    expect(new Set(attempts.map((entry) => ledgerShard(entry.requestId, entry.sequence))).size).toBeGreaterThan(1);
    await seed([...attempts, ...requests(accountId, 3)]);
    const [row, ...older] = (await requestLogPage(reader(), accountId, parseRequestLogQuery({}))).requests;
    expect(row).toEqual({
      id: 'fallen',
      time: at,
      route: 'chat-completions',
      keyId: 'key-1',
      model: 'claude-sonnet-4',
      provider: 'anthropic',
      fallbackFrom: 'gpt-5',
      attempts: 3,
      status: 200,
      outcome: 'ok',
      cached: false,
      tokens: { prompt: 30, completion: 15, total: 45 },
      cost: 0.0001,
      priced: true,
      latencyMs: 1000,
      timeToFirstTokenMs: 120,
      guardrails: null,
    });
    expect(older.map((r) => [r.id, r.fallbackFrom, r.latencyMs])).toEqual([
      ['r00002', null, null],
      ['r00001', null, null],
      ['r00000', null, null],
    ]);
  });

  test('from and to select by start time, both inclusive', async () => {
    const accountId = newAccount();
    await seed(requests(accountId, 10));
    const page = await requestLogPage(
      reader(),
      accountId,
      parseRequestLogQuery({ from: '2026-07-01T10:00:03Z', to: '2026-07-01T10:00:05Z' }),
    );
    expect(page.requests.map((row) => row.id)).toEqual(['r00005', 'r00004', 'r00003']);
    expect(page.nextCursor).toBeUndefined();
  });

  test('filters match the row: key, model served, route and last status', async () => {
    const accountId = newAccount();
    await seed(
      requests(accountId, 40, (i) => ({
        keyId: i % 2 === 0 ? 'key-even' : undefined,
        model: i % 4 === 0 ? 'gpt-5-mini' : 'gpt-5',
        route: i % 5 === 0 ? 'search' : 'chat-completions',
        status: i % 8 === 0 ? 429 : 200,
      })),
    );
    const ids = async (query: Record<string, string>) =>
      (await everyPage(accountId, query)).flatMap((page) => page.rows.map((row) => row.id));
    const expected = (keep: (i: number) => boolean) =>
      Array.from({ length: 40 }, (_, i) => 39 - i)
        .filter(keep)
        .map((i) => `r${String(i).padStart(5, '0')}`);
    expect(await ids({ keyId: 'none', limit: '7' })).toEqual(expected((i) => i % 2 === 1));
    expect(await ids({ model: 'gpt-5-mini', limit: '3' })).toEqual(expected((i) => i % 4 === 0));
    expect(await ids({ route: 'search' })).toEqual(expected((i) => i % 5 === 0));
    expect(await ids({ status: '429', model: 'gpt-5-mini' })).toEqual(expected((i) => i % 8 === 0));
  });

  test('a filter that matches little ends pages at the read budget, fewer rows and a cursor, and still finds it', async () => {
    const accountId = newAccount();
    await seed(requests(accountId, 3000, (i) => ({ model: i === 0 ? 'the-rare-one' : 'gpt-5' })));
    const pages = await everyPage(accountId, { model: 'the-rare-one', limit: '10' });
    expect(pages.length).toBeGreaterThan(1);
    for (const page of pages) expect(page.queries).toBeLessThanOrEqual(PAGE_QUERY_BUDGET);
    expect(pages.slice(0, -1).every((page) => page.rows.length === 0)).toBe(true);
    expect(pages.at(-1)!.rows.map((row) => row.id)).toEqual(['r00000']);
  });

  test("another account's ledger is not read", async () => {
    const [mine, theirs] = [newAccount(), newAccount()];
    await seed(requests(theirs, 5));
    expect(await requestLogPage(reader(), mine, parseRequestLogQuery({}))).toEqual({ requests: [] });
  });
});
