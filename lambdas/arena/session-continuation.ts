/**
 * Sessions longer than one invocation: the session runner, a Step Functions execution per
 * session (lib/constructs/session-runner-definition.ts), started beside the first host. It
 * wakes once a lease period, and each time asks `continueSession`:
 *
 * - `held`: a host's lease is live (the first host still plays, or another runner does): wait;
 * - `continue`: this runner took the session over from the log and handed it on at its own
 *   time limit: run again at once;
 * - `ended`: the session is over (or gone): the execution ends.
 *
 * A host that stopped without a word (a crash, a killed function) leaves its lease to lapse,
 * and the next wake takes over from the last logged event: finished turns are in the log and
 * are never asked again (session-resume.ts, orchestrator.ts).
 */
import { randomUUID } from 'node:crypto';
import type { GatewayConfiguration } from '../config/configuration.js';
import { ENV } from '../config/environment.js';
import { required } from '../config/configuration.js';
import { getApiKey } from '../store/api-keys.js';
import { startNamedExecution } from '../store/state-machine-executions.js';
import { getAccountBudgetSettings } from '../store/account-budgets.js';
import { keyBudgets, notifiedBudgets } from '../store/budget-counters.js';
import { accountBudgets } from '../store/budget-shards.js';
import {
  appendSessionEvents,
  endSessionTenure,
  getSessionMeta,
  getSessionPlan,
  readSessionEvents,
  takeSessionLease,
  type LoggedEvent,
  type SessionRef,
} from '../store/session-log.js';
import type { ArenaEvent } from './arena-events.js';
import type { ArenaPlan } from './arena-request.js';
import { deploymentHostDeps, hostTiming } from './session-deployment.js';
import { hostSession } from './session-host.js';
import { restoredSession } from './session-resume.js';

/** The session the runner plays on: its log is keyed by its account and id (lambdas/store/session-log.ts). */
export interface ContinuationInput {
  readonly accountId: string;
  readonly sessionId: string;
}

export interface ContinuationResult {
  readonly status: 'held' | 'continue' | 'ended';
}

/** The runner's execution input; the execution is named after the session, so it starts once. */
export interface RunnerExecutionInput extends ContinuationInput {
  /** Seconds between wakes: the lease period. */
  readonly checkSeconds: number;
}

export async function superviseSession(config: GatewayConfiguration, session: SessionRef): Promise<void> {
  const arn = required(config.sessions.runnerArn, ENV.sessionStateMachineArn);
  const input: RunnerExecutionInput = { ...session, checkSeconds: config.sessions.leaseSeconds };
  await startNamedExecution(arn, session.sessionId, input);
}

/** Log reads while restoring: a whole session, in bounded pages. */
const RESTORE_PAGE_EVENTS = 2_000;

/**
 * One wake of the runner. `functionDeadline` is when this invocation is stopped (epoch ms).
 */
export async function continueSession(
  input: ContinuationInput,
  config: GatewayConfiguration,
  functionDeadline: number,
  now: () => number = Date.now,
): Promise<ContinuationResult> {
  const { accountId, sessionId } = input;
  if (typeof sessionId !== 'string' || sessionId === '') throw new TypeError('the runner needs a sessionId');
  if (typeof accountId !== 'string' || accountId === '') throw new TypeError('the runner needs an accountId');
  const session: SessionRef = { accountId, sessionId };
  const meta = await getSessionMeta(session, now());
  if (!meta || meta.status !== 'running') return { status: 'ended' };
  if (meta.leaseUntil >= now()) return { status: 'held' };
  const holder = `runner-${randomUUID()}`;
  const taken = await takeSessionLease(session, holder, config.sessions.leaseSeconds * 1000, now());
  if (!taken) return { status: 'held' };

  const logged = await loggedEvents(session);
  const lastId = logged.at(-1)?.id ?? 0;
  const plan = taken.resumable ? ((await getSessionPlan(session)) as ArenaPlan | undefined) : undefined;
  if (!plan) {
    // Nothing to play on from: the session ends here, saying so.
    const lost: ArenaEvent = {
      type: 'error',
      code: 'session_interrupted',
      error: 'The session stopped and could not be continued',
    };
    await appendSessionEvents(session, taken.epoch, [{ id: lastId + 1, event: lost }]);
    await endSessionTenure(session, holder, taken.epoch, 'aborted', lastId + 1);
    return { status: 'ended' };
  }
  const state = restoredSession(
    sessionId,
    plan,
    logged.map((entry) => entry.event as ArenaEvent),
  );
  if (state.status !== 'running') {
    // The last host logged the end but stopped before it recorded it.
    await endSessionTenure(session, holder, taken.epoch, state.status, lastId);
    return { status: 'ended' };
  }
  const owner = { accountId: taken.accountId, ...(taken.keyId ? { keyId: taken.keyId } : {}), route: taken.route };
  // The key's and the account's budgets as their records hold them now: a change since the first
  // host applies here too.
  const [key, account] = await Promise.all([
    taken.keyId ? getApiKey(taken.keyId) : undefined,
    getAccountBudgetSettings(taken.accountId),
  ]);
  const budgets = notifiedBudgets(
    [...(taken.keyId ? keyBudgets(taken.keyId, key?.budget) : []), ...accountBudgets(taken.accountId, account.budget)],
    taken.accountId,
    account.webhookUrl,
  );
  const placement = {
    sessionId,
    holder,
    epoch: taken.epoch,
    owner,
    startedAt: new Date(taken.startedAt),
    resumable: true,
    budgets,
  };
  const timing = hostTiming(config, placement, functionDeadline, now());
  const hosted = hostSession({ state, nextId: lastId + 1 }, await deploymentHostDeps(config, placement, timing));
  const outcome = await hosted.outcome;
  if (outcome.end === 'handed_off') return { status: 'continue' };
  return { status: outcome.end === 'taken_over' ? 'held' : 'ended' };
}

async function loggedEvents(session: SessionRef): Promise<LoggedEvent[]> {
  const events: LoggedEvent[] = [];
  for (;;) {
    const read = await readSessionEvents(session, events.at(-1)?.id ?? 0, RESTORE_PAGE_EVENTS);
    events.push(...read.events);
    if (!read.more) return events;
  }
}
