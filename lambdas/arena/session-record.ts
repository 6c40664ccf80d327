import type { ArenaSessionRecord } from '../store/arena-sessions.js';
import type { SessionState } from './session-state.js';

export interface SessionOwner {
  readonly accountId: string;
  readonly keyId?: string;
  readonly route: string;
}

/** The session as it is kept for audits, as it stands `at`: results and ballots, never the answers' text. */
export function sessionRecord(state: SessionState, owner: SessionOwner, startedAt: Date, at: Date): ArenaSessionRecord {
  const { plan } = state;
  return {
    sessionId: state.sessionId,
    accountId: owner.accountId,
    ...(owner.keyId ? { keyId: owner.keyId } : {}),
    route: owner.route,
    mode: plan.mode,
    ...(plan.style ? { fightStyle: plan.style } : {}),
    multiInstance: plan.multiInstance,
    seed: plan.seed,
    agents: plan.agents.map((agent) => ({ agent: agent.id, model: agent.model })),
    rounds: plan.rounds,
    status: state.status,
    winner: state.winner,
    roundResults: state.rounds.map((round) => ({
      round: round.round,
      answered: round.answers.map((answer) => ({
        agent: answer.agent,
        model: answer.model,
        chars: answer.text.length,
      })),
      failed: round.failed,
      ...(round.results ? { results: round.results } : {}),
      winner: round.winner,
    })),
    ballots: state.rounds.flatMap((round) => round.ballots),
    finalLeaderboard: state.leaderboard.map(({ agent, score, rank }) => ({ agent, score, rank })),
    startedAt: startedAt.toISOString(),
    updatedAt: at.toISOString(),
    ...(state.status === 'running' ? {} : { endedAt: at.toISOString() }),
  };
}
