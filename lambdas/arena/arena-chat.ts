import { chatCompletion, type ChatAccount, type ChatDeps } from '../chat/chat-core.js';
import type { ArenaChat, TurnContext } from './agent-turn.js';
import { settledWork, settlingWith } from './settled-work.js';

export interface ArenaCallContext {
  readonly account: ChatAccount;
  readonly sessionId: string;
  /** The manifest route usage is recorded under. */
  readonly route: string;
  /** True when the call's signal ended because time ran out. */
  readonly deadlineReached: () => boolean;
  /** Work after the response (each turn's usage entries). */
  readonly defer: (task: () => Promise<void>) => void;
}

/** `<session>/r<round>/<agent>/<purpose>`, and `.<step>` for an answer's later steps. */
export const turnRequestId = (sessionId: string, turn: TurnContext): string =>
  `${sessionId}/r${turn.round}/${turn.agent}/${turn.purpose}${(turn.step ?? 1) > 1 ? `.${turn.step}` : ''}`;

/**
 * The chat core, once per agent turn or vote. Each call has a request id of its own under the
 * session (`turnRequestId`), so its ledger entries never collide with
 * another turn's, and carries the session, round and agent into them. Arena calls never read
 * the response cache: every answer and vote is the model's own, and metered as such. A call's
 * usage is written once it has settled (settled-work.ts): a call cut short by the caller leaving
 * is metered too.
 */
export function arenaChat(context: ArenaCallContext, deps: ChatDeps): ArenaChat {
  return async (request, turn) => {
    const work = settledWork(context.defer);
    try {
      const result = await chatCompletion(
        {
          request,
          account: context.account,
          requestId: turnRequestId(context.sessionId, turn),
          route: context.route,
          startedAt: new Date(deps.now()),
          cache: { read: false, write: false, ttlSeconds: 1 },
          guardrails: [],
          signal: turn.signal,
          deadlineReached: context.deadlineReached,
          defer: work.defer,
          usageTags: { sessionId: context.sessionId, round: turn.round, agent: turn.agent, purpose: turn.purpose },
        },
        deps,
      );
      if (result.kind === 'stream') return { ...result, chunks: settlingWith(result.chunks, work.settle) };
      work.settle();
      return result;
    } catch (error) {
      work.settle();
      throw error;
    }
  };
}
