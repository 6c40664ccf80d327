import type { WebhookSender } from './webhook-delivery.js';
import { isEnded, type JobRecord, type JsonObject, type WebhookDelivery } from './job-record.js';
import { webhookHeaders } from './webhook-signature.js';

/**
 * The job poller's Notify step (docs/interface.md §6.4): once a job has ended, one signed POST
 * of its end to the caller's `webhook_url`. The state machine retries a failed attempt with
 * backoff (lib/constructs/job-poller-definition.ts) and, once its retries are spent, calls
 * this again with `giveUp`, which records the delivery failed. Every attempt is logged and
 * recorded on the job, whose own outcome never depends on it. No HTTP client and no AWS here:
 * the job records, the secrets, the per-kind status views and the sender come in as
 * dependencies.
 */

export interface JobNotifyInput {
  readonly jobId: string;
  readonly accountId: string;
  /** The machine's retries are spent: record the delivery failed, send nothing. */
  readonly giveUp?: boolean;
}

/** What a kind's event carries: its type's prefix and the object its status route answers. */
export interface JobEventView {
  /** `video`, `fashion`: the event is `<prefix>.completed` or `<prefix>.failed`. */
  readonly type: string;
  readonly data: (job: JobRecord) => Promise<JsonObject>;
}

export interface JobNotifyDeps extends WebhookSender {
  readonly jobs: {
    getOwnedJob(accountId: string, jobId: string, now?: number): Promise<JobRecord | undefined>;
    recordWebhookDelivery(job: JobRecord, delivery: WebhookDelivery): Promise<boolean>;
  };
  /** By job kind. */
  readonly views: Readonly<Record<string, JobEventView>>;
  readonly now: () => Date;
  /** One line per attempt: never the URL (it may hold a token), the body or a secret. */
  readonly log: (message: string, fields: Record<string, unknown>) => void;
}

/** The error a failed attempt throws: the machine's Retry matches its name. */
export const WEBHOOK_DELIVERY_FAILED = 'Webhook.DeliveryFailed';

export class WebhookDeliveryError extends Error {
  override readonly name = WEBHOOK_DELIVERY_FAILED;
}

export interface JobNotifyOutcome {
  /** False when the job has no webhook (or is gone, or not ended). */
  readonly webhook: boolean;
  readonly delivery?: WebhookDelivery;
}

/** `<job id>.<event type>`: one id per event, the same on every retry (the receiver's idempotency key). */
export const webhookEventId = (jobId: string, type: string) => `${jobId}.${type}`;

export async function notifyJob(input: JobNotifyInput, deps: JobNotifyDeps): Promise<JobNotifyOutcome> {
  const job = await deps.jobs.getOwnedJob(input.accountId, input.jobId, deps.now().getTime());
  if (!job?.webhookUrl || !isEnded(job.phase)) return { webhook: false };
  // A replayed step after the delivery was settled: nothing more to send.
  if (job.webhook && job.webhook.status !== 'pending') return { webhook: true, delivery: job.webhook };
  const attempts = job.webhook?.attempts ?? 0;
  const lastStatus = job.webhook?.lastStatus;
  const settle = async (delivery: WebhookDelivery) => {
    await deps.jobs.recordWebhookDelivery(job, delivery);
    return { webhook: true, delivery };
  };
  if (input.giveUp) {
    deps.log('webhook delivery failed for good', { jobId: job.jobId, attempts, lastStatus });
    return settle({ status: 'failed', attempts, ...(lastStatus === undefined ? {} : { lastStatus }) });
  }
  const view = deps.views[job.kind];
  if (!view) return settle({ status: 'failed', attempts });

  const type = `${view.type}.${job.phase === 'succeeded' ? 'completed' : 'failed'}`;
  const body = JSON.stringify({ type, timestamp: job.endedAt ?? job.updatedAt, data: await view.data(job) });
  const now = deps.now();
  const message = { id: webhookEventId(job.jobId, type), timestamp: Math.floor(now.getTime() / 1000), body };
  const headers = webhookHeaders(message, await deps.signingSecrets(job.accountId, now));
  const started = Date.now();
  const answer = await deps.deliver({ url: job.webhookUrl, headers, body });
  const attempt = attempts + 1;
  const answered = answer.kind === 'answered' ? { lastStatus: answer.status } : {};
  deps.log('webhook attempt', {
    jobId: job.jobId,
    event: type,
    attempt,
    durationMs: Date.now() - started,
    ...(answer.kind === 'answered' ? { status: answer.status } : { outcome: answer.kind, reason: answer.reason }),
  });
  if (answer.kind === 'answered' && answer.status >= 200 && answer.status < 300)
    return settle({ status: 'delivered', attempts: attempt, ...answered });
  // An address that is not public stays so for the retries' few minutes: not worth them.
  if (answer.kind === 'refused') return settle({ status: 'failed', attempts: attempt });
  await deps.jobs.recordWebhookDelivery(job, { status: 'pending', attempts: attempt, ...answered });
  throw new WebhookDeliveryError(
    answer.kind === 'answered' ? `the receiver answered ${answer.status}` : `no answer: ${answer.reason}`,
  );
}
