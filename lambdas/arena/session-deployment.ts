/**
 * The deployment's wiring of a session host (session-host.ts): the chat core and search of
 * this configuration, the session log in DynamoDB, the usage writes awaited before a tenure
 * ends, and the host's time limits from the function's own deadline and the configuration.
 */
import type { GatewayConfiguration } from '../config/configuration.js';
import { logger } from '../config/logger.js';
import { deploymentChatDeps } from '../chat/chat-deployment.js';
import { deploymentSearchDeps } from '../search/search-deployment.js';
import { countEndedSession } from '../store/arena-leaderboards.js';
import { saveArenaSession } from '../store/arena-sessions.js';
import { appendSessionEvents, endSessionTenure, renewSessionLease } from '../store/session-log.js';
import type { ScopedBudget } from '../usage/budget-holds.js';
import { arenaChat } from './arena-chat.js';
import { arenaSearch, searchAvailable } from './arena-search.js';
import { DEFAULT_MAX_PAGE_BYTES, DEFAULT_PAGE_INTERVAL_MS } from './durable-events.js';
import type { HostDeps, SessionTiming } from './session-host.js';
import { sessionRecord, type SessionOwner } from './session-record.js';
import { webSearchTool } from './web-search-tool.js';

/** Who holds the session and for whom it plays. */
export interface HostPlacement {
  readonly sessionId: string;
  readonly holder: string;
  readonly epoch: number;
  readonly owner: SessionOwner;
  readonly startedAt: Date;
  /** The plan was kept, so a later host can continue (store/session-log.ts PLAN). */
  readonly resumable: boolean;
  /** The budgets every agent turn and vote reserves against (the owner's key's). */
  readonly budgets: readonly ScopedBudget[];
}

/** After this point no new turn starts: the longest turn still fits before the deadline. */
const TURN_MARGIN_MS = 120_000;
/** Before the function's end: the tenure's last writes (usage, the summary, the release). */
const END_MARGIN_MS = 10_000;

/**
 * A host's time: from the function's deadline (epoch ms), the configured hand-off time, and
 * whether the session may go on after this host (a runner is deployed, the plan was kept, and
 * the session is younger than its bound).
 */
export function hostTiming(
  config: GatewayConfiguration,
  placement: HostPlacement,
  functionDeadline: number,
  now: number,
): SessionTiming {
  const { sessions } = config;
  const deadlineAt = Math.max(now, functionDeadline - END_MARGIN_MS);
  const byDeadline = Math.max(now, deadlineAt - TURN_MARGIN_MS);
  const handOffAt =
    sessions.handOffSeconds === undefined ? byDeadline : Math.min(byDeadline, now + sessions.handOffSeconds * 1000);
  const young = now < placement.startedAt.getTime() + sessions.maxSeconds * 1000;
  return {
    leaseMs: sessions.leaseSeconds * 1000,
    pageIntervalMs: DEFAULT_PAGE_INTERVAL_MS,
    maxPageBytes: DEFAULT_MAX_PAGE_BYTES,
    handOffAt,
    deadlineAt,
    mayHandOn: sessions.runnerArn !== undefined && placement.resumable && young,
  };
}

export async function deploymentHostDeps(
  config: GatewayConfiguration,
  placement: HostPlacement,
  timing: SessionTiming,
): Promise<HostDeps> {
  const { sessionId, holder, epoch, owner } = placement;
  const session = { accountId: owner.accountId, sessionId };
  const deferred: Promise<void>[] = [];
  const defer = (task: () => Promise<void>) =>
    void deferred.push(
      task().catch((error: unknown) =>
        logger.error('arena usage write failed', { sessionId, error: (error as Error).message }),
      ),
    );
  const account = {
    accountId: owner.accountId,
    ...(owner.keyId ? { keyId: owner.keyId } : {}),
    budgets: placement.budgets,
  };
  // A turn cut short at a hand-off is metered as one the caller left: what was used is billed.
  const context = { account, sessionId, route: owner.route, deadlineReached: () => false, defer };
  const chatDeps = deploymentChatDeps(config);
  const searchDeps = deploymentSearchDeps(config);
  const search = { search: searchDeps, recordUsage: chatDeps.recordUsage, now: Date.now };
  // Agents search by themselves where the deployment has a search provider (docs/interface.md §4.3).
  const tools = (await searchAvailable(searchDeps)) ? [webSearchTool(arenaSearch(context, search), Date.now)] : [];
  return {
    chat: arenaChat(context, chatDeps),
    tools,
    timing,
    now: Date.now,
    settleUsage: async () => {
      while (deferred.length > 0) await Promise.all(deferred.splice(0));
    },
    log: {
      append: (page) => appendSessionEvents(session, epoch, page),
      renew: () => renewSessionLease(session, holder, epoch, timing.leaseMs),
      end: async (status, lastId) => {
        const ended = await endSessionTenure(session, holder, epoch, status, lastId);
        // The leaderboard's fits know they may be missing a session by this count.
        if (ended && status !== 'running') await countEndedSession(owner.accountId);
      },
      saveSummary: (state, at) => saveArenaSession(sessionRecord(state, owner, placement.startedAt, at)),
    },
  };
}
