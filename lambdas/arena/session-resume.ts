/**
 * A session's state rebuilt from its log, for the host that takes it over: every logged event
 * folded in (session-state.ts), then what the live host kept beside the events recomputed the
 * way it was first computed. Both are deterministic from the session's seed: each judged
 * round's tally and so the leaderboard (orchestrator.ts `roundTally`), and each ballot's
 * displayed order (ballots.ts shuffles per session, round and voter).
 */
import type { ArenaEvent } from './arena-events.js';
import type { ArenaPlan } from './arena-request.js';
import { ballotLetter, ballotRecord, buildBallots } from './ballots.js';
import { roundTally } from './orchestrator.js';
import { applyEvent, newSession, type SessionState } from './session-state.js';
import { updateLeaderboard } from './tally.js';

export function restoredSession(sessionId: string, plan: ArenaPlan, events: readonly ArenaEvent[]): SessionState {
  const state = newSession(sessionId, plan);
  for (const event of events) applyEvent(state, event);
  for (const record of state.rounds) {
    if (record.votes.length > 0) {
      const voters = record.votes.map((vote) => vote.voter);
      const ballots = buildBallots({ round: record.round, answers: record.answers, voters, sessionSeed: plan.seed });
      for (const vote of record.votes) {
        const ballot = ballots.find((candidate) => candidate.voter === vote.voter);
        if (!ballot) continue;
        const index = ballot.entries.findIndex((entry) => entry.agent === vote.votedFor);
        record.ballots.push(
          ballotRecord(
            ballot,
            vote.votedFor !== null && index >= 0
              ? { kind: 'vote', agent: vote.votedFor, letter: ballotLetter(index) }
              : { kind: 'abstain', reason: vote.reason ?? 'no_vote_found' },
          ),
        );
      }
    }
    if (plan.mode === 'fight' && record.complete)
      state.leaderboard = updateLeaderboard(state.leaderboard, roundTally(state, record));
  }
  return state;
}
