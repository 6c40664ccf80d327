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
import { BudgetError } from './budget-errors.js';
import { announceBudgetCrossing, type BudgetThresholdCrossing } from './budget-notices.js';
import { callCostBoundMicroUsd, OUTPUT_CAP_TOKENS } from './call-cost-bound.js';

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
export { keyBudgets } from '../store/budget-counters.js';

export interface BudgetStore {
  reserve(ref: BudgetCounterRef, limitMicroUsd: number, amountMicroUsd: number): Promise<boolean>;
  /** The counter after the settlement. */
  settle(ref: BudgetCounterRef, reservedMicroUsd: number, costMicroUsd: number): Promise<BudgetCounter>;
}

/** Shares of the limit whose crossing by the settled spend is told (`observe`). */
export const BUDGET_THRESHOLDS_PERCENT = [50, 80, 100] as const;

export type { BudgetThresholdCrossing } from './budget-notices.js';

export const DYNAMODB_BUDGET_STORE: BudgetStore = { reserve: reserveBudget, settle: settleBudget };

const systemNow = () => new Date();

export interface BudgetHoldsDeps {
  /** @default DYNAMODB_BUDGET_STORE */
  readonly store?: BudgetStore;
  /** @default the system clock */
  readonly now?: () => Date;
  /** Work the invocation must finish before it ends (the settlements). */
  readonly defer: (task: () => Promise<void>) => void;
  /** Hears each threshold crossing. @default announceBudgetCrossing (a metric and a log line) */
  readonly observe?: (crossing: BudgetThresholdCrossing) => void;
}

interface HeldPart {
  readonly budget: ScopedBudget;
  readonly ref: BudgetCounterRef;
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
      const ref = budgetCounterRef(budget.scope, budget.budget.period, now);
      if (!(await this.reserve(ref, budget.budget.limitMicroUsd, amountMicroUsd, held))) {
        // The budgets reserved so far give theirs back: the call is not made.
        for (const part of held) this.write(part, 0);
        throw exceeded(budget, amountMicroUsd, ref.resetsAt, now);
      }
      held.push({ budget, ref, amountMicroUsd });
    }
    this.open.push(held);
  }

  /** One reservation; a store failure gives back what `held` took and fails the call unmade. */
  private async reserve(
    ref: BudgetCounterRef,
    limitMicroUsd: number,
    amountMicroUsd: number,
    held: readonly HeldPart[],
  ): Promise<boolean> {
    try {
      return await (this.deps.store ?? DYNAMODB_BUDGET_STORE).reserve(ref, limitMicroUsd, amountMicroUsd);
    } catch (error) {
      for (const part of held) this.write(part, 0);
      throw new BudgetError('unavailable', `budget counter ${ref.scope} could not be written`, { cause: error });
    }
  }

  /**
   * Takes the latest open reservation out of this request's hands, for a call whose cost is
   * metered in another invocation (a job, settled when it ends: settleHeldBudgets).
   */
  detach(): HeldBudget[] {
    return (this.open.pop() ?? []).map(({ ref, amountMicroUsd }) => ({
      scope: ref.scope,
      periodStart: ref.periodStart,
      ...(ref.expiresAt === undefined ? {} : { expiresAt: ref.expiresAt }),
      amountMicroUsd,
    }));
  }

  /** The oldest open reservation becomes `costMicroUsd`, the metered cost of its call. */
  settle(costMicroUsd: number): void {
    const held = this.open.shift();
    for (const part of held ?? []) this.write(part, costMicroUsd);
  }

  private write(part: HeldPart, costMicroUsd: number): void {
    const written = settleWithRetries(
      this.deps.store ?? DYNAMODB_BUDGET_STORE,
      part.ref,
      part.amountMicroUsd,
      costMicroUsd,
    ).then((after) => {
      if (after && costMicroUsd > 0) this.tellCrossings(part, after.spentMicroUsd - costMicroUsd, after.spentMicroUsd);
    });
    this.deps.defer(() => written);
  }

  /** Each threshold between the spend before this settlement (exclusive) and after it (inclusive). */
  private tellCrossings(part: HeldPart, before: number, after: number): void {
    const { limitMicroUsd } = part.budget.budget;
    for (const thresholdPercent of BUDGET_THRESHOLDS_PERCENT) {
      const mark = (limitMicroUsd * thresholdPercent) / 100;
      if (before < mark && after >= mark)
        (this.deps.observe ?? announceBudgetCrossing)({
          budget: part.budget,
          periodStart: part.ref.periodStart,
          thresholdPercent,
          spentMicroUsd: after,
        });
    }
  }
}

/**
 * A settlement that still fails leaves the reservation committed: the budget then counts more
 * than was spent (it refuses early), never less. Logged with what it would have moved.
 */
/**
 * Settles reservations a job record kept (BudgetHolds.detach) to the job's metered cost, each
 * as a request's are: retried, and a settlement that still fails leaves its reservation.
 */
export async function settleHeldBudgets(
  held: readonly HeldBudget[],
  costMicroUsd: number,
  store: BudgetStore = DYNAMODB_BUDGET_STORE,
): Promise<void> {
  await Promise.all(held.map((part) => settleWithRetries(store, part, part.amountMicroUsd, costMicroUsd)));
}

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
