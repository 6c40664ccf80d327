import { QpsLimits } from '../../../local/simulators/limits.js';
import { exaSimulator } from '../../../local/simulators/exa.js';
import { startSimulator, type RunningSimulator } from '../../../local/simulators/harness.js';

/**
 * The Exa simulator's `/contents`, streaming `/search` and QPS limits, over loopback HTTP
 * (docs/upstreams.md §5 and its "Exa fake" checklist).
 */
let sim: RunningSimulator;
beforeAll(async () => {
  sim = await startSimulator(exaSimulator);
});
afterAll(() => sim.close());
beforeEach(async () => {
  await control('DELETE', 'limits');
  await control('DELETE', 'faults');
});

const KEY = { 'x-api-key': 'sim-local-key', 'Content-Type': 'application/json' };

async function post(path: string, body: unknown, headers: Record<string, string> = KEY) {
  const response = await fetch(`${sim.url}${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
  const text = await response.text();
  return { status: response.status, headers: response.headers, text, body: parse(text) };
}

function parse(text: string): any {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

async function control(method: string, what: string, body?: unknown) {
  const response = await fetch(`${sim.url}/__sim/${what}`, {
    method,
    headers: { 'Content-Type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: (await response.json()) as any };
}

describe('POST /contents', () => {
  const urls = [
    'https://example.org/vector-databases',
    'https://example.org/notfound-page',
    'ftp://files.example.org/x',
    'https://slow.example.com/timeout',
  ];

  it('answers a 200 with a result per fetched page and a status per id, failures deterministic', async () => {
    const first = await post('/contents', { urls, text: { maxCharacters: 50 }, summary: true });
    expect(first.status).toBe(200);
    expect(typeof first.body.requestId).toBe('string');
    expect(first.body.statuses).toEqual([
      { id: urls[0], status: 'success', source: 'cached' },
      { id: urls[1], status: 'error', source: 'crawled', error: { tag: 'CRAWL_NOT_FOUND', httpStatusCode: 404 } },
      { id: urls[2], status: 'error', source: 'none', error: { tag: 'SOURCE_NOT_AVAILABLE', httpStatusCode: 400 } },
      { id: urls[3], status: 'error', source: 'crawled', error: { tag: 'CRAWL_TIMEOUT', httpStatusCode: 408 } },
    ]);
    expect(first.body.results).toHaveLength(1);
    const [page] = first.body.results;
    expect(page).toMatchObject({ id: urls[0], url: urls[0], title: expect.stringContaining('vector databases') });
    expect(page.text).toHaveLength(50);
    expect(page.summary).toEqual(expect.any(String));
    expect(page.highlights).toBeUndefined();
    expect(first.body.costDollars).toEqual({ total: 0.002, contents: { text: 0.001, summary: 0.001 } });
    const again = await post('/contents', { urls, text: { maxCharacters: 50 }, summary: true });
    expect(again.body.results).toEqual(first.body.results);
    expect(again.body.statuses).toEqual(first.body.statuses);
  });

  it('takes ids as well, and fetches text when no content field is asked', async () => {
    const answer = await post('/contents', { ids: ['https://docs.example.dev/a', 'https://docs.example.dev/b'] });
    expect(answer.status).toBe(200);
    expect(answer.body.results.map((r: { id: string }) => r.id)).toEqual([
      'https://docs.example.dev/a',
      'https://docs.example.dev/b',
    ]);
    expect(answer.body.results.every((r: { text?: string }) => typeof r.text === 'string')).toBe(true);
    expect(answer.body.costDollars).toEqual({ total: 0.002, contents: { text: 0.002 } });
  });

  it('reports no cost when no page could be fetched', async () => {
    const answer = await post('/contents', { urls: ['https://example.org/notfound'] });
    expect(answer.status).toBe(200);
    expect(answer.body.results).toEqual([]);
    expect(answer.body.costDollars).toBeUndefined();
  });

  it.each([
    [{}],
    [{ urls: [] }],
    [{ urls: 'https://example.org' }],
    [{ ids: [1] }],
    [{ urls: Array(101).fill('https://a.b/c') }],
  ])('refuses bad ids (case %#) with 400 INVALID_URLS', async (body) => {
    const answer = await post('/contents', body);
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ tag: 'INVALID_URLS', error: expect.stringContaining('ids') });
    expect(typeof answer.body.requestId).toBe('string');
  });

  it('asks for the key', async () => {
    const answer = await post('/contents', { urls }, { 'Content-Type': 'application/json' });
    expect(answer.status).toBe(401);
  });
});

describe('stream: true on /search', () => {
  it('sends OpenAI-style content chunks, then the citations, then [DONE]', async () => {
    const answer = await post('/search', {
      query: 'fusion energy',
      numResults: 3,
      stream: true,
      contents: { text: true },
    });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toBe('text/event-stream');
    const events = answer.text
      .split('\n\n')
      .filter((e) => e.length > 0)
      .map((e) => e.replace(/^data: /, ''));
    expect(events.at(-1)).toBe('[DONE]');
    const chunks = events.slice(0, -1).map((e) => JSON.parse(e));
    const content = chunks.map((c) => c.choices[0].delta.content ?? '').join('');
    expect(content).toContain('Found 3 results for fusion energy.');
    const withCitations = chunks.filter((c) => c.citations);
    expect(withCitations).toHaveLength(1);
    const plain = await post('/search', { query: 'fusion energy', numResults: 3, contents: { text: true } });
    expect(withCitations[0].citations).toEqual(
      plain.body.results.map(({ id, url, title, publishedDate, author, text }: Record<string, unknown>) => ({
        id,
        url,
        title,
        publishedDate,
        ...(author ? { author } : {}),
        text,
      })),
    );
    for (const result of plain.body.results) expect(content).toContain(result.title);
  });

  it('answers a bad streaming request with the plain JSON error', async () => {
    const answer = await post('/search', { stream: true });
    expect(answer.status).toBe(400);
    expect(answer.body.tag).toBe('INVALID_REQUEST_BODY');
  });
});

describe('QPS limits', () => {
  const burst = (path: string, count: number, body: unknown) =>
    Promise.all(Array.from({ length: count }, () => post(path, body)));
  const statuses = (answers: { status: number }[]) => answers.map((a) => a.status).sort();

  it('lists the defaults: 10 QPS on /search, 100 on /contents', async () => {
    expect((await control('GET', 'limits')).body).toEqual({ limits: { search: 10, contents: 100 } });
  });

  it('refuses the 11th search within a second with 429 RATE_LIMIT_EXCEEDED and Retry-After', async () => {
    const answers = await burst('/search', 11, { query: 'burst', numResults: 1 });
    expect(statuses(answers)).toEqual([...Array(10).fill(200), 429]);
    const refused = answers.find((a) => a.status === 429)!;
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(refused.body).toMatchObject({ tag: 'RATE_LIMIT_EXCEEDED', error: expect.stringContaining('10') });
  });

  it('admits again once the window has slid past', async () => {
    await burst('/search', 10, { query: 'fill', numResults: 1 });
    expect((await post('/search', { query: 'over', numResults: 1 })).status).toBe(429);
    await new Promise((done) => setTimeout(done, 1050));
    expect((await post('/search', { query: 'later', numResults: 1 })).status).toBe(200);
  });

  // On the limiter's own clock, not the wall's: 101 HTTP requests need not arrive within one
  // second on a loaded machine, so the count is checked where the time is given.
  it('refuses the 101st /contents within a second, and admits again once the second has passed', () => {
    const limits = new QpsLimits({ contents: 100 });
    const admitted = Array.from({ length: 101 }, (_, i) => limits.admit('contents', i * 5));
    expect(admitted.filter((ok) => !ok)).toHaveLength(1);
    expect(admitted[100]).toBe(false);
    expect(limits.admit('contents', 999)).toBe(false);
    expect(limits.admit('contents', 1000)).toBe(true);
  });

  it('a request over the limit does not take an injected fault', async () => {
    await control('POST', 'limits', { qps: 1, route: 'search' });
    expect((await post('/search', { query: 'first', numResults: 1 })).status).toBe(200);
    await control('POST', 'faults', { fault: 'status:503' });
    expect((await post('/search', { query: 'limited', numResults: 1 })).status).toBe(429);
    expect((await control('GET', 'faults')).body.faults).toHaveLength(1);
  });

  it('can be raised, lifted and restored over the control API', async () => {
    expect((await control('POST', 'limits', { qps: 20, route: 'search' })).body.limits).toEqual({
      search: 20,
      contents: 100,
    });
    expect(statuses(await burst('/search', 20, { query: 'raised', numResults: 1 }))).not.toContain(429);
    expect((await control('POST', 'limits', { qps: null })).body.limits).toEqual({ search: null, contents: null });
    expect(statuses(await burst('/search', 30, { query: 'lifted', numResults: 1 }))).not.toContain(429);
    expect((await control('DELETE', 'limits')).body.limits).toEqual({ search: 10, contents: 100 });
  });

  it.each([[{ qps: 0 }], [{ qps: 1.5 }], [{ qps: '10' }], [{}], [{ qps: 10, route: 'answer' }]])(
    'refuses the limit %j with a 400 naming the field',
    async (body) => {
      const answer = await control('POST', 'limits', body);
      expect(answer.status).toBe(400);
      expect(answer.body.error).toMatch(/^(qps|route) must/);
    },
  );
});
