/**
 * One agent's vote on a round: its ballot (its own answer left out, the others relabelled and
 * shuffled, names masked) asked as a forced `cast_vote` tool call, read robustly. A vote that
 * cannot be read, and a voter whose call fails, are abstentions: vote_update with votedFor null
 * and the reason. The ballot and the choice are recorded for position-bias audits.
 */
import type { GatewayChatRequest } from '../chat/chat-request.js';
import { ChatError } from '../chat/chat-errors.js';
import { BudgetError } from '../usage/budget-errors.js';
import type { ArenaEvent } from './arena-events.js';
import type { ArenaAgent } from './arena-request.js';
import type { ArenaChat } from './agent-turn.js';
import { ballotRecord, voteRequest, type Ballot, type BallotRecord, type VoteOutcome } from './ballots.js';
import { readVote } from './vote-parsing.js';

/** A vote is one letter and a short reason. */
export const VOTE_MAX_TOKENS = 400;

export async function* voteTurn(
  voter: ArenaAgent,
  ballot: Ballot,
  question: string,
  chat: ArenaChat,
  signal: AbortSignal,
  record: (ballot: BallotRecord) => void,
): AsyncGenerator<ArenaEvent> {
  const outcome = await castVote(voter, ballot, question, chat, signal);
  if (signal.aborted) return;
  record(ballotRecord(ballot, outcome));
  yield {
    type: 'vote_update',
    round: ballot.round,
    voter: voter.id,
    votedFor: outcome.kind === 'vote' ? outcome.agent : null,
    ...(outcome.kind === 'abstain' ? { reason: outcome.reason } : {}),
  };
}

async function castVote(
  voter: ArenaAgent,
  ballot: Ballot,
  question: string,
  chat: ArenaChat,
  signal: AbortSignal,
): Promise<VoteOutcome> {
  const request: GatewayChatRequest = {
    model: voter.alias,
    ...voteRequest(question, ballot),
    stream: false,
    // A judge should not sample: the same ballot gets the same vote.
    temperature: 0,
    seed: voter.seed,
    max_tokens: VOTE_MAX_TOKENS,
  };
  try {
    const result = await chat(request, { round: ballot.round, agent: voter.id, purpose: 'vote', signal });
    if (result.kind !== 'whole') return { kind: 'abstain', reason: 'no_vote_found' };
    const message = result.completion.choices[0]?.message;
    const toolCalls = (message?.tool_calls ?? []).map((call) => ({
      name: call.function.name,
      arguments: call.function.arguments,
    }));
    const content = typeof message?.content === 'string' ? message.content : null;
    return readVote(ballot, { content, toolCalls });
  } catch (error) {
    const why =
      error instanceof ChatError ? error.kind : error instanceof BudgetError ? 'budget_exceeded' : 'internal_error';
    return { kind: 'abstain', reason: `voter_failed:${why}` };
  }
}
