/**
 * What each agent sees (spec 4.3), and nothing more:
 * - battle: the history and the message, the same for both agents;
 * - brawl: the history, every earlier answer of this round, and every prior round's answers;
 * - blitz: the history and each prior round's winning answer, never a peer's answer in flight;
 * - multi-instance: as its fight style.
 * Peers appear under their neutral labels (`Agent 2`), never a model name: names inside the
 * answers are masked as on ballots. The caller's message stays the last turn, verbatim; what the
 * agent is shown of its peers goes in the arena's system message before the history.
 */
import type { ChatMessage } from '../providers/chat/types.js';
import { userTurn, type ArenaAgent, type ArenaPlan } from './arena-request.js';
import { maskIdentities } from './identity-mask.js';
import type { AgentAnswer, RoundRecord } from './session-state.js';

/** An answer shown to peers is cut here: prompts stay bounded over ten rounds of eight agents. */
export const MAX_SHOWN_ANSWER_CHARS = 6000;

export type AgentView =
  | { readonly kind: 'alone' }
  | { readonly kind: 'brawl'; readonly priorRounds: readonly RoundRecord[]; readonly earlier: readonly AgentAnswer[] }
  | { readonly kind: 'blitz'; readonly priorWinners: readonly { round: number; answer: AgentAnswer }[] };

/** The view an agent gets in this round of the session. */
export function viewFor(
  plan: ArenaPlan,
  priorRounds: readonly RoundRecord[],
  earlier: readonly AgentAnswer[],
): AgentView {
  if (plan.mode === 'battle') return { kind: 'alone' };
  if (plan.style === 'blitz') {
    const priorWinners = priorRounds.flatMap((round) => {
      const answer = round.answers.find((candidate) => candidate.agent === round.winner);
      return answer ? [{ round: round.round, answer }] : [];
    });
    return { kind: 'blitz', priorWinners };
  }
  return { kind: 'brawl', priorRounds, earlier };
}

/** The messages one agent's turn sends: the arena's brief, the history, the caller's message. */
export function agentMessages(plan: ArenaPlan, agent: ArenaAgent, round: number, view: AgentView): ChatMessage[] {
  const brief = [introduction(plan, agent, round), ...shownAnswers(plan, agent, view)].join('\n\n');
  return [{ role: 'system', content: brief }, ...plan.history, userTurn(plan.question, plan.imageUrl)];
}

function introduction(plan: ArenaPlan, agent: ArenaAgent, round: number): string {
  const others = plan.agents.length - 1;
  if (plan.mode === 'battle') {
    return (
      `You are ${agent.label}, one of two AI assistants answering the same message side by side; ` +
      'the user compares the answers. Answer the latest user message directly, completely and accurately.'
    );
  }
  const rounds = plan.rounds === 1 ? 'one round' : `round ${round} of ${plan.rounds}`;
  return (
    `You are ${agent.label}, one of ${others + 1} AI agents answering the same message (${rounds}). ` +
    'After each round every agent votes for the best answer other than its own. Give your own best, ' +
    'complete answer to the latest user message. Other agents are shown only by neutral labels; ' +
    'build on their answers or correct them where that helps, but do not mention the vote.'
  );
}

function shownAnswers(plan: ArenaPlan, agent: ArenaAgent, view: AgentView): string[] {
  const label = (id: string) => {
    const peer = plan.agents.find((candidate) => candidate.id === id);
    const name = peer?.label ?? 'Another agent';
    return id === agent.id ? `${name} (you)` : name;
  };
  const show = (answer: AgentAnswer) => `${label(answer.agent)}:\n${excerpt(answer.text)}`;
  switch (view.kind) {
    case 'alone':
      return [];
    case 'blitz':
      return view.priorWinners.map(({ round, answer }) => `Winning answer of round ${round}, by ${show(answer)}`);
    case 'brawl': {
      const rounds = view.priorRounds
        .filter((round) => round.answers.length > 0)
        .map((round) => [`Answers of round ${round.round}:`, ...round.answers.map(show)].join('\n\n'));
      const earlier = view.earlier.length
        ? [['Answers already given in this round:', ...view.earlier.map(show)].join('\n\n')]
        : [];
      return [...rounds, ...earlier];
    }
  }
}

function excerpt(text: string): string {
  const masked = maskIdentities(text);
  return masked.length > MAX_SHOWN_ANSWER_CHARS ? `${masked.slice(0, MAX_SHOWN_ANSWER_CHARS)} […]` : masked;
}
