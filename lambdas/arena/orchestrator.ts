/**
 * Plays a session: battle (both agents at once, no vote), fight in brawl (agents in turn, each
 * seeing what came before) or blitz (agents at once, seeing only earlier rounds' winners), and
 * multi-instance as its style. After each fight round every agent that answered votes; the
 * tally, the leaderboard and the round's winner follow (tally.ts). An agent that fails is an
 * error event and sits the round out; a round with fewer than two answers ends without a vote.
 *
 * Events come out in order as the consumer reads them (parallel agents interleave); the state
 * folds each one in before the next is produced, so what an agent is shown is always the state
 * after every event before its turn. The signal ends everything: upstream calls abort and no
 * further event is produced.
 *
 * A session picks up where its state stands: a state rebuilt from the session log
 * (session-resume.ts) plays only what is left. A finished turn is never played again; a turn
 * that began and did not end is announced void (`error` with code `turn_interrupted`) and
 * played anew; voters that have not voted vote; a round judged in full is not judged again.
 * A fight asked with `synthesize` ends with a synthesis (synthesis-turn.ts), written again from
 * its start if a host was cut short in it.
 * When its host hands the session on (`handingOff`), no new turn starts, the status stays
 * `running`, and nothing is said: the next host continues.
 */
import { logger } from '../config/logger.js';
import { agentError, agentTurn, type AgentTool, type ArenaChat } from './agent-turn.js';
import type { ArenaEvent, LeaderboardRow } from './arena-events.js';
import type { ArenaAgent } from './arena-request.js';
import { buildBallots } from './ballots.js';
import { mergeStreams, type MergeSource } from './merge-streams.js';
import { applyEvent, currentRound, type RoundRecord, type SessionState } from './session-state.js';
import { sessionWinner, tallyRound, updateLeaderboard, type Leaderboard } from './tally.js';
import { agentMessages, viewFor, type AgentView } from './visibility.js';
import { synthesisTurn } from './synthesis-turn.js';
import { voteTurn } from './vote-turn.js';

