import type { HeldBudget } from '../store/budget-counters.js';
/**
 * One long-running upstream job (a video generation, a fashion prediction) as the gateway
 * keeps it in the jobs table: who asked, what the upstream calls it, and how far it got.
 * Kind-specific inputs and results stay opaque JSON here; the kind's driver reads them.
 */

export const JOB_PHASES = ['queued', 'running', 'succeeded', 'failed'] as const;
export type JobPhase = (typeof JOB_PHASES)[number];
export type EndPhase = Extract<JobPhase, 'succeeded' | 'failed'>;

export type JsonObject = { readonly [key: string]: unknown };

export interface JobError {
  /** A stable name a client can branch on (`Job.TimedOut`, a provider's failure kind, ...). */
  readonly name: string;
  readonly message: string;
}

/** How the job's webhook went (docs/interface.md §6.4); absent until the first attempt. */
export const WEBHOOK_STATES = ['pending', 'delivered', 'failed'] as const;
export type WebhookState = (typeof WEBHOOK_STATES)[number];

export interface WebhookDelivery {
  /** `pending` while retries remain after a failed attempt. */
  readonly status: WebhookState;
  readonly attempts: number;
  /** The receiver's HTTP status at the last attempt; absent when it never answered. */
  readonly lastStatus?: number;
}

export interface JobRecord {
  /** The id the caller sees; also the Step Functions execution name. */
  readonly jobId: string;
  /** The driver that polls and prices it (lambdas/jobs/job-driver-registry.ts). */
  readonly kind: string;
  readonly accountId: string;
  readonly keyId?: string;
  /** The submitting request: usage is keyed by it, so the job is metered once whatever the retries. */
  readonly requestId: string;
  /** The submit route's id, which usage is reported under. */
  readonly route: string;
  readonly provider: string;
  /** The upstream model (or product) the job runs on. */
  readonly model: string;
  readonly upstreamJobId: string;
  readonly phase: JobPhase;
  /** The upstream's own last status word, as it said it (`Processing`, `starting`, ...). */
  readonly upstreamStatus?: string;
  /** What the kind needs to poll and price it (resolution, duration, credits asked for...). */
  readonly details?: JsonObject;
  readonly result?: JsonObject;
  readonly error?: JobError;
  /** ISO 8601; also the time the job's usage entry carries. */
  readonly createdAt: string;
  readonly updatedAt: string;
  readonly endedAt?: string;
  /** Polls recorded so far (the state machine's attempt number, so replays do not add). */
  readonly polls: number;
  /** Epoch seconds: the table's TTL attribute; reads treat a job past it as gone. */
  readonly expiresAt: number;
  /**
   * Epoch milliseconds until which `pollLeaseHolder` alone may ask the upstream (poll-lease.ts):
   * the poller and every stream watching the job share one upstream call per lease.
   */
  readonly pollLeaseUntil?: number;
  readonly pollLeaseHolder?: string;
  /** The streams watching the job: watcher id → epoch milliseconds its slot lapses (job-watchers.ts). */
  readonly watchers?: Readonly<Record<string, number>>;
  /** The caller's URL the job's end is POSTed to (lambdas/jobs/webhook-url.ts). */
  readonly webhookUrl?: string;
  /** The delivery to `webhookUrl` so far (lambdas/jobs/notify-step.ts). */
  readonly webhook?: WebhookDelivery;
  /**
   * What the submitting key's budgets reserved for the job before it was submitted, settled to
   * its metered cost by whichever invocation ends it (settle-job.ts).
   */
  readonly budgetHolds?: readonly HeldBudget[];
}

/**
 * The `webhook` member of a job's status answer (docs/interface.md §6.4): null without a
 * `webhook_url`, `pending` until an attempt has been made and while retries remain.
 */
export function webhookReportOf(
  job: Pick<JobRecord, 'webhookUrl' | 'webhook'>,
): { status: WebhookState; attempts: number; last_status: number | null } | null {
  if (job.webhookUrl === undefined) return null;
  const delivery = job.webhook ?? { status: 'pending', attempts: 0 };
  return { status: delivery.status, attempts: delivery.attempts, last_status: delivery.lastStatus ?? null };
}

/** Kept 30 days, then left to TTL: long enough to fetch a result, short enough to hold no archive. */
export const JOB_TTL_SECONDS = 30 * 86_400;

export const ACTIVE_PHASES: readonly JobPhase[] = ['queued', 'running'];

export const isEnded = (phase: JobPhase): phase is EndPhase => phase === 'succeeded' || phase === 'failed';
