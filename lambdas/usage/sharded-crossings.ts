import { logger } from '../config/logger.js';
import type { BudgetCounter, BudgetCounterRef, ScopedBudget } from '../store/budget-counters.js';
import { claimCrossing, readShardedCounter } from '../store/budget-shards.js';
import type { BudgetObserver } from './budget-notices.js';

/**
 * Threshold crossings of budgets kept on shards (an account's: lambdas/store/budget-shards.ts).
 * A settlement on one counter sees that counter's spend before and after, which for a key's
 * budget is the whole story (lambdas/usage/budget-holds.ts tells it at once); a shard's is a
 * slice of it. So the sum is read, but not on every settlement: reservations land on shards at
 * random, so a shard's spend times the shard count estimates the whole, and only a settlement
 * whose estimate reaches half of the next untold threshold reads the sum, at most once per
 * `minIntervalMs` per budget on an instance. A refusal (the budget is full) reads it too. Every
 * threshold the sum has reached is claimed (one conditional write each, claimCrossing), and the
 * instance whose claim lands tells it: once per budget, period and threshold, whoever reads first.
 *
 * The price: a crossing is told by the first check after it, so a budget whose traffic stops
 * within a second of a crossing tells it with its next settlement or refusal.
 */

export interface CrossingWatchDeps {
  readonly readTotal: (ref: BudgetCounterRef, shards: number) => Promise<BudgetCounter>;
  readonly claim: (ref: BudgetCounterRef, thresholdPercent: number) => Promise<boolean>;
  readonly now: () => number;
}

const DYNAMODB_WATCH_DEPS: CrossingWatchDeps = {
  readTotal: (ref, shards) => readShardedCounter(ref, shards),
  claim: claimCrossing,
  now: Date.now,
};

interface Watched {
  /** Thresholds this instance knows to be told (by itself or another). */
  readonly told: Set<number>;
  lastCheckAt: number;
}

/** Budgets and periods an instance remembers; the oldest are forgotten first (then merely re-read). */
const MAX_WATCHED = 1_000;

export class ShardedCrossingWatch {
  private readonly watched = new Map<string, Watched>();

  constructor(
    private readonly thresholdsPercent: readonly number[],
    private readonly deps: CrossingWatchDeps = DYNAMODB_WATCH_DEPS,
    private readonly minIntervalMs = 1_000,
  ) {}

  /** After a settlement on one of `budget`'s shards, whose spend it left at `shardSpentMicroUsd`. */
  async settled(
    budget: ScopedBudget,
    ref: BudgetCounterRef,
    shardSpentMicroUsd: number,
    observe: BudgetObserver,
  ): Promise<void> {
    const next = this.thresholdsPercent.find((t) => !this.entry(budget, ref).told.has(t));
    if (next === undefined) return;
    const estimate = shardSpentMicroUsd * (budget.shards ?? 1);
    if (estimate * 2 < (budget.budget.limitMicroUsd * next) / 100) return;
    await this.check(budget, ref, observe);
  }

  /** After a call `budget` could not hold: it may just have been filled. */
  refused(budget: ScopedBudget, ref: BudgetCounterRef, observe: BudgetObserver) {
    return this.check(budget, ref, observe);
  }

  private entry(budget: ScopedBudget, ref: BudgetCounterRef): Watched {
    const key = `${budget.scope}\n${ref.periodStart}`;
    let entry = this.watched.get(key);
    if (!entry) {
      if (this.watched.size >= MAX_WATCHED) this.watched.delete(this.watched.keys().next().value!);
      entry = { told: new Set(), lastCheckAt: -Infinity };
      this.watched.set(key, entry);
    }
    return entry;
  }

  private async check(budget: ScopedBudget, ref: BudgetCounterRef, observe: BudgetObserver): Promise<void> {
    const entry = this.entry(budget, ref);
    const now = this.deps.now();
    if (now - entry.lastCheckAt < this.minIntervalMs) return;
    entry.lastCheckAt = now;
    try {
      const { spentMicroUsd } = await this.deps.readTotal(ref, budget.shards ?? 1);
      for (const thresholdPercent of this.thresholdsPercent) {
        if (entry.told.has(thresholdPercent)) continue;
        if (spentMicroUsd < (budget.budget.limitMicroUsd * thresholdPercent) / 100) break;
        if (await this.deps.claim(ref, thresholdPercent))
          await observe({ budget, periodStart: ref.periodStart, thresholdPercent, spentMicroUsd });
        entry.told.add(thresholdPercent);
      }
    } catch (error) {
      // Only a notice is at stake (the spend itself is settled): the next check tries again.
      logger.warn('budget threshold check failed', { budgetScope: budget.scope, error: (error as Error).message });
    }
  }
}