export interface ArenaDeps {
  readonly chat: ArenaChat;
  /** Offered to every agent's answer (web search); voters get none: they judge what they see. */
  readonly tools?: readonly AgentTool[];
  /** True when the signal ended because the session's time ran out: it ends aborted, and says so. */
  readonly deadlineReached?: () => boolean;
  /**
   * True once the host is handing the session on (its time is nearly up and another host will
   * continue): no new turn starts, and a turn cut short is played again by the next host.
   */
  readonly handingOff?: () => boolean;
  /** True when the session was cancelled by its owner: it ends aborted, and says so. */
  readonly cancelled?: () => boolean;
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
    if (state.status === 'running') yield* stoppedShort(state, deps);
  } catch (error) {
    if (signal.aborted) {
      yield* stoppedShort(state, deps);
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

/** A session that stopped before its end: handed on (still running), or aborted, saying why. */
function* stoppedShort(state: SessionState, deps: ArenaDeps): Generator<ArenaEvent> {
  if (deps.handingOff?.()) return;
  state.status = 'aborted';
  if (deps.cancelled?.()) yield { type: 'error', code: 'session_cancelled', error: 'The session was cancelled' };
  else if (deps.deadlineReached?.())
    yield {
      type: 'error',
      code: 'session_timeout',
      error: 'The session ran out of time before it finished; fewer rounds or agents fit',
    };
}

/** Whether a new turn may start. */
const mayStart = (deps: ArenaDeps, signal: AbortSignal) => !signal.aborted && !deps.handingOff?.();

async function* play(state: SessionState, deps: ArenaDeps, signal: AbortSignal): AsyncGenerator<ArenaEvent> {
  const { plan } = state;
  if (!state.begun)
    yield {
      type: 'session_start',
      sessionId: state.sessionId,
      mode: plan.mode,
      ...(plan.style ? { fightStyle: plan.style } : {}),
      agents: plan.agents.map((agent) => agent.id),
      rounds: plan.rounds,
    };
  for (let round = 1; round <= plan.rounds; round++) {
    const record = state.rounds[round - 1];
    if (record?.complete) continue;
    if (!mayStart(deps, signal)) return;
    if (!record) yield { type: 'round_start', round, totalRounds: plan.rounds };
    yield* answers(state, round, deps, signal);
    if (!mayStart(deps, signal)) return;
    if (plan.mode === 'fight') yield* judge(state, round, deps, signal);
    else yield { type: 'round_complete', round, winner: null };
  }
  if (!mayStart(deps, signal)) return;
  const fight = plan.mode === 'fight';
  if (plan.synthesize && state.synthesis !== 'complete') {
    // The winner is settled once every round is: the synthesis is written knowing it.
    state.winner = sessionWinner(state.leaderboard, plan.seed);
    yield* synthesisTurn(state, deps.chat, signal);
    if (!mayStart(deps, signal)) return;
  }
  yield {
    type: 'session_complete',
    winner: fight ? sessionWinner(state.leaderboard, plan.seed) : null,
    finalLeaderboard: fight ? rows(state.leaderboard) : [],
  };
}

/**
 * Brawl: one after another, each seeing the answers before it. Otherwise all at once. Agents
 * whose turn this round already ended are not asked again; one whose turn was cut short is.
 */
async function* answers(state: SessionState, round: number, deps: ArenaDeps, signal: AbortSignal) {
  const { plan } = state;
  const record = currentRound(state);
  const prior = state.rounds.slice(0, -1);
  const ended = new Set([...record.answers.map((a) => a.agent), ...record.failed.map((f) => f.agent)]);
  const left = plan.agents.filter((agent) => !ended.has(agent.id));
  for (const agent of left) if (record.started.includes(agent.id)) yield interrupted(agent.id, round);
  const turn = (agent: ArenaAgent, view: AgentView, agentSignal: AbortSignal) =>
    agentTurn(agent, round, agentMessages(plan, agent, round, view), deps.chat, agentSignal, deps.tools);
  if (plan.mode === 'fight' && plan.style === 'brawl') {
    for (const agent of left) {
      if (!mayStart(deps, signal)) return;
      yield* turn(agent, viewFor(plan, prior, record.answers), signal);
    }
    return;
  }
  const view = viewFor(plan, prior, []);
  const sources = left.map((agent) => ({ id: agent.id, open: (s: AbortSignal) => turn(agent, view, s) }));
  for await (const merged of mergeStreams(sources, signal)) {
    if (merged.kind === 'item') yield merged.value;
    else if (merged.kind === 'error' && !signal.aborted) yield agentError(merged.source, round, merged.error);
  }
}

const interrupted = (agent: string, round: number): ArenaEvent => ({
  type: 'error',
  code: 'turn_interrupted',
  agent,
  round,
  error: 'The answer was cut short when the session moved to another host; it is asked again',
});

/** Every agent that answered votes; then the tally, the leaderboard and the round's winner. */
async function* judge(state: SessionState, round: number, deps: ArenaDeps, signal: AbortSignal) {
  const { plan } = state;
  const record = currentRound(state);
  const answered = plan.agents.filter((agent) => record.answers.some((a) => a.agent === agent.id));
  const voting = answered.length >= 2;
  if (voting) {
    if (!record.votingStarted) yield { type: 'voting_start', round } satisfies ArenaEvent;
    const voted = new Set(record.votes.map((vote) => vote.voter));
    yield* votesOf(
      state,
      round,
      answered.filter((agent) => !voted.has(agent.id)),
      deps,
      signal,
    );
    if (signal.aborted) return;
  }
  // The votes as the state folded them in: those of this host and of any host before it.
  const tally = roundTally(state, record);
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

/** The round's tally from the votes the state holds (also how a resumed session recounts). */
export function roundTally(state: SessionState, record: RoundRecord) {
  const { plan } = state;
  return tallyRound({
    round: record.round,
    agents: plan.agents.map((agent) => agent.id),
    answered: plan.agents.filter((agent) => record.answers.some((a) => a.agent === agent.id)).map((a) => a.id),
    votes: record.votes,
    previous: state.leaderboard,
    sessionSeed: plan.seed,
  });
}

function rows(leaderboard: Leaderboard): LeaderboardRow[] {
  return leaderboard.map(({ agent, score, rank }) => ({ agent, score, rank }));
}
