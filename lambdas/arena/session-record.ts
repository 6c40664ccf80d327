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
        markdown: markdownElements(answer.text),
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

const MARKDOWN_LINE = /^\s{0,3}(?:#{1,6}\s|[-*+]\s|\d{1,9}[.)]\s|>\s?|```)/;
const BOLD_RUN = /\*\*[^*\n]+\*\*|__[^_\n]+__/g;

/**
 * Markdown elements in an answer, as LMArena's style control counts them: headers, list items
 * (and quotes and fences), and bold runs. Linear in the text: one pass over its lines.
 */
export function markdownElements(text: string): number {
  let count = 0;
  for (const line of text.split('\n')) {
    if (MARKDOWN_LINE.test(line)) count++;
    count += line.match(BOLD_RUN)?.length ?? 0;
  }
  return count;
}
