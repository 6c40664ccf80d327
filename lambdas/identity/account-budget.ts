import type { JSONSchemaType } from 'ajv';
import {
  changeAccountBudgetSettings,
  getAccountBudgetSettings,
  type AccountBudgetSettings,
} from '../store/account-budgets.js';
import { accountBudgetScope, budgetCounterRef } from '../store/budget-counters.js';
import { BUDGET_SHARDS, readShardedCounter } from '../store/budget-shards.js';
import { forgetAccountBudget } from './account-budget-directory.js';
import { budgetView, type BudgetView } from './budget-view.js';
import { IdentityError } from './identity-errors.js';
import { BUDGET, storedBudget, type BudgetBody } from './key-schemas.js';

/**
 * An account's budget and budget webhook as its routes read and change them (docs/interface.md
 * §2.5): the account's own (`GET`/`PATCH /api/v1/budget`, the dashboard) and the operator's
 * (`PATCH /api/admin/v1/accounts/{id}`) are the one setting.
 */

export interface AccountBudgetBody {
  /** The new budget, or null to remove it. */
  readonly budget?: BudgetBody | null;
  /** The new budget webhook URL, or null to remove it. */
  readonly webhookUrl?: string | null;
}

export const ACCOUNT_BUDGET_BODY = {
  type: 'object',
  properties: {
    budget: {
      ...BUDGET,
      nullable: true,
      description:
        "Extension: the account's spending limit over all its keys and sessions (docs/interface.md §2.5); null removes it",
    },
    webhookUrl: {
      type: 'string',
      nullable: true,
      // Its length, scheme and host are the URL policy's to check (changeAccountBudget's `refusal`).
      description:
        "Extension: a public https URL the gateway POSTs a signed budget.threshold_crossed event to whenever the account's budget or one of its keys' budgets crosses 50, 80 or 100% (docs/interface.md §6.4); null removes it",
    },
  },
  // At least one, as changeAccountBudget says: ajv's types cannot make a nullable field required.
  additionalProperties: false,
} as const satisfies JSONSchemaType<AccountBudgetBody>;

export interface AccountBudgetAnswer {
  readonly budget: BudgetView | null;
  readonly webhookUrl: string | null;
}

/** The account's budget with its current period's spend (the sum of its shards), and its budget webhook URL. */
export async function describeAccountBudget(
  accountId: string,
  stored?: AccountBudgetSettings,
  now = new Date(),
): Promise<AccountBudgetAnswer> {
  const { budget, webhookUrl } = stored ?? (await getAccountBudgetSettings(accountId));
  const hook = { webhookUrl: webhookUrl ?? null };
  if (!budget) return { budget: null, ...hook };
  const period = budgetCounterRef(accountBudgetScope(accountId), budget.period, now);
  const counter = await readShardedCounter(period, BUDGET_SHARDS);
  return { budget: budgetView(budget, counter, period.resetsAt), ...hook };
}

/**
 * The webhook URL policy (lambdas/jobs/webhook-url.ts, the job webhooks'): the refusal's text for
 * `url`, or undefined when it may be posted to. A dependency, as identity/ does not reach jobs/.
 */
export type WebhookUrlRefusal = (url: string) => Promise<string | undefined>;

/** Sets or removes the account's budget and its budget webhook URL, and answers them as they now stand. */
export async function changeAccountBudget(
  accountId: string,
  body: AccountBudgetBody,
  refusal: WebhookUrlRefusal,
  now = new Date(),
): Promise<AccountBudgetAnswer> {
  if (body.budget === undefined && body.webhookUrl === undefined)
    throw new IdentityError(
      'invalid_request',
      'budget: at least one of budget ({limitUsd, period}, or null to remove it) and webhookUrl (or null) is required',
      { field: 'budget' },
    );
  if (typeof body.webhookUrl === 'string') {
    const refused = await refusal(body.webhookUrl);
    if (refused !== undefined)
      throw new IdentityError('invalid_request', `webhookUrl: ${refused}`, { field: 'webhookUrl' });
  }
  const settings = await changeAccountBudgetSettings(
    accountId,
    {
      ...(body.budget === undefined ? {} : { budget: body.budget && storedBudget(body.budget) }),
      ...(body.webhookUrl === undefined ? {} : { webhookUrl: body.webhookUrl }),
    },
    now,
  );
  forgetAccountBudget(accountId);
  return describeAccountBudget(accountId, settings, now);
}
