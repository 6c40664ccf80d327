import { configuration } from '../config/configuration.js';
import { ENV } from '../config/environment.js';
import { logger } from '../config/logger.js';
import { budgetThresholdMetrics } from '../observability/budget-metrics.js';
import { publishMetrics } from '../observability/metrics.js';
import type { ScopedBudget } from '../store/budget-counters.js';
import { deploymentQueueOptions, sqsMessageSender } from './usage-retry-queue.js';

/** A budget's settled spend reaching a threshold (50, 80, 100%) in a period: told once, by the settlement that crossed it. */
export interface BudgetThresholdCrossing {
  readonly budget: ScopedBudget;
  readonly periodStart: string;
  readonly thresholdPercent: number;
  readonly spentMicroUsd: number;
}

/** Hears each crossing; what it returns is awaited by the work it is part of (after the response). */
export type BudgetObserver = (crossing: BudgetThresholdCrossing) => void | Promise<void>;

/** The budget webhook's event (docs/interface.md §6.4). */
export interface BudgetThresholdEvent {
  readonly type: 'budget.threshold_crossed';
  readonly timestamp: string;
  readonly data: {
    readonly owner: 'key' | 'account';
    readonly keyId?: string;
    readonly accountId: string;
    readonly period: string;
    readonly periodStart: string;
    readonly limitUsd: number;
    readonly spentUsd: number;
    readonly thresholdPercent: number;
  };
}

/** What the notice queue carries: one event, where it goes, and its id. */
export interface BudgetNotice {
  /** `<budget scope>.<period start>.<threshold>`: one per crossing, the same on every attempt. */
  readonly id: string;
  readonly accountId: string;
  readonly url: string;
  readonly event: BudgetThresholdEvent;
}

export const budgetEventId = (crossing: Omit<BudgetThresholdCrossing, 'spentMicroUsd'>): string =>
  `${crossing.budget.scope}.${crossing.periodStart}.${crossing.thresholdPercent}`;

const KEY_SCOPE = 'KEY#';

export function budgetThresholdEvent(
  crossing: BudgetThresholdCrossing,
  accountId: string,
  now: Date,
): BudgetThresholdEvent {
  const { budget } = crossing;
  return {
    type: 'budget.threshold_crossed',
    timestamp: now.toISOString(),
    data: {
      owner: budget.owner,
      ...(budget.owner === 'key' && budget.scope.startsWith(KEY_SCOPE)
        ? { keyId: budget.scope.slice(KEY_SCOPE.length) }
        : {}),
      accountId,
      period: budget.budget.period,
      periodStart: crossing.periodStart,
      limitUsd: budget.budget.limitMicroUsd / 1e6,
      spentUsd: crossing.spentMicroUsd / 1e6,
      thresholdPercent: crossing.thresholdPercent,
    },
  };
}

/** The notice for a crossing, when its account has a budget webhook. */
export function budgetNoticeOf(crossing: BudgetThresholdCrossing, now: Date): BudgetNotice | undefined {
  const { accountId, webhookUrl } = crossing.budget;
  if (accountId === undefined || webhookUrl === undefined) return undefined;
  return {
    id: budgetEventId(crossing),
    accountId,
    url: webhookUrl,
    event: budgetThresholdEvent(crossing, accountId, now),
  };
}

let deploymentSend: ((body: string) => Promise<void>) | undefined;

/** The deployed queue (BUDGET_NOTICE_QUEUE_URL), made once per instance. */
function sendToNoticeQueue(body: string): Promise<void> {
  if (!deploymentSend) {
    const config = configuration();
    const queueUrl = config.budgetNoticeQueueUrl;
    if (queueUrl === undefined) return Promise.reject(new Error(`${ENV.budgetNoticeQueueUrl} is not set`));
    deploymentSend = sqsMessageSender(deploymentQueueOptions(config, queueUrl));
  }
  return deploymentSend(body);
}

/**
 * A deployment's word that a budget's spend reached a threshold: the metric (by whose budget and
 * which threshold, so an alarm can watch it), a log line naming the budget, its period and its
 * spend (the event an operator's subscription filter can route: docs/observability.md), and,
 * when the account has a budget webhook, the event queued for it (the consumer,
 * lambdas/jobs/budget-webhook-step.ts, posts it and retries). The request is never kept waiting
 * for the webhook: this runs after the response, and a queue that refuses costs a logged error.
 */
export async function announceBudgetCrossing(
  crossing: BudgetThresholdCrossing,
  send: (body: string) => Promise<void> = sendToNoticeQueue,
  now = new Date(),
): Promise<void> {
  const { budget } = crossing;
  publishMetrics(budgetThresholdMetrics(budget.owner, crossing.thresholdPercent));
  logger.info('budget threshold crossed', {
    budgetOwner: budget.owner,
    budgetScope: budget.scope,
    period: budget.budget.period,
    periodStart: crossing.periodStart,
    thresholdPercent: crossing.thresholdPercent,
    limitUsd: budget.budget.limitMicroUsd / 1e6,
    spentUsd: crossing.spentMicroUsd / 1e6,
  });
  const notice = budgetNoticeOf(crossing, now);
  if (!notice) return;
  try {
    await send(JSON.stringify(notice));
  } catch (error) {
    logger.error('budget webhook event not queued; it is not delivered', {
      webhookId: notice.id,
      accountId: notice.accountId,
      error: (error as Error).message,
    });
  }
}
