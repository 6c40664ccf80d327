import { createHash } from 'node:crypto';
import type { ScriptInput, ScriptToolCall } from './script-types.js';

/**
 * The simulated model's web searches. Offered a `web_search` tool (the gateway's own, in battle
 * and fight), it searches when the user's message asks about recent events or for sources, or
 * when told to:
 * - `[sim:search]` search this turn; `[sim:search=QUERY]` with that query
 * - `[sim:search_always]` call the tool every time it is offered, even after a result (a model
 *   that will not stop searching: the gateway's bound must end it)
 * After a search result it answers citing the first URLs it was given.
 */
export const WEB_SEARCH_TOOL = 'web_search';

const ASKS_TO_SEARCH =
  /\b(latest|recent|recently|today|news|this (week|month|year)|currently|sources?|cite|citations?)\b/i;
const URL = /https?:\/\/[^\s)\]>"]+/g;

export function webSearchCall(
  input: ScriptInput,
  directives: ReadonlyMap<string, string>,
  userSpokeLast: boolean,
  question: string,
): ScriptToolCall | undefined {
  if (input.toolChoice === 'none' || !input.tools.some((tool) => tool.name === WEB_SEARCH_TOOL)) return undefined;
  const always = directives.has('search_always');
  if (!always && !userSpokeLast) return undefined;
  if (!always && !directives.has('search') && !ASKS_TO_SEARCH.test(question)) return undefined;
  const query = (directives.get('search') || question).trim().slice(0, 200) || 'web search';
  const id = createHash('sha256').update(JSON.stringify(input.messages)).digest('hex').slice(0, 12);
  return { id: `sim${id}s`, name: WEB_SEARCH_TOOL, arguments: { query } };
}

/** An answer that cites what the last search gave it; undefined when it gave no URL. */
export function citingReply(toolResult: string): string | undefined {
  const urls = [...new Set(toolResult.match(URL) ?? [])].slice(0, 2);
  if (urls.length === 0) return undefined;
  return `According to ${urls.join(' and ')}, here is what the search found.`;
}
