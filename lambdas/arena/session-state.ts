/**
 * A session as plain data: the plan, each round's answers, failures, votes, ballots and result,
 * and the leaderboard. The events a session emits rebuild it (`applyEvent`), which is how a
 * host taking a session over from the session log knows where it stands (session-resume.ts).
 */
import type { ArenaEvent, Citation } from './arena-events.js';
import type { ArenaPlan } from './arena-request.js';
import type { BallotRecord } from './ballots.js';
import { emptyLeaderboard, type CastVote, type Leaderboard } from './tally.js';

export interface AgentAnswer {
  readonly agent: string;
  readonly model: string;
  readonly text: string;
  readonly citations?: readonly Citation[];
}

export interface RoundRecord {
  readonly round: number;
  /** In the order the answers completed. */
  readonly answers: AgentAnswer[];
  /** Agents whose turn began (agent_start), whether or not it ended. */
  readonly started: string[];
  /** Agents whose turn ended in an error, without an answer. */
  readonly failed: { readonly agent: string; readonly code: string }[];
  votingStarted: boolean;
  /** The votes cast so far, abstentions included, in the order they came. */
  readonly votes: CastVote[];
  /** Every ballot: the displayed order of the answers and the choice made (position-bias audits). */
  readonly ballots: BallotRecord[];
  results?: readonly { readonly agent: string; readonly votes: number }[];
  winner: string | null;
  complete: boolean;
}

export interface SessionState {
  readonly sessionId: string;
  readonly plan: ArenaPlan;
  readonly rounds: RoundRecord[];
  /** session_start was sent. */
  begun: boolean;
  /** The synthesis (fights asked with `synthesize`): not begun, begun, or written. */
  synthesis: 'none' | 'started' | 'complete';
  leaderboard: Leaderboard;
  winner: string | null;
  status: 'running' | 'complete' | 'aborted' | 'failed';
}

export function newSession(sessionId: string, plan: ArenaPlan): SessionState {
  return {
    sessionId,
    plan,
    rounds: [],
    begun: false,
    synthesis: 'none',
    leaderboard: emptyLeaderboard(plan.agents.map((agent) => agent.id)),
    winner: null,
    status: 'running',
  };
}

/** The round being played (or the last one). */
export function currentRound(state: SessionState): RoundRecord {
  const round = state.rounds.at(-1);
  if (!round) throw new Error('no round has started');
  return round;
}

/** Folds one event into the state; events that carry no state (deltas, starts) change nothing. */
export function applyEvent(state: SessionState, event: ArenaEvent): void {
  switch (event.type) {
    case 'session_start':
      state.begun = true;
      return;
    case 'round_start':
      state.rounds.push({
        round: event.round,
        answers: [],
        started: [],
        failed: [],
        votingStarted: false,
        votes: [],
        ballots: [],
        winner: null,
        complete: false,
      });
      return;
    case 'agent_start':
      currentRound(state).started.push(event.agent);
      return;
    case 'agent_complete': {
      const round = currentRound(state);
      round.answers.push({
        agent: event.agent,
        model: event.model,
        text: event.message,
        ...(event.citations?.length ? { citations: event.citations } : {}),
      });
      // An error the agent answered despite (a failed search) is not a failed turn.
      const failed = round.failed.findIndex((entry) => entry.agent === event.agent);
      if (failed >= 0) round.failed.splice(failed, 1);
      return;
    }
    case 'error':
      if (event.agent !== undefined && event.round !== undefined) {
        const round = currentRound(state);
        const failed = round.failed.findIndex((entry) => entry.agent === event.agent);
        if (failed >= 0) round.failed.splice(failed, 1);
        round.failed.push({ agent: event.agent, code: event.code });
      }
      return;
    case 'voting_start':
      currentRound(state).votingStarted = true;
      return;
    case 'vote_update':
      currentRound(state).votes.push({
        voter: event.voter,
        votedFor: event.votedFor,
        ...(event.reason ? { reason: event.reason } : {}),
      });
      return;
    case 'voting_complete':
      currentRound(state).results = event.results;
      return;
    case 'round_complete': {
      const round = currentRound(state);
      round.winner = event.winner;
      round.complete = true;
      return;
    }
    case 'synthesis_start':
      state.synthesis = 'started';
      return;
    case 'synthesis_complete':
      state.synthesis = 'complete';
      return;
    case 'session_complete':
      state.winner = event.winner;
      state.status = 'complete';
      return;
    default:
      return;
  }
}
