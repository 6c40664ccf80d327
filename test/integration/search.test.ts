import { settledUsage } from './support/settled-usage.js';
import fc from 'fast-check';
import { bearer, call, type Answer } from './support/http.js';
import { ledgerEntries } from './support/ledger-entries.js';
import { useGateway } from './support/gateway-fixture.js';
import { SIMULATOR_API_KEY } from '../../local/simulators/simulator-registry.js';

/** POST /api/v1/search over HTTP against the local runtime and its Exa simulator (docs/interface.md §4.4). */
const local = useGateway({
  account: 'search',
  key: { via: 'dashboard' },
  simulator: 'exa',
  // These tests send more than Exa's 10 searches a second; the limiter's own test sets it back.
  unthrottled: true,
  resetEach: true,
});

const search = (body: unknown, headers: Record<string, string> = bearer(local.key)) =>
  call(local.gateway.url('/api/v1/search'), { headers, body });

async function sentToExa(): Promise<any> {
  const requests = await local.simulator.requests();
  expect(requests).toHaveLength(1);
  return requests[0]!;
}

function expectBadRequest(answer: Answer, field: string): void {
  expect(answer.status).toBe(400);
  expect(answer.body.success).toBe(false);
  expect(answer.body.error.code).toBe('BAD_REQUEST');
  expect(answer.body.error.field).toBe(field);
  expect(answer.body.error.message).toContain(field);
}

