/**
 * The events of a battle or fight session (docs/interface.md §6.1), plus `agent_delta` so clients can show
 * answers as they are written. Every event a session produces is one of these; the session
 * event sink (session-events.ts) numbers them, and the session state is rebuilt from them.
 * Fields beyond the interface's (`round` on agent events, `model` on agent_complete, `reason`,
 * `code`, `sessionId`) are additions.
 */
import type { ArenaMode, FightStyle } from './arena-request.js';

/** A source an agent cites (docs/interface.md §2.9). */
export interface Citation {
  readonly url: string;
  readonly title: string;
  readonly snippet: string;
  readonly publishedDate?: string;
  readonly score?: number;
}

export interface LeaderboardRow {
  readonly agent: string;
  readonly score: number;
  readonly rank: number;
}

export type ArenaEvent =
  | {
      readonly type: 'session_start';
      readonly sessionId: string;
      readonly mode: ArenaMode;
      readonly fightStyle?: FightStyle;
      readonly agents: readonly string[];
      readonly rounds: number;
    }
  | { readonly type: 'round_start'; readonly round: number; readonly totalRounds: number }
  | { readonly type: 'agent_start'; readonly round: number; readonly agent: string; readonly model: string }
  | { readonly type: 'agent_delta'; readonly round: number; readonly agent: string; readonly delta: string }
  | {
      readonly type: 'agent_complete';
      readonly round: number;
      readonly agent: string;
      /** The concrete model that answered (a fallback route may have served). */
      readonly model: string;
      readonly message: string;
      /** The sources the agent's searches returned, once per URL (docs/interface.md §2.9). */
      readonly citations?: readonly Citation[];
    }
  | {
      readonly type: 'search_start';
      readonly round: number;
      readonly agent: string;
      readonly query: string;
      /** Unix seconds. */
      readonly timestamp: number;
    }
  | {
      readonly type: 'search_content';
      readonly round: number;
      readonly agent: string;
      readonly delta: string;
      readonly timestamp: number;
    }
  | {
      readonly type: 'search_complete';
      readonly round: number;
      readonly agent: string;
      readonly citations: readonly Citation[];
      readonly timestamp: number;
    }
  | { readonly type: 'voting_start'; readonly round: number }
  | {
      readonly type: 'vote_update';
      readonly round: number;
      readonly voter: string;
      /** null: an abstention (an unusable vote or a failed voter); `reason` says which. */
      readonly votedFor: string | null;
      readonly reason?: string;
    }
  | {
      readonly type: 'voting_complete';
      readonly round: number;
      readonly results: readonly { readonly agent: string; readonly votes: number }[];
    }
  | { readonly type: 'leaderboard_update'; readonly round: number; readonly leaderboard: readonly LeaderboardRow[] }
  | {
      readonly type: 'round_complete';
      readonly round: number;
      readonly winner: string | null;
      /** Set when the round ended without a vote: fewer than two agents answered. */
      readonly reason?: 'too_few_answers';
    }
  /** The synthesis (a fight asked with `synthesize`): its writer, then its text, then the whole. */
  | { readonly type: 'synthesis_start'; readonly model: string }
  | { readonly type: 'synthesis_delta'; readonly delta: string }
  | {
      readonly type: 'synthesis_complete';
      readonly model: string;
      readonly message: string;
      /** What the final answers cited, once per URL: the synthesis does not search itself. */
      readonly citations: readonly Citation[];
    }
  | {
      readonly type: 'session_complete';
      readonly winner: string | null;
      readonly finalLeaderboard: readonly LeaderboardRow[];
    }
  | {
      readonly type: 'error';
      readonly error: string;
      /** The failure class: the chat core's error kind, or `internal_error`. */
      readonly code: string;
      readonly agent?: string;
      readonly round?: number;
    };

export type ArenaEventType = ArenaEvent['type'];
