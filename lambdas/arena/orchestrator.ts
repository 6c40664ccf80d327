/**
 * Plays a session: battle (both agents at once, no vote), fight in brawl (agents in turn, each
 * seeing what came before) or blitz (agents at once, seeing only earlier rounds' winners), and
 * multi-instance as its style. After each fight round every agent that answered votes; the
 * tally, the leaderboard and the round's winner follow (tally.ts). An agent that fails is an
 * error event and sits the round out; a round with fewer than two answers ends without a vote.
 *
 * Events come out in order as the consumer reads them (parallel agents interleave); the state
 * folds each one in before the next is produced, so what an agent is shown is always the state
 * after every event before its turn. The caller's signal ends everything: upstream calls abort
 * and no further event is produced.
 */
import { logger } from '../config/logger.js';
import { agentError, agentTurn, type ArenaChat } from './agent-turn.js';
import type { ArenaEvent, LeaderboardRow } from './arena-events.js';
import type { ArenaAgent } from './arena-request.js';
import { buildBallots } from './ballots.js';
import { mergeStreams, type MergeSource } from './merge-streams.js';
import { applyEvent, currentRound, type SessionState } from './session-state.js';
import { sessionWinner, tallyRound, updateLeaderboard, type CastVote, type Leaderboard } from './tally.js';
import { agentMessages, viewFor } from './visibility.js';
import { voteTurn } from './vote-turn.js';

export interface ArenaDeps {
  readonly chat: ArenaChat;
  /** True when the signal ended because the function's time ran out, not because the caller left. */
  readonly deadlineReached?: () => boolean;
}

/** The session's events; `state` is updated as each one is produced. */
export async function* runSession(
  state: SessionState,
  deps: ArenaDeps,
  signal: AbortSignal,
): AsyncGenerator<ArenaEvent> {
  try {
    for await (const event of play(state, deps, signal)) {
      applyEvent(state, event);
      yield event;
    }
    if (state.status === 'running') {
      state.status = 'aborted';
      // Still writable: the caller is told why the session stops short.
      if (deps.deadlineReached?.()) yield timedOut();
    }
  } catch (error) {
    if (signal.aborted) {
      state.status = 'aborted';
      if (deps.deadlineReached?.()) yield timedOut();
      return;
    }
    state.status = 'failed';
    logger.error('arena session failed', {
      sessionId: state.sessionId,
      error: (error as Error).stack ?? String(error),
    });
    yield { type: 'error', code: 'internal_error', error: 'Internal error; the session ended early' };
  }
}

const timedOut = (): ArenaEvent => ({
  type: 'error',
  code: 'session_timeout',
  error: 'The session ran out of time before it finished; fewer rounds or agents fit',
});

async function* play(state: SessionState, deps: ArenaDeps, signal: AbortSignal): AsyncGenerator<ArenaEvent> {
  const { plan } = state;
  yield {
    type: 'session_start',
    sessionId: state.sessionId,
    mode: plan.mode,
    ...(plan.style ? { fightStyle: plan.style } : {}),
    agents: plan.agents.map((agent) => agent.id),
    rounds: plan.rounds,
  };
  for (let round = 1; round <= plan.rounds; round++) {
    if (signal.aborted) return;
    yield { type: 'round_start', round, totalRounds: plan.rounds };
    yield* answers(state, round, deps, signal);
    if (signal.aborted) return;
    if (plan.mode === 'fight') yield* judge(state, round, deps, signal);
    else yield { type: 'round_complete', round, winner: null };
  }
  if (signal.aborted) return;
  const fight = plan.mode === 'fight';
  yield {
    type: 'session_complete',
    winner: fight ? sessionWinner(state.leaderboard, plan.seed) : null,
    finalLeaderboard: fight ? rows(state.leaderboard) : [],
  };
}

