/**
 * What the arena page shows, folded from a session's events (lambdas/arena/arena-events.ts):
 * each round's answers as they are written, searches with their citations, votes, the
 * leaderboard, round winners, the synthesis and the winner.
 */
import type { ArenaEventData } from './arena-stream';

export interface Citation {
  readonly url: string;
  readonly title: string;
}

export interface AgentAnswer {
  readonly agent: string;
  readonly model: string;
  readonly text: string;
  readonly done: boolean;
  readonly error?: string;
  readonly searches: readonly { readonly query: string; readonly citations?: readonly Citation[] }[];
  readonly citations: readonly Citation[];
}

export interface RoundView {
  readonly round: number;
  readonly answers: Readonly<Record<string, AgentAnswer>>;
  readonly votes: readonly { readonly voter: string; readonly votedFor: string | null; readonly reason?: string }[];
  readonly results?: readonly { readonly agent: string; readonly votes: number }[];
  readonly winner?: string | null;
}

export interface SessionView {
  readonly sessionId?: string;
  readonly mode?: string;
  readonly fightStyle?: string;
  readonly agents: readonly string[];
  readonly totalRounds: number;
  readonly rounds: readonly RoundView[];
  readonly leaderboard: readonly { readonly agent: string; readonly score: number; readonly rank: number }[];
  readonly synthesis?: { readonly model: string; readonly text: string; readonly done: boolean };
  readonly status: 'idle' | 'running' | 'complete' | 'failed';
  readonly winner?: string | null;
  readonly notices: readonly string[];
  /** The event count, for the page's live announcements. */
  readonly events: number;
}

export const EMPTY_SESSION: SessionView = {
  agents: [],
  totalRounds: 1,
  rounds: [],
  leaderboard: [],
  status: 'idle',
  notices: [],
  events: 0,
};

const text = (value: unknown): string => (typeof value === 'string' ? value : '');
const roundOf = (event: ArenaEventData, view: SessionView): number =>
  typeof event['round'] === 'number' ? event['round'] : (view.rounds[view.rounds.length - 1]?.round ?? 1);

function withRound(view: SessionView, round: number, change: (round: RoundView) => RoundView): SessionView {
  const rounds = view.rounds.some((r) => r.round === round)
    ? view.rounds
    : [...view.rounds, { round, answers: {}, votes: [] }];
  return { ...view, rounds: rounds.map((r) => (r.round === round ? change(r) : r)) };
}

function withAnswer(view: SessionView, event: ArenaEventData, change: (answer: AgentAnswer) => AgentAnswer) {
  const agent = text(event['agent']);
  return withRound(view, roundOf(event, view), (round) => {
    const answer = round.answers[agent] ?? {
      agent,
      model: text(event['model']) || agent,
      text: '',
      done: false,
      searches: [],
      citations: [],
    };
    return { ...round, answers: { ...round.answers, [agent]: change(answer) } };
  });
}

export function foldEvent(before: SessionView, event: ArenaEventData): SessionView {
  const view = { ...before, events: before.events + 1 };
  switch (event.type) {
    case 'session_start':
      return {
        ...view,
        sessionId: text(event['sessionId']) || view.sessionId,
        mode: text(event['mode']),
        fightStyle: text(event['fightStyle']) || undefined,
        agents: (event['agents'] as string[]) ?? [],
        totalRounds: Number(event['rounds'] ?? 1),
        status: 'running',
      };
    case 'round_start':
      return withRound(
        { ...view, totalRounds: Number(event['totalRounds'] ?? view.totalRounds) },
        Number(event['round']),
        (r) => r,
      );
    case 'agent_start':
      return withAnswer(view, event, (a) => ({ ...a, model: text(event['model']) || a.model, text: '', done: false }));
    case 'agent_delta':
      return withAnswer(view, event, (a) => ({ ...a, text: a.text + text(event['delta']) }));
    case 'agent_complete':
      return withAnswer(view, event, (a) => ({
        ...a,
        model: text(event['model']) || a.model,
        text: text(event['message']) || a.text,
        done: true,
        citations: (event['citations'] as Citation[] | undefined) ?? a.citations,
      }));
    case 'search_start':
      return withAnswer(view, event, (a) => ({ ...a, searches: [...a.searches, { query: text(event['query']) }] }));
    case 'search_complete':
      return withAnswer(view, event, (a) => ({
        ...a,
        searches: a.searches.map((s, i) =>
          i === a.searches.length - 1 ? { ...s, citations: (event['citations'] as Citation[]) ?? [] } : s,
        ),
      }));
    case 'vote_update':
      return withRound(view, roundOf(event, view), (r) => ({
        ...r,
        votes: [
          ...r.votes,
          {
            voter: text(event['voter']),
            votedFor: (event['votedFor'] as string | null) ?? null,
            ...(event['reason'] ? { reason: text(event['reason']) } : {}),
          },
        ],
      }));
    case 'voting_complete':
      return withRound(view, roundOf(event, view), (r) => ({
        ...r,
        results: (event['results'] as RoundView['results']) ?? [],
      }));
    case 'leaderboard_update':
      return { ...view, leaderboard: (event['leaderboard'] as SessionView['leaderboard']) ?? view.leaderboard };
    case 'round_complete':
      return withRound(view, roundOf(event, view), (r) => ({
        ...r,
        winner: (event['winner'] as string | null) ?? null,
      }));
    case 'synthesis_start':
      return { ...view, synthesis: { model: text(event['model']), text: '', done: false } };
    case 'synthesis_delta':
      return view.synthesis
        ? { ...view, synthesis: { ...view.synthesis, text: view.synthesis.text + text(event['delta']) } }
        : view;
    case 'synthesis_complete':
      return { ...view, synthesis: { model: text(event['model']), text: text(event['message']), done: true } };
    case 'session_complete':
      return {
        ...view,
        status: 'complete',
        winner: (event['winner'] as string | null) ?? null,
        leaderboard: (event['finalLeaderboard'] as SessionView['leaderboard']) ?? view.leaderboard,
      };
    case 'error': {
      const code = text(event['code']);
      const message = text(event['error']) || code;
      if (code === 'turn_interrupted' && event['agent'])
        // The turn moved on and is asked again: what it wrote so far is void.
        return withAnswer(view, event, (a) => ({ ...a, text: '', done: false }));
      if (event['agent']) return withAnswer(view, event, (a) => ({ ...a, error: message, done: true }));
      const ended = ['session_cancelled', 'session_timeout', 'session_interrupted'].includes(code);
      return { ...view, notices: [...view.notices, message], ...(ended ? { status: 'failed' as const } : {}) };
    }
    default:
      return view;
  }
}
