/**
 * One host's tenure of a session: the live stream's invocation that starts it, or a runner that
 * takes it over from the log. The host plays the session (orchestrator.ts), appends every event
 * to the log before anyone sees it (durable-events.ts), renews its lease while it plays, and at
 * the end of its tenure says how the session stands: over (complete, aborted, failed), or still
 * running and released for the next host.
 *
 * Its time is bounded twice. At `handOffAt` no new turn starts; at `deadlineAt` a turn still
 * running is cut short (the next host asks it again). If the session may still be handed on,
 * it simply stays running; past its whole-session bound (`sessionEndsAt`) it ends aborted with
 * `session_timeout`. A lease the host fails to renew, or an owner's cancellation seen at a
 * renewal, stops the tenure at once.
 *
 * The play does not depend on anyone reading: a client that leaves the live stream leaves the
 * session running, and reconnects to it on the events route.
 */
import { logger } from '../config/logger.js';
import type { AgentTool, ArenaChat } from './agent-turn.js';
import { durableEvents, SessionTakenOver, type PageAppender, type SequencedEvent } from './durable-events.js';
import { LiveTap } from './live-tap.js';
import { runSession } from './orchestrator.js';
import type { SessionState } from './session-state.js';

export type TenureEnd = 'ended' | 'handed_off' | 'taken_over';

export interface TenureOutcome {
  readonly end: TenureEnd;
  /** The last event id this host wrote (or found). */
  readonly lastId: number;
}

export interface SessionTiming {
  readonly leaseMs: number;
  readonly pageIntervalMs: number;
  readonly maxPageBytes: number;
  /** Epoch ms: no new turn starts after it. */
  readonly handOffAt: number;
  /** Epoch ms: a turn still running is cut short. */
  readonly deadlineAt: number;
  /** Whether another host can continue the session after this one (a runner is deployed and the session is young enough). */
  readonly mayHandOn: boolean;
}

/** What a host does with the session log; the store's functions, bound by the caller. */
export interface HostLog {
  readonly append: PageAppender;
  /** Renews the lease: the META after (`cancelled` read from it), undefined once lost. */
  readonly renew: () => Promise<{ readonly cancelled?: boolean } | undefined>;
  /** Ends the tenure: the session's final status, or `running` to release it for the next host. */
  readonly end: (status: SessionState['status'], lastId: number) => Promise<unknown>;
  /** Keeps the session's summary (sessions list, audits) as it stands now. */
  readonly saveSummary: (state: SessionState, endedAt: Date) => Promise<void>;
}

export interface Tenure {
  readonly state: SessionState;
  /** The id the next event gets. */
  readonly nextId: number;
}

export interface HostDeps {
  readonly chat: ArenaChat;
  readonly tools: readonly AgentTool[];
  readonly log: HostLog;
  readonly timing: SessionTiming;
  readonly now: () => number;
  /** The usage writes the session's calls deferred: awaited before the tenure ends. */
  readonly settleUsage: () => Promise<void>;
}

export interface HostedSession {
  /** The events as this host writes them, for one live reader (the stream that started it). */
  readonly live: AsyncIterable<SequencedEvent>;
  /** Settles once the session's standing at the end of the tenure is recorded (before the usage writes settle); never rejects. */
  readonly recorded: Promise<void>;
  /** Settles when the tenure is over and its writes are done; never rejects. */
  readonly outcome: Promise<TenureOutcome>;
}

const CUT_SHORT = new Error('the tenure reached its deadline');
const LEASE_LOST = new Error('the session lease was lost');
const CANCELLED = new Error('the session was cancelled');

export function hostSession(tenure: Tenure, deps: HostDeps): HostedSession {
  const { state } = tenure;
  const { timing } = deps;
  const controller = new AbortController();
  const tap = new LiveTap<SequencedEvent>();
  let handingOff = false;
  let cancelled = false;
  let lastId = tenure.nextId - 1;

  const handOffTimer = setTimeout(() => (handingOff ||= timing.mayHandOn), Math.max(0, timing.handOffAt - deps.now()));
  const deadlineTimer = setTimeout(
    () => {
      handingOff ||= timing.mayHandOn;
      controller.abort(CUT_SHORT);
    },
    Math.max(0, timing.deadlineAt - deps.now()),
  );
  const renewTimer = setInterval(() => void renew(), Math.max(1, Math.floor(timing.leaseMs / 3)));
  const renew = async () => {
    try {
      const meta = await deps.log.renew();
      if (!meta) controller.abort(LEASE_LOST);
      else if (meta.cancelled && !cancelled) {
        cancelled = true;
        controller.abort(CANCELLED);
      }
    } catch (error) {
      // A renewal that failed (throttled, timed out) is retried at the next tick; the lease
      // outlasts two missed renewals.
      logger.warn('arena session lease renewal failed', { sessionId: state.sessionId, error: String(error) });
    }
  };

  const events = durableEvents(
    state.sessionId,
    runSession(
      state,
      {
        chat: deps.chat,
        tools: deps.tools,
        deadlineReached: () => controller.signal.reason === CUT_SHORT && !handingOff,
        handingOff: () => handingOff && !cancelled && controller.signal.reason !== LEASE_LOST,
        cancelled: () => cancelled,
      },
      controller.signal,
    ),
    deps.log.append,
    { firstId: tenure.nextId, pageIntervalMs: timing.pageIntervalMs, maxPageBytes: timing.maxPageBytes, now: deps.now },
  );

  const play = async (): Promise<TenureOutcome> => {
    let end: TenureEnd = 'ended';
    try {
      for await (const sequenced of events) {
        lastId = sequenced.id;
        tap.push(sequenced);
      }
    } catch (error) {
      if (!(error instanceof SessionTakenOver)) throw error;
      end = 'taken_over';
    } finally {
      clearTimeout(handOffTimer);
      clearTimeout(deadlineTimer);
      clearInterval(renewTimer);
      tap.end();
      if (!controller.signal.aborted) controller.abort(CUT_SHORT);
    }
    if (controller.signal.reason === LEASE_LOST) end = 'taken_over';
    if (end !== 'taken_over') {
      if (state.status === 'running') end = 'handed_off';
      // Recorded before the usage settles: a reader told the session ended finds it ended.
      await deps.log.saveSummary(state, new Date(deps.now()));
      await deps.log.end(state.status, lastId);
    }
    markRecorded();
    await deps.settleUsage();
    return { end, lastId };
  };

  let markRecorded!: () => void;
  const recorded = new Promise<void>((resolve) => (markRecorded = resolve));
  const outcome = play().catch((error: unknown) => {
    // The log is the truth: what was written stands, and the next host continues from it.
    logger.error('arena session host failed', { sessionId: state.sessionId, error: (error as Error).stack });
    tap.end();
    markRecorded();
    return { end: 'handed_off' as const, lastId };
  });
  return { live: tap, recorded, outcome };
}
