import fc from 'fast-check';
import { dynamo, tableName } from '../../lambdas/store/dynamo.js';
import type { DynamoDb } from '../../lambdas/store/dynamodb-client.js';
import type { UsageEntry } from '../../lambdas/store/usage-items.js';
import { putLedgerEntries } from '../../lambdas/store/usage-ledger-puts.js';
import { LEDGER_SHARDS } from '../../lambdas/store/usage-ledger-shards.js';
import {
  PAGE_QUERY_BUDGET,
  parseRequestLogQuery,
  REQUEST_LOG_QUERY,
  requestLogPage,
  type RequestRow,
} from '../../lambdas/usage/request-log.js';
import { useGateway } from './support/gateway-fixture.js';
import { bearer, call, type Answer } from './support/http.js';
import { ledgerEntries } from './support/ledger-entries.js';
import { createKey, provisionAccount } from './support/provisioning.js';

/**
 * The request log over loopback (docs/interface.md §4.8.1): requests made through the gateway
 * come back one row each, newest first, paged by cursor, to their own account only; and a
 * ledger of 10,000 requests pages at the same bounded number of DynamoDB reads a page.
 */
const local = useGateway({
  runtimeTables: true,
  account: 'request-log',
  key: { via: 'admin', body: { type: 'secret', rateLimit: 10000 } },
  simulator: 'openrouter',
  resetEach: true,
});

const PRIMARY_MODEL = 'deepseek/deepseek-v3.2';

const requestLog = (query: string, headers: Record<string, string> = bearer(local.key)) =>
  call(local.gateway.url(`/api/v1/requests${query}`), { headers });

function chat(content: string, extra: Record<string, unknown> = {}): Promise<Answer> {
  return call(local.gateway.url('/api/v1/chat/completions'), {
    headers: bearer(local.key),
    body: { model: 'deepseek', messages: [{ role: 'user', content }], ...extra },
  });
}

/** Every row of the log, page by page (`limit` a page), with each page's answer. */
async function everyRow(limit: number, headers?: Record<string, string>): Promise<RequestRow[]> {
  const rows: RequestRow[] = [];
  let cursor: string | undefined;
  do {
    const page = await requestLog(`?limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`, headers);
    expect(page.status).toBe(200);
    expect(page.body.data.requests.length).toBeLessThanOrEqual(limit);
    rows.push(...page.body.data.requests);
    cursor = page.body.data.nextCursor;
  } while (cursor);
  return rows;
}

