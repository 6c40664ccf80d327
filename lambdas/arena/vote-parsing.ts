/**
 * Reading a voter's answer into a vote or an abstention. Voters are asked for a forced
 * `cast_vote` tool call, but providers and models slip: arguments with stray text, a lowercase
 * letter, "Answer B"; a JSON object in the text instead of a call; or plain prose. In order:
 *
 * 1. the first `cast_vote` call's JSON arguments, `choice` read leniently (`b`, `"Answer B"`,
 *    `"B."`, `"(B)"`, `"B - clearest"`);
 * 2. a JSON object with `choice` in the text, fenced (```json) or bare;
 * 3. a clear textual pick ("I vote for B", "Answer C is the best", "Choice: A", "The best answer
 *    is D"), only when every such phrase names the same letter; letters must be capitals here,
 *    so the article in "I would pick a different..." is not a vote;
 * 4. otherwise an abstention.
 *
 * A letter that is not on the ballot (the voter's own answer never is) is an abstention too.
 * Abstention reasons are short codes: `no_vote_found`, `malformed_arguments`, `missing_choice`,
 * `unreadable_choice`, `unknown_choice:<letter>`, `ambiguous_choice:<letters>`.
 * Work is bounded: only the first 8 KiB (8192 characters) of the text and of the arguments is read,
 * and every pattern is linear.
 */

import { VOTE_TOOL, type Ballot, type VoteOutcome } from './ballots.js';

export interface VoterAnswer {
  readonly content: string | null;
  readonly toolCalls: readonly { readonly name: string; readonly arguments: string }[];
}

export const READ_LIMIT = 8192;
/** The voter's reason is kept for the audit trail, not as a transcript. */
export const REASON_LIMIT = 500;

/** A letter picked, a pick that is no use (with why), or nothing found at this step. */
type Found = { letter: string; reason?: string } | { failure: string } | undefined;

export function readVote(ballot: Ballot, answer: VoterAnswer): VoteOutcome {
  const content = (answer.content ?? '').slice(0, READ_LIMIT);
  const fromTool = toolPick(answer.toolCalls);
  const pick = fromTool && 'letter' in fromTool ? fromTool : (jsonPick(content) ?? textPick(content) ?? fromTool);
  if (pick === undefined) return { kind: 'abstain', reason: 'no_vote_found' };
  if ('failure' in pick) return { kind: 'abstain', reason: pick.failure };
  const entry = ballot.entries.find((e) => e.letter === pick.letter);
  if (!entry) return { kind: 'abstain', reason: `unknown_choice:${pick.letter}` };
  const vote = { kind: 'vote' as const, agent: entry.agent, letter: entry.letter };
  return pick.reason === undefined ? vote : { ...vote, reason: pick.reason };
}

function toolPick(calls: VoterAnswer['toolCalls']): Found {
  const call = calls.find((c) => c.name.trim() === VOTE_TOOL);
  if (!call) return undefined;
  const args = call.arguments.slice(0, READ_LIMIT).trim();
  const parsed = parseJson(args);
  if (isRecord(parsed)) return choicePick(parsed);
  if (typeof parsed === 'string') return choicePick({ choice: parsed });
  // Arguments cut short (max tokens) or wrapped in prose still name their choice.
  return choiceFieldPick(args) ?? { failure: 'malformed_arguments' };
}

/** A `{choice, reason?}` object's pick. */
function choicePick(vote: Record<string, unknown>): Found {
  if (typeof vote.choice !== 'string') return { failure: 'missing_choice' };
  const letter = choiceLetter(vote.choice);
  if (letter === undefined) return { failure: 'unreadable_choice' };
  const reason = typeof vote.reason === 'string' ? vote.reason.trim().slice(0, REASON_LIMIT) : '';
  return reason === '' ? { letter } : { letter, reason };
}

/** `B`, `b`, `Answer B`, `B.`, `(B)`, `option: b`, `B - the clearest`; not `Because`. */
const CHOICE = /^[\s"'*([]*(?:(?:answer|option|choice|letter)\b[\s:#*([]*)?([A-Za-z])(?![A-Za-z])/i;

function choiceLetter(choice: string): string | undefined {
  return CHOICE.exec(choice.slice(0, 64))?.[1]?.toUpperCase();
}

const JSON_FENCE = /```(?:json)?[ \t]*\n?([^`]*)```/i;

/**
 * A JSON object with `choice` in the text: inside a code fence, else from the first `{` to the
 * last `}`, else a lone `"choice": "..."` field of JSON that does not parse.
 */
function jsonPick(content: string): Found {
  const candidates = [JSON_FENCE.exec(content)?.[1], outermostBraces(content)];
  for (const candidate of candidates) {
    const parsed = candidate === undefined ? undefined : parseJson(candidate.trim());
    if (isRecord(parsed) && 'choice' in parsed) return choicePick(parsed);
  }
  return choiceFieldPick(content);
}

const CHOICE_FIELD = /"choice"\s*:\s*"([^"\n]{0,64})"/i;

function choiceFieldPick(text: string): Found {
  const field = CHOICE_FIELD.exec(text);
  return field ? choicePick({ choice: field[1] }) : undefined;
}

function outermostBraces(content: string): string | undefined {
  const start = content.indexOf('{');
  const end = content.lastIndexOf('}');
  return start >= 0 && end > start ? content.slice(start, end + 1) : undefined;
}

/**
 * Phrases that name one letter as the voter's pick. Keywords match in any case; the letter
 * (group 1) must be a capital, checked after matching.
 */
const TEXTUAL_PICKS: readonly RegExp[] = [
  /\b(?:vote|voting|voted|pick|picking|choose|choosing|chose|select|selecting)\s+(?:is\s+|for\s+)?(?:answer\s+|option\s+)?[*("']*([A-Z])(?![A-Za-z])/gi,
  /\b(?:choice|vote|verdict|winner|pick|best answer|final answer)\s*[:=][\s*("']*(?:answer\s+|option\s+)?[*("']*([A-Z])(?![A-Za-z])/gi,
  /\b(?:answer|option|response)\s+[*("']*([A-Z])[*)"']*\s+(?:is|was)\s+(?:the\s+)?(?:best|better|strongest|winner|most accurate|clearest)\b/gi,
  /\bbest\s+(?:answer|response|option)\s+is\s+(?:answer\s+|option\s+)?[*("']*([A-Z])(?![A-Za-z])/gi,
];

function textPick(content: string): Found {
  const letters = new Set<string>();
  for (const pattern of TEXTUAL_PICKS)
    for (const match of content.matchAll(pattern)) {
      const letter = match[1]!;
      if (letter === letter.toUpperCase()) letters.add(letter);
    }
  if (letters.size === 0) return undefined;
  if (letters.size > 1) return { failure: `ambiguous_choice:${[...letters].sort().join(',')}` };
  return { letter: [...letters][0]! };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
