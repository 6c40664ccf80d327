import { setTimeout as sleep } from 'node:timers/promises';
import { logger } from '../config/logger.js';
import type { ChatRequest } from '../providers/chat-types.js';
import {
  budgetCounterRef,
  reserveBudget,
  settleBudget,
  type BudgetCounter,
  type BudgetCounterRef,
  type HeldBudget,
  type ScopedBudget,
} from '../store/budget-counters.js';
import { reserveOnShards } from '../store/budget-shards.js';
import { BudgetError } from './budget-errors.js';
import { announceBudgetCrossing, type BudgetObserver, type BudgetThresholdCrossing } from './budget-notices.js';
import { callCostBoundMicroUsd, OUTPUT_CAP_TOKENS } from './call-cost-bound.js';
import { ShardedCrossingWatch } from './sharded-crossings.js';

/**
 * One request's budgets and the reservations it holds against them (docs/interface.md §2.5). Before each upstream call (`admit`) the call's greatest possible cost
 * (call-cost-bound.ts) is reserved against every budget the request falls under, the key's and
 * the account's, each one conditional write that succeeds only if the budget can hold it beside
 * everything already committed; the call is refused before it is made when one cannot. After
 * the call its metered cost replaces the reservation (`settle`, once per metered attempt, in
 * order: a request's attempts run one after another), a failed call's cost 0 releasing it.
 *
 * Hence no budget is ever committed past its limit by any number of concurrent requests on any
 * number of instances, and since no call can cost more than its reservation, no budget is spent
 * past it either. What a reservation holds meanwhile is not spendable by others: a burst near
 * the limit is refused a little early, never let through late.
 */

export type { ScopedBudget } from '../store/budget-counters.js';

export interface BudgetStore {
  reserve(ref: BudgetCounterRef, limitMicroUsd: number, amountMicroUsd: number): Promise<boolean>;
  /**
   * Reserves on a budget kept on `shards` counters: the shard's counter reserved on, or
   * undefined when the budget cannot hold it. @default reserveOnShards
   */
  reserveSharded?(
    ref: BudgetCounterRef,
    limitMicroUsd: number,
    amountMicroUsd: number,
    shards: number,
  ): Promise<BudgetCounterRef | undefined>;
  /** The counter after the settlement. */
  settle(ref: BudgetCounterRef, reservedMicroUsd: number, costMicroUsd: number): Promise<BudgetCounter>;
}

/** Shares of the limit whose crossing by the settled spend is told (`observe`). */
export const BUDGET_THRESHOLDS_PERCENT = [50, 80, 100] as const;

export type { BudgetObserver, BudgetThresholdCrossing } from './budget-notices.js';

export const DYNAMODB_BUDGET_STORE: BudgetStore = {
  reserve: reserveBudget,
  reserveSharded: async (ref, limit, amount, shards) => (await reserveOnShards(ref, limit, amount, shards))?.ref,
  settle: settleBudget,
};

/** This instance's watch over sharded budgets' thresholds (one per process: it remembers what was told). */
const SHARDED_WATCH = new ShardedCrossingWatch(BUDGET_THRESHOLDS_PERCENT);

const systemNow = () => new Date();

export interface BudgetHoldsDeps {
  /** @default DYNAMODB_BUDGET_STORE */
  readonly store?: BudgetStore;
  /** @default the system clock */
  readonly now?: () => Date;
  /** Work the invocation must finish before it ends (the settlements). */
  readonly defer: (task: () => Promise<void>) => void;
  /** Hears each threshold crossing. @default announceBudgetCrossing (a metric and a log line) */
  readonly observe?: BudgetObserver;
  /** Finds sharded budgets' crossings. @default one per process */
  readonly watch?: ShardedCrossingWatch;
}

interface HeldPart {
  readonly budget: ScopedBudget;
  /** The counter reserved on: the budget's period counter, or one of its shards. */
  readonly ref: BudgetCounterRef;
  /** The budget's period counter (the shards' sum, for a sharded budget). */
  readonly periodRef: BudgetCounterRef;
  readonly amountMicroUsd: number;
}

/** A settlement DynamoDB refused is tried this many times in all, backing off. */
const SETTLE_TRIES = 4;
const SETTLE_BACKOFF_MS = 100;