/** Brawl: one after another, each seeing the answers before it. Otherwise all at once. */
async function* answers(state: SessionState, round: number, deps: ArenaDeps, signal: AbortSignal) {
  const { plan } = state;
  const prior = state.rounds.slice(0, -1);
  const turn = (agent: ArenaAgent, view: ReturnType<typeof viewFor>, agentSignal: AbortSignal) =>
    agentTurn(agent, round, agentMessages(plan, agent, round, view), deps.chat, agentSignal);
  if (plan.mode === 'fight' && plan.style === 'brawl') {
    for (const agent of plan.agents) {
      if (signal.aborted) return;
      yield* turn(agent, viewFor(plan, prior, currentRound(state).answers), signal);
    }
    return;
  }
  const view = viewFor(plan, prior, []);
  const sources = plan.agents.map((agent) => ({ id: agent.id, open: (s: AbortSignal) => turn(agent, view, s) }));
  for await (const merged of mergeStreams(sources, signal)) {
    if (merged.kind === 'item') yield merged.value;
    else if (merged.kind === 'error' && !signal.aborted) yield agentError(merged.source, round, merged.error);
  }
}

/** Every agent that answered votes; then the tally, the leaderboard and the round's winner. */
async function* judge(state: SessionState, round: number, deps: ArenaDeps, signal: AbortSignal) {
  const { plan } = state;
  const record = currentRound(state);
  const answered = plan.agents.filter((agent) => record.answers.some((a) => a.agent === agent.id));
  const votes: CastVote[] = [];
  const voting = answered.length >= 2;
  if (voting) {
    yield { type: 'voting_start', round } satisfies ArenaEvent;
    for await (const event of votesOf(state, round, answered, deps, signal)) {
      if (event.type === 'vote_update')
        votes.push({ voter: event.voter, votedFor: event.votedFor, ...(event.reason ? { reason: event.reason } : {}) });
      yield event;
    }
    if (signal.aborted) return;
  }
  const tally = tallyRound({
    round,
    agents: plan.agents.map((agent) => agent.id),
    answered: answered.map((agent) => agent.id),
    votes,
    previous: state.leaderboard,
    sessionSeed: plan.seed,
  });
  if (voting) yield { type: 'voting_complete', round, results: tally.results } satisfies ArenaEvent;
  state.leaderboard = updateLeaderboard(state.leaderboard, tally);
  yield { type: 'leaderboard_update', round, leaderboard: rows(state.leaderboard) } satisfies ArenaEvent;
  yield {
    type: 'round_complete',
    round,
    winner: tally.winner,
    ...(voting ? {} : { reason: 'too_few_answers' as const }),
  } satisfies ArenaEvent;
}

/** The voters at once; a voter that fails for a reason of ours still abstains, visibly. */
async function* votesOf(
  state: SessionState,
  round: number,
  voters: readonly ArenaAgent[],
  deps: ArenaDeps,
  signal: AbortSignal,
): AsyncGenerator<ArenaEvent> {
  const record = currentRound(state);
  const ballots = buildBallots({
    round,
    answers: record.answers.map((answer) => ({ agent: answer.agent, text: answer.text })),
    voters: voters.map((voter) => voter.id),
    sessionSeed: state.plan.seed,
  });
  const sources: MergeSource<ArenaEvent>[] = ballots.map((ballot) => {
    const voter = voters.find((agent) => agent.id === ballot.voter)!;
    return {
      id: voter.id,
      open: (s) => voteTurn(voter, ballot, state.plan.question, deps.chat, s, (kept) => record.ballots.push(kept)),
    };
  });
  for await (const merged of mergeStreams(sources, signal)) {
    if (merged.kind === 'item') yield merged.value;
    else if (merged.kind === 'error' && !signal.aborted) {
      logger.error('arena vote failed', { voter: merged.source, round, error: String(merged.error) });
      yield { type: 'vote_update', round, voter: merged.source, votedFor: null, reason: 'voter_failed:internal_error' };
    }
  }
}

function rows(leaderboard: Leaderboard): LeaderboardRow[] {
  return leaderboard.map(({ agent, score, rank }) => ({ agent, score, rank }));
}