describe('requests made through the gateway', () => {
  const made: { id: string; kind: string }[] = [];

  beforeAll(async () => {
    const plain = await chat(`plain ${Math.random()}`);
    expect(plain.status).toBe(200);
    made.push({ id: plain.headers.get('x-request-id')!, kind: 'plain' });

    await local.simulator.fault('status:503', 10, PRIMARY_MODEL);
    const fallen = await chat(`fallback ${Math.random()}`, { retries: 0, fallback: ['claude'] });
    expect(fallen.status).toBe(200);
    expect(fallen.headers.get('x-fallback-from')).toBe('deepseek');
    await local.simulator.reset();
    made.push({ id: fallen.headers.get('x-request-id')!, kind: 'fallback' });

    const question = `cache me ${Math.random()}`;
    const miss = await chat(question);
    expect(miss.headers.get('x-cache')).toBe('MISS');
    made.push({ id: miss.headers.get('x-request-id')!, kind: 'miss' });
    // The answer is stored after the response: ask again once it is there.
    let hit: Answer | undefined;
    for (let tries = 0; tries < 50 && hit?.headers.get('x-cache') !== 'HIT'; tries++) {
      await new Promise((done) => setTimeout(done, 100));
      hit = await chat(question);
      if (hit.headers.get('x-cache') !== 'HIT') made.push({ id: hit.headers.get('x-request-id')!, kind: 'miss' });
    }
    expect(hit!.headers.get('x-cache')).toBe('HIT');
    made.push({ id: hit!.headers.get('x-request-id')!, kind: 'cached' });

    const streamed = await chat(`stream ${Math.random()}`, { stream: true });
    expect(streamed.status).toBe(200);
    made.push({ id: streamed.headers.get('x-request-id')!, kind: 'streamed' });

    // Entries are written after each response: wait for every request's.
    const { accountId } = local.account;
    for (const { id, kind } of made) await ledgerEntries(local.gateway, accountId, id, kind === 'fallback' ? 2 : 1);
  }, 120_000);

  test('one row each, newest first, with what each request did', async () => {
    const answer = await requestLog('');
    expect(answer.status).toBe(200);
    const rows = answer.body.data.requests as RequestRow[];
    const byKind = (kind: string) => rows.find((row) => row.id === made.find((m) => m.kind === kind)!.id)!;
    expect(rows.length).toBe(made.length);
    expect(rows.map((row) => row.time)).toEqual([...rows.map((row) => row.time)].sort().reverse());
    expect(rows[0]!.id).toBe(made.at(-1)!.id);
    for (const row of rows) expect(row).toMatchObject({ route: 'chat-completions', keyId: local.keyId });

    expect(byKind('plain')).toMatchObject({
      model: PRIMARY_MODEL,
      fallbackFrom: null,
      attempts: 1,
      status: 200,
      outcome: 'ok',
      cached: false,
    });
    expect(byKind('plain').tokens.total).toBeGreaterThan(0);
    expect(byKind('plain').cost).toBeGreaterThan(0);
    expect(byKind('plain').latencyMs).toEqual(expect.any(Number));

    const fallback = byKind('fallback');
    expect(fallback).toMatchObject({ fallbackFrom: PRIMARY_MODEL, status: 200, outcome: 'ok', cached: false });
    expect(fallback.model).not.toBe(PRIMARY_MODEL);
    expect(fallback.attempts).toBeGreaterThanOrEqual(2);

    expect(byKind('cached')).toMatchObject({ cached: true, outcome: 'cache_hit', cost: 0, latencyMs: null });
    expect(byKind('streamed').timeToFirstTokenMs).toEqual(expect.any(Number));
    expect(answer.body.data.nextCursor).toBeUndefined();
  });

  test('pages by cursor give the same rows, each once; the dashboard session reads the same log', async () => {
    const whole = (await requestLog('')).body.data.requests as RequestRow[];
    expect(await everyRow(2)).toEqual(whole);
    expect(await everyRow(1, local.account.session)).toEqual(whole);
  });

  test('filters: by model and by status', async () => {
    const whole = (await requestLog('')).body.data.requests as RequestRow[];
    const served = (await requestLog(`?model=${encodeURIComponent(PRIMARY_MODEL)}`)).body.data.requests as RequestRow[];
    expect(served.map((row) => row.id)).toEqual(
      whole.filter((row) => row.model === PRIMARY_MODEL).map((row) => row.id),
    );
    expect((await requestLog('?status=503')).body.data.requests).toEqual([]);
    expect((await requestLog(`?keyId=none`)).body.data.requests).toEqual([]);
  });

  test('another account sees none of them', async () => {
    const other = await provisionAccount(local.gateway, 'request-log-other');
    const { key } = await createKey(local.gateway, other);
    const answer = await requestLog('', bearer(key));
    expect(answer.status).toBe(200);
    expect(answer.body.data).toEqual({ requests: [] });
    // A cursor names only a position: with it, another account still reads its own ledger.
    const mine = await requestLog('?limit=1');
    const following = await requestLog(`?cursor=${mine.body.data.nextCursor}`, bearer(key));
    expect(following.body.data).toEqual({ requests: [] });
  });

  test.each([
    ['?limit=0', 'limit'],
    ['?limit=abc', 'limit'],
    ['?from=tomorrow', 'from'],
    ['?from=2026-07-02&to=2026-07-01', 'from'],
    ['?status=9999', 'status'],
    ['?keyId=not-a-key', 'keyId'],
    ['?route=%2F', 'route'],
    ['?cursor=AAAA', 'cursor'],
    ['?cursor=%25%25', 'cursor'],
  ])('%s is a 400 naming %s', async (query, field) => {
    const answer = await requestLog(query);
    expect(answer.status).toBe(400);
    expect(answer.body.error).toMatchObject({ code: 'BAD_REQUEST', field });
  });

  test('any query is a 200 or a 400 naming one of its parameters, never a 5xx', async () => {
    const cursor = (await requestLog('?limit=1')).body.data.nextCursor as string;
    const value = fc.oneof(
      fc.string(),
      fc.constantFrom('', '0', '1', '200', '201', '-1', '1e3', 'none', 'null', '2026-11-27', '2026-13-01', cursor),
      fc.constantFrom(`${cursor}A`, cursor.slice(1), 'LEDGER#', '%00', '\u00e9', 'x'.repeat(2000)),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.dictionary(fc.constantFrom(...REQUEST_LOG_QUERY, 'unexpected'), value, { maxKeys: 4 }),
        async (query) => {
          const answer = await requestLog(`?${new URLSearchParams(query)}`);
          expect([200, 400]).toContain(answer.status);
          if (answer.status === 400) expect(Object.keys(query)).toContain(answer.body.error.field);
        },
      ),
      { numRuns: 60 },
    );
  });

  test('a tampered cursor is a 400 naming it, never a 5xx', async () => {
    const cursor = (await requestLog('?limit=1')).body.data.nextCursor as string;
    const decoded = Buffer.from(cursor, 'base64url').toString();
    for (const tampered of [
      cursor.slice(0, -2),
      `${cursor}x`,
      Buffer.from(decoded.replace('LEDGER#', 'TOTALS#')).toString('base64url'),
      Buffer.from(`${decoded}0000`).toString('base64url'),
      Buffer.from(decoded.replace(/#$/, '#x#')).toString('base64url'),
    ]) {
      const answer = await requestLog(`?cursor=${tampered}`);
      expect([tampered, answer.status, answer.body.error?.field]).toEqual([tampered, 400, 'cursor']);
    }
  });
});

describe("a key that opted in to keeping its requests' content", () => {
  const keyUrl = () => local.gateway.url('/api/v1/keys');
  const contentOf = (id: string, key: string) =>
    call(local.gateway.url(`/api/v1/requests/${encodeURIComponent(id)}`), { headers: bearer(key) });

  test('keeps the prompt as it went upstream and the answer as it was received, whole or streamed; others keep none', async () => {
    const created = await call(keyUrl(), {
      headers: local.account.session,
      body: { name: 'kept', contentLog: { retentionDays: 7 } },
    });
    expect(created.status).toBe(201);
    expect(created.body.data.contentLog).toEqual({ retentionDays: 7 });
    const key: string = created.body.data.key;
    const ask = (content: string, extra: Record<string, unknown> = {}) =>
      call(local.gateway.url('/api/v1/chat/completions'), {
        headers: { ...bearer(key), 'X-Cache': 'no-cache' },
        body: { model: 'deepseek', messages: [{ role: 'user', content }], ...extra },
      });

    const whole = await ask('Mail jane@example.com about the [sim:reply=kept answer]', {
      guardrails: { enabled: ['pii'] },
    });
    expect(whole.status).toBe(200);
    const streamed = await ask('[sim:reply=streamed answer]', { stream: true });
    expect(streamed.status).toBe(200);

    const read = async (id: string) => {
      for (let i = 0; i < 200; i++) {
        const answer = await contentOf(id, key);
        if (answer.status !== 404) return answer;
        await new Promise((done) => setTimeout(done, 50));
      }
      return contentOf(id, key);
    };
    const wholeContent = await read(whole.headers.get('x-request-id')!);
    expect(wholeContent.status).toBe(200);
    expect(wholeContent.body.data).toMatchObject({
      requestId: whole.headers.get('x-request-id'),
      route: 'chat-completions',
      truncated: false,
      answer: [{ role: 'assistant', content: whole.body.choices[0].message.content }],
    });
    // The prompt as it went upstream: redacted, never the address itself.
    expect(JSON.stringify(wholeContent.body.data.messages)).toContain('[REDACTED_EMAIL]');
    expect(JSON.stringify(wholeContent.body.data)).not.toContain('jane@example.com');

    const streamedContent = await read(streamed.headers.get('x-request-id')!);
    expect(streamedContent.status).toBe(200);
    expect(streamedContent.body.data.answer).toEqual([{ role: 'assistant', content: 'streamed answer' }]);

    // A key that did not opt in keeps nothing; another account reads nothing of this one's.
    const plain = await chat('[sim:reply=not kept]');
    expect(plain.status).toBe(200);
    expect((await contentOf(plain.headers.get('x-request-id')!, local.key)).status).toBe(404);
    const other = await provisionAccount(local.gateway, 'content-other');
    const { key: otherKey } = await createKey(local.gateway, other);
    const foreign = await contentOf(whole.headers.get('x-request-id')!, otherKey);
    expect([foreign.status, foreign.body.error.code]).toEqual([404, 'NOT_FOUND']);
  });

  test('a retention out of range is refused naming it; an id that cannot be a request is refused naming it', async () => {
    const refused = await call(keyUrl(), {
      headers: local.account.session,
      body: { contentLog: { retentionDays: 0 } },
    });
    expect([refused.status, refused.body.error.code]).toEqual([400, 'BAD_REQUEST']);
    expect(JSON.stringify(refused.body.error)).toContain('contentLog');
    const badId = await contentOf('a#b', local.key);
    expect([badId.status, badId.body.error.field]).toEqual([400, 'id']);
  });
});

describe('a ledger of 10,000 requests', () => {
  const REQUESTS = 10_000;
  const LIMIT = 200;
  let accountId: string;
  let key: string;

  beforeAll(async () => {
    const account = await provisionAccount(local.gateway, 'request-log-busy');
    accountId = account.accountId;
    key = (await createKey(local.gateway, account)).key;
    // With the ledger's own writer: each entry one conditional put on its shard. Every tenth
    // request fell back (two entries), so requests span shards as real ones do.
    const start = Date.UTC(2026, 5, 1);
    const entries: UsageEntry[] = [];
    for (let i = 0; i < REQUESTS; i++) {
      const base = {
        requestId: `seeded-${String(i).padStart(5, '0')}`,
        accountId,
        route: 'chat-completions',
        provider: 'openrouter',
        promptTokens: 10,
        completionTokens: 5,
        costMicroUsd: 10,
        priced: true,
        estimated: false,
        cached: false,
        at: new Date(start + i * 1000).toISOString(),
      };
      if (i % 10 === 0) entries.push({ ...base, sequence: 0, model: 'a', status: 503, outcome: 'overload' });
      entries.push({ ...base, sequence: i % 10 === 0 ? 1 : 0, model: 'b', status: 200, outcome: 'ok' });
    }
    const outcome = await putLedgerEntries(entries, { db: dynamo(), table: tableName('usage') });
    expect(outcome.failed).toEqual([]);
  }, 300_000);

  test('pages through every request newest first, each page at the same bounded number of reads', async () => {
    let queries = 0;
    const counted: Pick<DynamoDb, 'query'> = {
      query: (input) => {
        queries++;
        return dynamo().query(input);
      },
    };
    const perPage: number[] = [];
    const ids: string[] = [];
    const pages = REQUESTS / LIMIT;
    // Every page over HTTP; the first two, one in the middle and the last two also read here,
    // through a client that counts its calls: what the route read for them.
    const recounted = new Set([0, 1, Math.floor(pages / 2), pages - 2, pages - 1]);
    let cursor: string | undefined;
    let n = 0;
    do {
      const query = { limit: String(LIMIT), ...(cursor ? { cursor } : {}) };
      const answer = await requestLog(`?${new URLSearchParams(query)}`, bearer(key));
      expect(answer.status).toBe(200);
      const page = answer.body.data as { requests: { id: string }[]; nextCursor?: string };
      if (recounted.has(n)) {
        queries = 0;
        const read = await requestLogPage(
          { db: counted, table: tableName('usage') },
          accountId,
          parseRequestLogQuery(query),
        );
        perPage.push(queries);
        expect(read).toEqual(page);
      }
      ids.push(...page.requests.map((row) => row.id));
      cursor = page.nextCursor;
      n++;
    } while (cursor);

    expect(ids).toEqual(
      Array.from({ length: REQUESTS }, (_, i) => `seeded-${String(REQUESTS - 1 - i).padStart(5, '0')}`),
    );
    expect(n).toBe(pages);
    expect(perPage).toHaveLength(recounted.size);
    // Constant per page: the deepest page costs what the first did, one Query a shard (the seeded
    // ids spread evenly enough that no shard runs dry before a page is full), within the budget.
    expect(new Set(perPage)).toEqual(new Set([LEDGER_SHARDS]));
    expect(LEDGER_SHARDS).toBeLessThanOrEqual(PAGE_QUERY_BUDGET);
  }, 300_000);
});