export class BudgetHolds {
  private readonly open: HeldPart[][] = [];

  constructor(
    private readonly budgets: readonly ScopedBudget[],
    private readonly deps: BudgetHoldsDeps,
  ) {}

  /** Whether any budget applies: without one, nothing is reserved or written. */
  get active(): boolean {
    return this.budgets.length > 0;
  }

  /**
   * Reserves the call's greatest cost against every budget, or throws BudgetError (reserving
   * nothing). Returns the request to send: with `max_tokens` set to OUTPUT_CAP_TOKENS when the
   * caller gave none, so that what was reserved is truly the most the call can cost.
   */
  async admit(model: string, request: ChatRequest): Promise<ChatRequest> {
    if (!this.active) return request;
    const sent = request.max_tokens === undefined ? { ...request, max_tokens: OUTPUT_CAP_TOKENS } : request;
    await this.hold(callCostBoundMicroUsd(model, sent));
    return sent;
  }

  /**
   * Reserves `amountMicroUsd`, the greatest cost of a call that is not a chat request (an
   * embedding, a unit-priced call), against every budget, or throws BudgetError (reserving
   * nothing). The caller settles it like a chat call's, once its cost is metered.
   */
  async hold(amountMicroUsd: number): Promise<void> {
    if (!this.active) return;
    const now = (this.deps.now ?? systemNow)();
    const held: HeldPart[] = [];
    for (const budget of this.budgets) {
      const periodRef = budgetCounterRef(budget.scope, budget.budget.period, now);
      const ref = await this.reserve(budget, periodRef, amountMicroUsd, held);
      if (!ref) {
        // The budgets reserved so far give theirs back: the call is not made.
        for (const part of held) this.write(part, 0);
        if (budget.shards !== undefined)
          this.deps.defer(() => (this.deps.watch ?? SHARDED_WATCH).refused(budget, periodRef, this.observe));
        throw exceeded(budget, amountMicroUsd, periodRef.resetsAt, now);
      }
      held.push({ budget, ref, periodRef, amountMicroUsd });
    }
    this.open.push(held);
  }

  private readonly observe = (crossing: BudgetThresholdCrossing) =>
    (this.deps.observe ?? announceBudgetCrossing)(crossing);

  /**
   * One reservation: the counter it landed on, or undefined when the budget cannot hold it. A
   * store failure gives back what `held` took and fails the call unmade.
   */
  private async reserve(
    budget: ScopedBudget,
    periodRef: BudgetCounterRef,
    amountMicroUsd: number,
    held: readonly HeldPart[],
  ): Promise<BudgetCounterRef | undefined> {
    const store = this.deps.store ?? DYNAMODB_BUDGET_STORE;
    const { limitMicroUsd } = budget.budget;
    try {
      if (budget.shards === undefined)
        return (await store.reserve(periodRef, limitMicroUsd, amountMicroUsd)) ? periodRef : undefined;
      const reserveSharded = store.reserveSharded ?? DYNAMODB_BUDGET_STORE.reserveSharded!;
      return await reserveSharded(periodRef, limitMicroUsd, amountMicroUsd, budget.shards);
    } catch (error) {
      for (const part of held) this.write(part, 0);
      throw new BudgetError('unavailable', `budget counter ${periodRef.scope} could not be written`, {
        cause: error,
      });
    }
  }

  /**
   * Takes the latest open reservation out of this request's hands, for a call whose cost is
   * metered in another invocation (a job, settled when it ends: settleHeldBudgets).
   */
  detach(): HeldBudget[] {
    return (this.open.pop() ?? []).map(({ ref, amountMicroUsd, budget }) => ({
      scope: ref.scope,
      periodStart: ref.periodStart,
      ...(ref.expiresAt === undefined ? {} : { expiresAt: ref.expiresAt }),
      amountMicroUsd,
      budget,
    }));
  }

  /** The oldest open reservation becomes `costMicroUsd`, the metered cost of its call. */
  settle(costMicroUsd: number): void {
    const held = this.open.shift();
    for (const part of held ?? []) this.write(part, costMicroUsd);
  }

