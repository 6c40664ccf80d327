import type { HeldBudget, ScopedBudget } from '../store/budget-counters.js';
import { BudgetHolds } from '../usage/budget-holds.js';

/**
 * A job's budget reservation (docs/interface.md §2.5): its greatest cost is reserved before it is
 * submitted upstream (a budget that cannot hold it refuses with BudgetError, nothing submitted);
 * a submission that fails gives the reservation back at once; one that succeeds hands it to the
 * job record (`budgetHolds`), and whichever invocation ends the job settles it to the metered
 * cost (settle-job.ts).
 */
export async function submitWithReservation<T>(
  budgets: readonly ScopedBudget[],
  boundMicroUsd: number,
  submit: () => Promise<T>,
): Promise<{ readonly value: T; readonly budgetHolds?: HeldBudget[] }> {
  if (budgets.length === 0) return { value: await submit() };
  const settling: Promise<void>[] = [];
  const holds = new BudgetHolds(budgets, { defer: (task) => void settling.push(task()) });
  await holds.hold(boundMicroUsd);
  try {
    const value = await submit();
    return { value, budgetHolds: holds.detach() };
  } catch (error) {
    holds.settle(0);
    await Promise.all(settling);
    throw error;
  }
}
