import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { FULL_EXPORT_COLUMNS, INCREMENTAL_EXPORT_COLUMNS } from '../../lib/constructs/export-columns.js';
import { fullExportLine, incrementalExportLine, itemsOfExport } from '../../lambdas/usage/export-format.js';
import { exportedUsageReport } from '../../lambdas/usage/exported-usage.js';
import { ledgerShardPks } from '../../lambdas/store/usage-ledger-shards.js';
import { totalsPk } from '../../lambdas/store/usage-totals.js';
import { readLikeOpenXSerde } from '../support/glue-table.js';
import { useGateway } from './support/gateway-fixture.js';
import { bearer, call } from './support/http.js';
import { storedItems } from './support/ledger-entries.js';

/**
 * Real ledger items, written by the local runtime for chat completions and a web search, turned
 * into DynamoDB export lines (full and incremental) and read back: the totals equal
 * GET /api/v1/usage's, and every line reads cleanly through the Glue tables' declared columns.
 */
const local = useGateway({ account: 'exports', key: { via: 'dashboard' } });
const DAY_MS = 86_400_000;

beforeAll(async () => {
  for (const [model, content] of [
    ['gpt', 'first'],
    ['gpt', 'second'],
    ['deepseek', 'third'],
  ]) {
    const answer = await call(local.gateway.url('/api/v1/chat/completions'), {
      headers: bearer(local.key),
      body: { model, messages: [{ role: 'user', content }] },
    });
    expect(answer.status).toBe(200);
  }
  const search = await call(local.gateway.url('/api/v1/search'), {
    headers: bearer(local.key),
    body: { query: 'exports' },
  });
  expect(search.status).toBe(200);
});

type Item = Record<string, AttributeValue>;

/**
 * The account's usage items in their stored (typed) form (its ledger shards and its totals),
 * once the 4 ledger entries have landed and the totals count them (600 reads at most).
 */
async function usageItems(): Promise<Item[]> {
  const pks = [...ledgerShardPks(local.account.accountId), totalsPk(local.account.accountId)];
  for (let poll = 1; ; poll++) {
    const items = await storedItems(local.gateway, pks);
    const ledger = items.filter((item) => item['type']?.S === 'ledger').length;
    const counted = items
      .filter((item) => item['type']?.S === 'day')
      .reduce((sum, item) => sum + Number(item['requests']?.N), 0);
    if ((ledger >= 4 && counted >= ledger) || poll >= 600) return items;
    await new Promise((done) => setTimeout(done, 50));
  }
}

/** The last two UTC days as whole days: what the usage endpoint answers from its day totals. */
function period() {
  const today = new Date().toISOString().slice(0, 10);
  const yesterday = new Date(Date.now() - DAY_MS).toISOString().slice(0, 10);
  return {
    query: `?from=${yesterday}&to=${today}`,
    range: { fromMs: Date.parse(`${yesterday}T00:00:00Z`), toMs: Date.parse(`${today}T00:00:00Z`) + DAY_MS - 1 },
  };
}

async function reported(): Promise<unknown> {
  const answer = await call(local.gateway.url(`/api/v1/usage${period().query}`), { headers: bearer(local.key) });
  expect(answer.status).toBe(200);
  return answer.body.data;
}

test('a full export of the ledger adds up to what GET /api/v1/usage reports', async () => {
  const items = await usageItems();
  const ledger = items.filter((item) => item['type']?.S === 'ledger');
  expect(ledger.map((item) => item['unit']?.S ?? 'tokens').sort()).toEqual(['search', 'tokens', 'tokens', 'tokens']);
  const lines = items.map(fullExportLine);
  const report = exportedUsageReport(itemsOfExport(lines), local.account.accountId, period().range);
  expect(report.totalRequests).toBe(4);
  expect(report).toEqual(await reported());
});

test('incremental exports (overlapping, with day totals rewritten) add up to the same record', async () => {
  const items = await usageItems();
  const micros = (item: Item) => Date.parse(item['at']?.S ?? new Date().toISOString()) * 1000;
  const firstHalf = items.slice(0, Math.ceil(items.length / 2));
  // Two windows that overlap on purpose: an entry exported twice still counts once.
  const first = firstHalf.map((item) => incrementalExportLine({ writtenAtMicros: micros(item), newImage: item }));
  const second = items.map((item) =>
    incrementalExportLine({ writtenAtMicros: micros(item) + 1, newImage: item, oldImage: item }),
  );
  const report = exportedUsageReport(itemsOfExport([...first, '', ...second]), local.account.accountId, period().range);
  expect(report).toEqual(await reported());
});

test('a deleted item leaves the export, and an entry never counts twice', async () => {
  const items = await usageItems();
  const ledger = items.filter((item) => item['type']?.S === 'ledger');
  const deleted = incrementalExportLine({ writtenAtMicros: Date.now() * 1000, oldImage: ledger[0]! });
  const lines = [...items.map(fullExportLine), ...items.map(fullExportLine), deleted];
  const report = exportedUsageReport(itemsOfExport(lines), local.account.accountId, period().range);
  expect(report.totalRequests).toBe(3);
});

test('every export line reads through the Glue columns as the OpenX JSON SerDe would', async () => {
  const items = await usageItems();
  expect(items.some((item) => item['type']?.S === 'day')).toBe(true);
  for (const item of items) {
    const full = readLikeOpenXSerde(
      FULL_EXPORT_COLUMNS.map((c) => ({ Name: c.name, Type: c.type })),
      fullExportLine(item),
    );
    expect({ mismatches: full.mismatches, undeclared: full.undeclared }).toEqual({ mismatches: [], undeclared: [] });
    const image = full.row['item'] as any;
    expect(image.pk.s).toBe(item['pk']!.S);
    expect(image.costmicrousd.n).toBe(item['costMicroUsd']!.N);
    const incremental = readLikeOpenXSerde(
      INCREMENTAL_EXPORT_COLUMNS.map((c) => ({ Name: c.name, Type: c.type })),
      incrementalExportLine({ writtenAtMicros: 1_700_000_000_000_000, newImage: item }),
    );
    expect({ mismatches: incremental.mismatches, undeclared: incremental.undeclared }).toEqual({
      mismatches: [],
      undeclared: [],
    });
    expect((incremental.row['keys'] as any).sk.s).toBe(item['sk']!.S);
    expect((incremental.row['metadata'] as any).writetimestampmicros.n).toBe('1700000000000000');
  }
  const ledger = items.find((item) => item['type']?.S === 'ledger' && !item['unit'])!;
  const row = readLikeOpenXSerde(
    FULL_EXPORT_COLUMNS.map((c) => ({ Name: c.name, Type: c.type })),
    fullExportLine(ledger),
  ).row['item'] as any;
  expect(row.priced.bool).toBe(true);
  expect(row.unit).toBeNull(); // absent attributes read as null
});

test('the reader catches an attribute the Glue table does not declare', () => {
  const read = readLikeOpenXSerde(
    FULL_EXPORT_COLUMNS.map((c) => ({ Name: c.name, Type: c.type })),
    JSON.stringify({ Item: { pk: { S: 'a' }, invoice: { S: 'x' }, costMicroUsd: { S: 'not a number tag' } } }),
  );
  expect(read.undeclared).toEqual(['item.invoice', 'item.costmicrousd.S']);
});