  private write(part: HeldPart, costMicroUsd: number): void {
    const store = this.deps.store ?? DYNAMODB_BUDGET_STORE;
    const written = settleWithRetries(store, part.ref, part.amountMicroUsd, costMicroUsd).then((after) =>
      after && costMicroUsd > 0
        ? tellCrossings(part, after, costMicroUsd, this.observe, this.deps.watch ?? SHARDED_WATCH)
        : undefined,
    );
    this.deps.defer(() => written);
  }
}

/**
 * Tells the thresholds a settlement of `costMicroUsd` crossed. A whole counter's spend before
 * (exclusive) and after (inclusive) it are known, so each threshold between is told by this
 * settlement alone; a shard's are a slice of the budget's, which the watch reads when due.
 */
async function tellCrossings(
  part: Pick<HeldPart, 'budget' | 'periodRef'>,
  after: BudgetCounter,
  costMicroUsd: number,
  observe: BudgetObserver,
  watch: ShardedCrossingWatch,
): Promise<void> {
  const { budget, periodRef } = part;
  if (budget.shards !== undefined) return watch.settled(budget, periodRef, after.spentMicroUsd, observe);
  const { limitMicroUsd } = budget.budget;
  const before = after.spentMicroUsd - costMicroUsd;
  for (const thresholdPercent of BUDGET_THRESHOLDS_PERCENT) {
    const mark = (limitMicroUsd * thresholdPercent) / 100;
    if (before < mark && after.spentMicroUsd >= mark)
      await observe({
        budget,
        periodStart: periodRef.periodStart,
        thresholdPercent,
        spentMicroUsd: after.spentMicroUsd,
      });
  }
}

/**
 * Settles reservations a job record kept (BudgetHolds.detach) to the job's metered cost, each
 * as a request's are: retried, a settlement that still fails leaving its reservation, and the
 * thresholds it crosses told. The budget webhook is the account's as the job's request found it,
 * kept on the record with the budget: the poller's tasks read no account's records.
 */
export async function settleHeldBudgets(
  held: readonly HeldBudget[],
  costMicroUsd: number,
  store: BudgetStore = DYNAMODB_BUDGET_STORE,
  observe: BudgetObserver = announceBudgetCrossing,
): Promise<void> {
  await Promise.all(
    held.map(async (part) => {
      const after = await settleWithRetries(store, part, part.amountMicroUsd, costMicroUsd);
      if (!after || costMicroUsd <= 0 || !part.budget) return;
      const periodRef = { scope: part.budget.scope, periodStart: part.periodStart, expiresAt: part.expiresAt };
      await tellCrossings({ budget: part.budget, periodRef }, after, costMicroUsd, observe, SHARDED_WATCH);
    }),
  );
}

/**
 * A settlement that still fails leaves the reservation committed: the budget then counts more
 * than was spent (it refuses early), never less. Logged with what it would have moved.
 */
async function settleWithRetries(
  store: BudgetStore,
  ref: BudgetCounterRef,
  reservedMicroUsd: number,
  costMicroUsd: number,
): Promise<BudgetCounter | undefined> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await store.settle(ref, reservedMicroUsd, costMicroUsd);
    } catch (error) {
      if (attempt >= SETTLE_TRIES) {
        logger.error('budget settlement failed; the reservation stays committed', {
          scope: ref.scope,
          periodStart: ref.periodStart,
          reservedMicroUsd,
          costMicroUsd,
          error: (error as Error).message,
        });
        return undefined;
      }
      await sleep(SETTLE_BACKOFF_MS * 2 ** (attempt - 1));
    }
  }
}

const usd = (microUsd: number) => `$${(microUsd / 1e6).toFixed(microUsd % 10_000 === 0 ? 2 : 6)}`;

function exceeded(budget: ScopedBudget, amountMicroUsd: number, resetsAt: Date | undefined, now: Date): BudgetError {
  const { limitMicroUsd, period } = budget.budget;
  const whose = budget.owner === 'key' ? "This key's" : "This account's";
  const when = resetsAt ? `; it resets at ${resetsAt.toISOString()}` : '; it does not reset';
  return new BudgetError(
    'exceeded',
    `${whose} ${period} budget of ${usd(limitMicroUsd)} cannot hold this call (up to ${usd(amountMicroUsd)})${when}`,
    { field: `budget.${budget.owner}`, ...(resetsAt ? { retryAfterMs: resetsAt.getTime() - now.getTime() } : {}) },
  );
}
