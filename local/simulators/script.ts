import { createHash } from 'node:crypto';
import { pacingOf } from './pacing.js';
import { tokenPartsOf } from './usage-directives.js';
import type { ScriptInput, ScriptMessage, ScriptToolCall, ScriptToolChoice, ScriptTurn } from './script-types.js';
import { pickBy, sampleOf, takeOf } from './sampling.js';
import { citingReply, webSearchCall } from './web-search-turn.js';

/**
 * The simulated model: one deterministic answer for a request, shared by every provider
 * simulator so that the same request costs and reads the same through any wire format.
 * Each simulator turns its wire request into a ScriptInput and encodes the ScriptTurn in its
 * own JSON or stream format.
 *
 * Directives in the last user message steer the answer (for tests and demos):
 * - `[sim:tool]` call the first tool (or the one tool_choice names); `[sim:tools=N]` call N
 *   tools in parallel (cycling through the list)
 * - `[sim:empty_args]` tool calls carry `{}` as arguments
 *   (these three apply only while the user's message is the last one: after a tool result the
 *   model answers in text)
 * - `[sim:reply=TEXT]` answer exactly TEXT (up to the closing bracket); `[sim:reply_b64=B64]`
 *   answers the base64-decoded text (text with brackets, or text a request filter would alter)
 * - `[sim:words=N]` answer with N words
 * - `[sim:finish=length|content_filter]` report that finish reason
 * - `[sim:first_token_ms=N]` wait N ms (at most 10,000) before the first token, and
 *   `[sim:token_ms=N]` N ms (at most 1,000) between tokens: a stream's first event waits the
 *   first, each further token event the second; a whole answer waits first_token_ms + N × its
 *   completion tokens; 60 s at most per answer in all (pacing.ts)
 * - `[sim:bad_vote]` / `[sim:bad_vote=MODEL,MODEL…]` (every model, or only requests for those
 *   upstream model ids) a request that forces a tool call gets a plain-text refusal and no call,
 *   as a voter that answers unusably
 * - `[sim:cache_read=N]`, `[sim:cache_write=N]`, `[sim:cache_write_1h=N]`, `[sim:reasoning=N]`
 *   divide the prompt into cached parts and add reasoning to the answer (usage-directives.ts)
 * `tool_choice` `required` or a named function forces a tool call; `none` forbids one.
 * Offered a `web_search` tool, the model searches when asked about recent events or for sources
 * and cites what it was given (web-search-turn.ts: `[sim:search]`, `[sim:search_always]`).
 *
 * Sampling (sampling.ts): a request that sets `temperature` is answered by a draw hashed from
 * model, temperature, seed and messages. The default reply names it, `Simulated reply from
 * MODEL (take 1a2b3c) — …`, and enum values in tool arguments are picked by it (a vote's
 * ballot letter); without temperature the reply has no take and enums take their first value.
 */

const DIRECTIVE = /\[sim:([a-z0-9_]+)(?:=([^\]]*))?\]/g;
const IMAGE_TOKENS = 85;
const ABSTENTION = 'I would rather not pick one of these answers.';

export function runScript(input: ScriptInput): ScriptTurn {
  const lastUser = [...input.messages].reverse().find((m) => m.role === 'user');
  const last = input.messages[input.messages.length - 1];
  const directives = new Map<string, string>();
  for (const match of (lastUser?.text ?? '').matchAll(DIRECTIVE)) directives.set(match[1]!, match[2] ?? '');
  const promptTokens = countPromptTokens(input);
  const sample = sampleOf(input);
  const abstains = forcesToolCall(input.toolChoice) && badVoteApplies(directives, input.model);
  const pacing = pacingOf(directives);
  const parts = tokenPartsOf(directives, promptTokens);

  const search = abstains ? undefined : webSearchCall(input, directives, last?.role === 'user', questionOf(lastUser));
  const toolCalls = abstains ? [] : search ? [search] : planToolCalls(input, directives, last?.role === 'user', sample);
  if (toolCalls.length > 0) {
    const completionTokens = toolCalls.reduce(
      (sum, call) => sum + 1 + Math.ceil(JSON.stringify(call.arguments).length / 4),
      0,
    );
    return {
      text: '',
      pieces: [],
      toolCalls,
      finishReason: 'tool_calls',
      promptTokens,
      completionTokens,
      pacing,
      parts,
    };
  }

  let pieces = splitPieces(abstains ? ABSTENTION : replyText(input, directives, sample, lastUser, last));
  let finishReason: ScriptTurn['finishReason'] = 'stop';
  const stopAt = firstStop(pieces.join(''), input.stop);
  if (stopAt !== undefined) pieces = splitPieces(pieces.join('').slice(0, stopAt));
  if (input.maxTokens !== undefined && pieces.length > input.maxTokens) {
    pieces = pieces.slice(0, Math.max(0, input.maxTokens));
    finishReason = 'length';
  }
  const forced = directives.get('finish');
  if (forced === 'length' || forced === 'content_filter') finishReason = forced;
  return {
    text: pieces.join(''),
    pieces,
    toolCalls: [],
    finishReason,
    promptTokens,
    completionTokens: pieces.length,
    pacing,
    parts,
  };
}

