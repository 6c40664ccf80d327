import type { MetricRecord } from '../observability/metric-names.js';
import { jobMetrics } from './job-metrics.js';
import type { HeldBudget } from '../store/budget-counters.js';
import type { UsageEntry } from '../store/usage-items.js';
import { settleHeldBudgets } from '../usage/budget-holds.js';
import type { JobEnd } from './job-driver.js';
import type { JobDrivers } from './job-driver-registry.js';
import type { JobRecord } from './job-record.js';
import { jobUsageEntry } from './job-usage.js';

/**
 * How a job ends, whoever saw the end first: the poller's status step, its Catch, or a route
 * watching the job itself (fashion subscribe). Usage first, then the conditional end: a crash
 * between the two leaves the job active, and the replay that ends it finds the usage key taken
 * (refused, not counted again). The reverse order could end a job whose usage was never written.
 */
export interface SettleDeps {
  readonly drivers: JobDrivers;
  /** The ledger writer; refuses a replayed key (lambdas/usage/usage-ledger.ts recordUsage). */
  readonly recordUsage: (entry: UsageEntry) => Promise<boolean>;
  readonly jobs: { endJob(job: JobRecord, end: JobEnd, now?: Date): Promise<boolean> };
  readonly now: () => Date;
  /** Publishes the ended job's metrics (jobs/job-metrics.ts). @default none */
  readonly publishMetrics?: (records: readonly MetricRecord[]) => void;
  /** Settles the job's budget reservations to its cost. @default settleHeldBudgets (DynamoDB) */
  readonly settleHolds?: (held: readonly HeldBudget[], costMicroUsd: number) => Promise<void>;
}

/**
 * True when this call ended the job; false when another had already. Only the call that ended
 * it publishes its metrics, so a job is measured once as it is metered once.
 */
export async function settleJob(job: JobRecord, end: JobEnd, deps: SettleDeps): Promise<boolean> {
  const work = deps.drivers.get(job.kind)?.usage(job, end);
  const entry = work ? jobUsageEntry(job, work) : undefined;
  if (entry) await deps.recordUsage(entry);
  const now = deps.now();
  const ended = await deps.jobs.endJob(job, end, now);
  if (ended) {
    deps.publishMetrics?.(jobMetrics(job, end, now, entry));
    // Only the call that ended the job settles what its budgets reserved: a replay never twice.
    // A crash before this leaves the reservation committed (the budget refuses early, never late).
    if (job.budgetHolds?.length)
      await (deps.settleHolds ?? settleHeldBudgets)(job.budgetHolds, entry?.costMicroUsd ?? 0);
  }
  return ended;
}
