/**
 * The `web_search` tool every agent's answer is offered (battle, fight, multi-instance): a
 * function the gateway runs itself, so it works the same on every provider. A call emits
 * search_start, one search_content per result found, and search_complete with the citations;
 * the model reads the results, trimmed to MAX_RESULTS_TEXT_CHARS. A search that fails is an
 * error event naming the agent and a tool error the model answers without; the session goes on.
 */
import type { ToolCall, ToolDefinition } from '../providers/chat-types.js';
import { MAX_QUERY_CHARS, type SearchAnswer } from '../search/search-types.js';
import { SearchError } from '../search/search-errors.js';
import { BudgetError } from '../usage/budget-errors.js';
import { exceedsCharacters, leadingCharacters } from '../schema/text-length.js';
import type { AgentTool, ToolOutcome } from './agent-turn.js';
import type { ArenaEvent, Citation } from './arena-events.js';

/** One search for one agent turn: the search core, bound to the session and its ledger. */
export type AgentSearch = (
  query: string,
  turn: { agent: string; round: number; signal: AbortSignal },
) => Promise<SearchAnswer>;

/** Results a model is given per search, and the text they may fill. */
export const TOOL_RESULTS = 5;
export const MAX_RESULTS_TEXT_CHARS = 6000;

export const WEB_SEARCH_DEFINITION: ToolDefinition = {
  type: 'function',
  function: {
    name: 'web_search',
    description:
      'Search the web. Use it when the question needs recent or checkable facts, or when sources are asked for; ' +
      'cite the URLs you use.',
    parameters: {
      type: 'object',
      properties: { query: { type: 'string', description: 'What to search for, as a search engine query.' } },
      required: ['query'],
      additionalProperties: false,
    },
  },
};

export function webSearchTool(searchFor: AgentSearch, now: () => number): AgentTool {
  const timestamp = () => Math.floor(now() / 1000);
  return {
    definition: WEB_SEARCH_DEFINITION,
    async *run(call, { agent, round, signal }): AsyncGenerator<ArenaEvent, ToolOutcome> {
      const query = queryOf(call);
      if (!query) return { content: 'Error: web_search needs {"query": "..."}; answer without searching.' };
      yield { type: 'search_start', round, agent, query, timestamp: timestamp() };
      let answer: SearchAnswer;
      try {
        answer = await searchFor(query, { agent, round, signal });
      } catch (error) {
        if (signal.aborted) throw error;
        const code =
          error instanceof SearchError
            ? `search_${error.kind}`
            : error instanceof BudgetError
              ? 'search_budget_exceeded'
              : 'search_failed';
        yield { type: 'error', agent, round, code, error: `Web search failed: ${(error as Error).message}` };
        yield { type: 'search_complete', round, agent, citations: [], timestamp: timestamp() };
        return {
          content: 'Error: the web search failed. Answer from what you know, and say that you could not search.',
        };
      }
      const results = answer.results.slice(0, TOOL_RESULTS);
      for (const [i, result] of results.entries())
        yield {
          type: 'search_content',
          round,
          agent,
          delta: `[${i + 1}] ${result.title} — ${result.url}\n`,
          timestamp: timestamp(),
        };
      const citations: Citation[] = results.map((result) => ({
        url: result.url,
        title: result.title,
        snippet: result.snippet,
        ...(result.publishedDate ? { publishedDate: result.publishedDate } : {}),
        score: result.score,
      }));
      yield { type: 'search_complete', round, agent, citations, timestamp: timestamp() };
      return { content: resultsText(query, citations), citations };
    },
  };
}

/** The query from the call's arguments, bounded as the search endpoint bounds it. */
function queryOf(call: ToolCall): string | undefined {
  try {
    const parsed = JSON.parse(call.function.arguments.slice(0, 10_000)) as { query?: unknown };
    return typeof parsed.query === 'string' && parsed.query.trim()
      ? leadingCharacters(parsed.query.trim(), MAX_QUERY_CHARS)
      : undefined;
  } catch {
    return undefined;
  }
}

function resultsText(query: string, citations: readonly Citation[]): string {
  if (citations.length === 0) return `No results for "${query}". Answer from what you know.`;
  const text = citations
    .map(
      (c, i) =>
        `[${i + 1}] ${c.title}\n${c.url}${c.publishedDate ? `\nPublished: ${c.publishedDate}` : ''}\n${c.snippet}`,
    )
    .join('\n\n');
  return exceedsCharacters(text, MAX_RESULTS_TEXT_CHARS)
    ? `${leadingCharacters(text, MAX_RESULTS_TEXT_CHARS)} […]`
    : text;
}
