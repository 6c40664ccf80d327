import type { ArenaEvent } from '../../../lambdas/arena/arena-events.js';
import { MAX_RESULTS_TEXT_CHARS, TOOL_RESULTS, webSearchTool } from '../../../lambdas/arena/web-search-tool.js';
import { SearchError } from '../../../lambdas/search/search-errors.js';
import type { SearchAnswer } from '../../../lambdas/search/search-types.js';

const call = (args: string) => ({
  id: 'c1',
  type: 'function' as const,
  function: { name: 'web_search', arguments: args },
});
const context = { agent: 'gpt', round: 2, signal: new AbortController().signal };

async function run(tool: ReturnType<typeof webSearchTool>, args: string) {
  const events: ArenaEvent[] = [];
  const generator = tool.run(call(args), context);
  for (;;) {
    const next = await generator.next();
    if (next.done) return { events, outcome: next.value };
    events.push(next.value);
  }
}

const answer = (count: number, snippet = 'snippet'): SearchAnswer => ({
  query: 'q',
  autoPrompt: null,
  costMicroUsd: 5000,
  results: Array.from({ length: count }, (_, i) => ({
    url: `https://example.com/${i}`,
    title: `Result ${i}`,
    snippet,
    score: 1 - i / count,
    publishedDate: i === 0 ? '2026-11-01' : null,
    author: null,
    favicon: null,
  })),
});

describe('the web_search tool', () => {
  it('emits start, one content per result, complete with the citations, and gives the model the results', async () => {
    const queries: string[] = [];
    const tool = webSearchTool(
      async (query) => (queries.push(query), answer(8)),
      () => 1_700_000_000_000,
    );
    const { events, outcome } = await run(tool, '{"query":"  fusion news  "}');
    expect(queries).toEqual(['fusion news']);
    expect(events.map((e) => e.type)).toEqual([
      'search_start',
      ...Array(TOOL_RESULTS).fill('search_content'),
      'search_complete',
    ]);
    expect(events[0]).toEqual({
      type: 'search_start',
      round: 2,
      agent: 'gpt',
      query: 'fusion news',
      timestamp: 1_700_000_000,
    });
    const complete = events.at(-1) as Extract<ArenaEvent, { type: 'search_complete' }>;
    expect(complete.citations).toHaveLength(TOOL_RESULTS);
    expect(complete.citations[0]).toEqual({
      url: 'https://example.com/0',
      title: 'Result 0',
      snippet: 'snippet',
      publishedDate: '2026-11-01',
      score: 1,
    });
    expect(outcome.citations).toEqual(complete.citations);
    expect(outcome.content).toContain('https://example.com/4');
  });

  it('trims what the model reads', async () => {
    const tool = webSearchTool(async () => answer(5, 'x'.repeat(5000)), Date.now);
    const { outcome } = await run(tool, '{"query":"q"}');
    expect(outcome.content.length).toBeLessThanOrEqual(MAX_RESULTS_TEXT_CHARS + 4);
  });

  it('a failed search is an error naming the agent, a closed search, and a tool error the model can answer without', async () => {
    const tool = webSearchTool(async () => {
      throw new SearchError('upstream_failed', 'Exa answered 503');
    }, Date.now);
    const { events, outcome } = await run(tool, '{"query":"q"}');
    expect(events.map((e) => e.type)).toEqual(['search_start', 'error', 'search_complete']);
    expect(events[1]).toMatchObject({ agent: 'gpt', round: 2, code: 'search_upstream_failed' });
    expect(outcome.citations).toBeUndefined();
    expect(outcome.content).toMatch(/^Error: the web search failed/);
  });

  it('arguments without a query are a tool error, and no search is made', async () => {
    let searched = false;
    const tool = webSearchTool(async () => ((searched = true), answer(1)), Date.now);
    for (const args of ['', 'not json', '{"query":""}', '{"query":5}']) {
      const { events, outcome } = await run(tool, args);
      expect(events).toEqual([]);
      expect(outcome.content).toMatch(/needs \{"query"/);
    }
    expect(searched).toBe(false);
  });
});