function replyText(
  input: ScriptInput,
  directives: Map<string, string>,
  sample: string | undefined,
  lastUser?: ScriptMessage,
  last?: ScriptMessage,
): string {
  if (directives.has('reply')) return directives.get('reply')!;
  if (directives.has('reply_b64')) return Buffer.from(directives.get('reply_b64')!, 'base64').toString('utf8');
  const words = Number(directives.get('words'));
  if (Number.isInteger(words) && words > 0) {
    return Array.from({ length: words }, (_, i) => `word${i + 1}`).join(' ');
  }
  if (last?.role === 'tool')
    return citingReply(last.text) ?? `The ${last.toolName ?? 'tool'} tool returned: ${last.text}`;
  const said = questionOf(lastUser);
  const images = lastUser?.images ? ` (I see ${lastUser.images} image${lastUser.images > 1 ? 's' : ''})` : '';
  const take = sample === undefined ? '' : ` (take ${takeOf(sample)})`;
  return `Simulated reply from ${input.model}${take} — you said: ${said}${images}`;
}

/** The user's last message without directives: what the model answers (and searches for). */
const questionOf = (lastUser?: ScriptMessage): string =>
  (lastUser?.text ?? '').replace(DIRECTIVE, '').trim().slice(0, 200);

const forcesToolCall = (choice: ScriptToolChoice): boolean => choice === 'required' || typeof choice === 'object';

/** `[sim:bad_vote]` names every model; `[sim:bad_vote=a,b]` only those upstream model ids. */
function badVoteApplies(directives: Map<string, string>, model: string): boolean {
  const named = directives.get('bad_vote');
  if (named === undefined) return false;
  return named.trim() === '' || named.split(',').some((id) => id.trim() === model);
}

/**
 * Tool directives steer the turn that answers the user's message only: once a tool result is
 * the last message, the model answers in text, so an agent loop ends. A `tool_choice` that
 * demands a call still gets one, as from a real model.
 */
function planToolCalls(
  input: ScriptInput,
  directives: Map<string, string>,
  userSpokeLast: boolean,
  sample: string | undefined,
): ScriptToolCall[] {
  if (input.tools.length === 0 || input.toolChoice === 'none') return [];
  const named = typeof input.toolChoice === 'object' ? input.toolChoice.name : undefined;
  const requested = !userSpokeLast
    ? 0
    : directives.has('tools')
      ? Math.max(1, Number(directives.get('tools')) || 1)
      : directives.has('tool')
        ? 1
        : 0;
  const count = requested || (named || input.toolChoice === 'required' ? 1 : 0);
  const seed = createHash('sha256').update(JSON.stringify(input.messages)).digest('hex').slice(0, 12);
  return Array.from({ length: count }, (_, i) => {
    const tool = named
      ? (input.tools.find((t) => t.name === named) ?? input.tools[0]!)
      : input.tools[i % input.tools.length]!;
    return {
      id: `sim${seed}${i}`,
      name: tool.name,
      arguments: directives.has('empty_args') ? {} : exampleArguments(tool.parameters, sample),
    };
  });
}

/**
 * Arguments that satisfy the tool's schema: every required property with a plain value. An
 * enum takes its first value, or in a sampled request the value the draw picks.
 */
function exampleArguments(
  schema: Record<string, unknown> | undefined,
  sample: string | undefined,
): Record<string, unknown> {
  const properties = (schema?.['properties'] ?? {}) as Record<string, Record<string, unknown>>;
  const required = (schema?.['required'] ?? Object.keys(properties)) as string[];
  const args: Record<string, unknown> = {};
  for (const name of required) args[name] = exampleValue(properties[name] ?? {}, name, sample);
  return args;
}

function exampleValue(schema: Record<string, unknown>, name: string, sample: string | undefined): unknown {
  const choices = schema['enum'];
  if (Array.isArray(choices) && choices.length > 0)
    return sample === undefined ? choices[0] : pickBy(sample, name, choices);
  switch (schema['type']) {
    case 'integer':
    case 'number':
      return typeof schema['minimum'] === 'number' ? schema['minimum'] : 1;
    case 'boolean':
      return true;
    case 'array':
      return [];
    case 'object':
      return exampleArguments(schema, sample);
    default:
      return `${name}-value`;
  }
}

function firstStop(text: string, stops: readonly string[] | undefined): number | undefined {
  let earliest: number | undefined;
  for (const stop of stops ?? []) {
    const at = stop ? text.indexOf(stop) : -1;
    if (at >= 0 && (earliest === undefined || at < earliest)) earliest = at;
  }
  return earliest;
}

/** One piece per token: each word with the whitespace before it. */
export function splitPieces(text: string): string[] {
  return text.match(/\s*\S+|\s+$/g) ?? [];
}

function countPromptTokens(input: ScriptInput): number {
  let tokens = 0;
  for (const message of input.messages)
    tokens += 3 + Math.ceil(message.text.length / 4) + message.images * IMAGE_TOKENS;
  for (const tool of input.tools) tokens += Math.ceil(JSON.stringify(tool).length / 4);
  return tokens + 3;
}