describe('answers', () => {
  it('uses the defaults: 10 neural results with summaries as snippets, and the provider cost', async () => {
    const answer = await search({ query: 'vector databases benchmark' });
    expect(answer.status).toBe(200);
    expect(answer.body.success).toBe(true);
    const data = answer.body.data;
    expect(data.query).toBe('vector databases benchmark');
    expect(data.results).toHaveLength(10);
    expect(data.auto_prompt).toBeNull();
    expect(data.cost_usd).toBeCloseTo(0.017, 9); // $7/1000 searches + 10 summaries at $1/1000
    expect(typeof data.request_id).toBe('string');
    for (const result of data.results) {
      expect(Object.keys(result).sort()).toEqual(
        ['author', 'favicon', 'published_date', 'score', 'snippet', 'title', 'url'].sort(),
      );
      expect(result.url).toMatch(/^https:\/\//);
      expect(result.title).toContain('vector databases benchmark');
      expect(result.snippet).toMatch(/^This page explains vector databases benchmark/);
      expect(result.score).toBeGreaterThanOrEqual(0);
      expect(result.score).toBeLessThanOrEqual(1);
      expect(Number.isNaN(Date.parse(result.published_date))).toBe(false);
      expect(result.favicon).toMatch(/favicon\.ico$/);
    }
    const sent = await sentToExa();
    expect(sent.path).toBe('/search');
    expect(sent.headers['x-api-key']).toBe(SIMULATOR_API_KEY);
    expect(sent.body).toMatchObject({ query: 'vector databases benchmark', type: 'neural', numResults: 10 });
    expect(sent.body.contents.summary).toBe(true);
    expect(sent.body.startPublishedDate).toBeUndefined();
  });

  it('passes num_results through, 1 and 25', async () => {
    expect((await search({ query: 'one', num_results: 1 })).body.data.results).toHaveLength(1);
    const many = await search({ query: 'many', num_results: 25 });
    expect(many.body.data.results).toHaveLength(25);
    expect(many.body.data.cost_usd).toBeCloseTo(0.007 + 0.015 + 0.025, 9);
  });

  it('gives the provider score for neural searches, and a rank-derived one where the provider gives none', async () => {
    const neural = (await search({ query: 'scores', num_results: 4 })).body.data.results;
    expect(neural.map((r: any) => r.score)).toEqual([0.9, 0.88, 0.86, 0.84]);
    for (const type of ['auto', 'keyword']) {
      await local.simulator.reset();
      const answer = await search({ query: 'scores', num_results: 4, type });
      expect(answer.body.data.results.map((r: any) => r.score)).toEqual([1, 0.75, 0.5, 0.25]);
      expect((await sentToExa()).body.type).toBe(type);
    }
  });

  it('without include_summary asks for no summary and snippets the highlights', async () => {
    const answer = await search({ query: 'no summary please', include_summary: false, num_results: 3 });
    expect(answer.status).toBe(200);
    expect(answer.body.data.cost_usd).toBeCloseTo(0.007, 9);
    for (const result of answer.body.data.results) expect(result.snippet).toMatch(/^The key finding about/);
    expect((await sentToExa()).body.contents.summary).toBeUndefined();
  });

  it('cuts long snippets at 500 characters on a word boundary', async () => {
    const query = 'word '.repeat(150).trim();
    const answer = await search({ query, include_summary: true, num_results: 1 });
    const snippet = answer.body.data.results[0].snippet as string;
    expect(snippet.length).toBeLessThanOrEqual(500);
    expect(snippet.endsWith('word…')).toBe(true);
  });

  it.each([
    ['7d', 7 * 86_400_000],
    ['2w', 14 * 86_400_000],
  ])('maps recency %s to a published-date lower bound', async (recency, span) => {
    const before = Date.now();
    const answer = await search({ query: 'recent news', recency, num_results: 5 });
    expect(answer.status).toBe(200);
    const since = Date.parse((await sentToExa()).body.startPublishedDate);
    expect(Math.abs(since - (before - span))).toBeLessThan(60_000);
    for (const result of answer.body.data.results)
      expect(Date.parse(result.published_date)).toBeGreaterThanOrEqual(since - 86_400_000);
  });

  it('counts months and years back on the calendar', async () => {
    for (const [recency, back] of [
      ['1m', (d: Date) => d.setUTCMonth(d.getUTCMonth() - 1)],
      ['1y', (d: Date) => d.setUTCFullYear(d.getUTCFullYear() - 1)],
    ] as const) {
      await local.simulator.reset();
      const expected = new Date();
      back(expected);
      expect((await search({ query: 'q', recency })).status).toBe(200);
      const since = Date.parse((await sentToExa()).body.startPublishedDate);
      expect(Math.abs(since - expected.getTime())).toBeLessThan(60_000);
    }
  });

  it('returns the provider rewritten query as auto_prompt when it gives one', async () => {
    const answer = await search({ query: 'rewrite me [sim:autoprompt]' });
    expect(answer.body.data.auto_prompt).toBe('rewrite me (rewritten)');
  });

  it('accepts X-API-Key and refuses a missing or wrong key', async () => {
    expect((await search({ query: 'q' }, { 'X-API-Key': local.key })).status).toBe(200);
    expect((await search({ query: 'q' }, {})).status).toBe(401);
    expect((await search({ query: 'q' }, bearer(`${local.key}x`))).status).toBe(401);
  });
});

describe('refusals name the field', () => {
  it.each([
    ['query', {}],
    ['query', { query: '' }],
    ['query', { query: '   ' }],
    ['query', { query: 'x'.repeat(1001) }],
    ['query', { query: 42 }],
    ['num_results', { query: 'q', num_results: 0 }],
    ['num_results', { query: 'q', num_results: 26 }],
    ['num_results', { query: 'q', num_results: 2.5 }],
    ['num_results', { query: 'q', num_results: '10' }],
    ['type', { query: 'q', type: 'fast' }],
    ['include_summary', { query: 'q', include_summary: 'yes' }],
    ['recency', { query: 'q', recency: '7' }],
    ['recency', { query: 'q', recency: '7x' }],
    ['recency', { query: 'q', recency: '0d' }],
    ['recency', { query: 'q', recency: '101y' }],
    ['recency', { query: 'q', recency: '99999d' }],
    ['numResults', { query: 'q', numResults: 5 }],
  ])('400 naming %s (case %#)', async (field, body) => {
    expectBadRequest(await search(body), field);
    expect(await local.simulator.requests()).toHaveLength(0);
  });

  it('accepts a query of exactly 1000 characters', async () => {
    expect((await search({ query: 'y'.repeat(1000), num_results: 1 })).status).toBe(200);
  });

  it('refuses a body that is not JSON', async () => {
    const answer = await call(local.gateway.url('/api/v1/search'), {
      headers: bearer(local.key),
      rawBody: '{"query":',
    });
    expectBadRequest(answer, 'body');
  });
});

describe('any body', () => {
  const anyValue = fc.oneof(
    fc.jsonValue(),
    fc.string(),
    fc.integer(),
    fc.double(),
    fc.constantFrom(0, 1, 25, 26, -1, 1e308, '', ' ', '7d', '0d', '101y', 'auto', 'neural', null, true, [], {}),
  );
  const plausible = {
    query: fc.oneof(fc.string({ maxLength: 1100 }), fc.constant('x'.repeat(1001))),
    num_results: fc.oneof(fc.integer({ min: -5, max: 30 }), anyValue),
    type: fc.oneof(fc.constantFrom('neural', 'keyword', 'auto', 'fast'), anyValue),
    include_summary: fc.oneof(fc.boolean(), anyValue),
    recency: fc.oneof(fc.stringMatching(/^[0-9]{1,6}[dwmyx]$/), anyValue),
  };
  const bodies = fc.oneof(
    fc
      .dictionary(fc.constantFrom('query', 'num_results', 'recency', 'unexpected', '__proto__'), anyValue)
      .chain((base) => fc.record(plausible, { requiredKeys: [] }).map((good) => JSON.stringify({ ...base, ...good }))),
    fc.jsonValue().map((value) => JSON.stringify(value)),
    fc.string(),
  );

  it('never yields a 5xx, and every 400 names its field', async () => {
    await fc.assert(
      fc.asyncProperty(bodies, async (rawBody) => {
        const answer = await call(local.gateway.url('/api/v1/search'), { headers: bearer(local.key), rawBody });
        expect(answer.status).toBeLessThan(500);
        expect([200, 400]).toContain(answer.status);
        if (answer.status === 400) {
          expect(typeof answer.body.error.field).toBe('string');
          expect(answer.body.error.field.length).toBeGreaterThan(0);
          expect(answer.body.error.message).toContain(answer.body.error.field);
        }
      }),
      { numRuns: 80 },
    );
  });
});

describe('upstream failures', () => {
  it.each(['status:503', 'status:500', 'status:402', 'status:401', 'reset_after_chunks:0', 'malformed_chunk'])(
    '%s → 503 SERVICE_UNAVAILABLE',
    async (fault) => {
      await local.simulator.fault(fault);
      const answer = await search({ query: 'failing' });
      expect(answer.status).toBe(503);
      expect(answer.body).toMatchObject({ success: false, error: { code: 'SERVICE_UNAVAILABLE' } });
    },
  );

  it('a proxy HTML page → 503', async () => {
    const answer = await search({ query: 'proxy [sim:html_error]' });
    expect(answer.status).toBe(503);
    expect(answer.body.error.code).toBe('SERVICE_UNAVAILABLE');
  });

  it('the provider rate limit → 429 RATE_LIMIT_EXCEEDED with Retry-After', async () => {
    await local.simulator.fault('status:429');
    const answer = await search({ query: 'limited' });
    expect(answer.status).toBe(429);
    expect(answer.body.error.code).toBe('RATE_LIMIT_EXCEEDED');
    expect(answer.headers.get('retry-after')).toBe('1');
  });
});

describe('the provider QPS limit', () => {
  afterEach(() => local.simulator.limits(null));

  it('an 11th search within a second → 429 RATE_LIMIT_EXCEEDED with Retry-After', async () => {
    await local.simulator.limits('restore');
    const answers = await Promise.all(Array.from({ length: 11 }, (_, n) => search({ query: `burst ${n}` })));
    const refused = answers.filter((answer) => answer.status === 429);
    expect(refused.length).toBeGreaterThanOrEqual(1);
    expect(refused[0]!.body.error.code).toBe('RATE_LIMIT_EXCEEDED');
    expect(refused[0]!.headers.get('retry-after')).toBe('1');
  });
});

describe('usage', () => {
  it('meters a search as one ledger entry with the provider cost', async () => {
    const answer = await search({ query: 'metered', num_results: 12 });
    const requestId = answer.headers.get('x-request-id')!;
    const [entry, ...rest] = await ledgerEntries(local.gateway, local.account.accountId, requestId, 1);
    expect(rest).toHaveLength(0);
    expect(entry).toMatchObject({
      model: 'exa/neural',
      provider: 'exa',
      route: 'search',
      promptTokens: 0,
      completionTokens: 0,
      costMicroUsd: 7_000 + 2_000 + 12_000,
      priced: true,
      estimated: false,
      status: 200,
      outcome: 'ok',
      unit: 'search',
      quantity: 1,
    });
  });

  it('meters the list price, flagged estimated, when the provider states no cost', async () => {
    const answer = await search({ query: 'free? [sim:no_cost]', num_results: 3 });
    expect(answer.body.data.cost_usd).toBeCloseTo(0.007 + 0.003, 9);
    const [entry] = await ledgerEntries(local.gateway, local.account.accountId, answer.headers.get('x-request-id')!, 1);
    expect(entry).toMatchObject({ costMicroUsd: 10_000, estimated: true });
  });

  it('meters a failed search at cost 0 with its status', async () => {
    await local.simulator.fault('status:503');
    const answer = await search({ query: 'failing', type: 'auto' });
    const [entry] = await ledgerEntries(local.gateway, local.account.accountId, answer.headers.get('x-request-id')!, 1);
    expect(entry).toMatchObject({ model: 'exa/auto', costMicroUsd: 0, status: 503, outcome: 'overload' });
  });

  it('shows searches in the usage report by model and by route', async () => {
    const answer = await search({ query: 'reported', num_results: 2, include_summary: false });
    await ledgerEntries(local.gateway, local.account.accountId, answer.headers.get('x-request-id')!, 1);
    const report = await settledUsage(local.gateway.url('/api/v1/usage'), bearer(local.key), 1);
    expect(report.status).toBe(200);
    expect(report.body.data.byModel['exa/neural'].requests).toBeGreaterThan(0);
    expect(report.body.data.byRoute.search.tokens).toBe(0);
    expect(report.body.data.byRoute.search.cost).toBeGreaterThan(0);
    // Every entry of the search route is one search, in the units as in the requests.
    expect(report.body.data.byRoute.search.units).toEqual({ search: report.body.data.byRoute.search.requests });
    expect(report.body.data.units.search).toBeGreaterThanOrEqual(report.body.data.byRoute.search.requests);
    // The whole of today is read from the day totals, which count the units as the entries do.
    const today = new Date().toISOString().slice(0, 10);
    const fromDays = await call(local.gateway.url(`/api/v1/usage?from=${today}&to=${today}`), {
      headers: bearer(local.key),
    });
    expect(fromDays.body.data.byRoute.search.units).toEqual({ search: fromDays.body.data.byRoute.search.requests });
  });

  it('never logs the provider key', async () => {
    await local.simulator.fault('status:503');
    await search({ query: 'canary' });
    await search({ query: 'canary' });
    expect(local.gateway.output).not.toContain(SIMULATOR_API_KEY);
  });
});
