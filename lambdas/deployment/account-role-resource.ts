import { setTimeout as wait } from 'node:timers/promises';
import type { CloudFormationCustomResourceEvent, CloudFormationCustomResourceResponse } from 'aws-lambda';
import { applyAccountRole, type AccountRoleOutcome, type ApiGatewayAccount } from './account-role.js';
import { responseBody, type CustomResourceResult } from './cloudformation-response.js';

/**
 * The `Custom::ApiGatewayAccountRole` resource (lib/constructs/api-gateway-account-role.ts):
 * one CloudFormation request in, the account role applied (account-role.ts), and always one
 * answer PUT back, a failure included, so the stack never waits out the resource's timeout.
 */

export interface AccountRoleResourceDeps {
  readonly account: ApiGatewayAccount;
  /** Milliseconds the invocation has left (Lambda's `getRemainingTimeInMillis`). */
  readonly remainingMs: () => number;
  readonly respond: (responseUrl: string, body: CloudFormationCustomResourceResponse) => Promise<void>;
  /** @default a timer that the deadline ends */
  readonly sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
}

/** Kept back from the work for the answer: the PUT's own timeout with room to spare. */
export const RESPONSE_RESERVE_MS = 15_000;

const sleepUntilAborted = (ms: number, signal: AbortSignal): Promise<void> => wait(ms, undefined, { signal });

export async function answerAccountRoleEvent(
  event: CloudFormationCustomResourceEvent,
  deps: AccountRoleResourceDeps,
): Promise<CustomResourceResult> {
  // One id for the life of the resource: an update that answered another would make
  // CloudFormation delete the "old" one.
  const physicalResourceId =
    event.RequestType === 'Create' ? `${event.StackId}/${event.LogicalResourceId}` : event.PhysicalResourceId;
  const budgetMs = deps.remainingMs() - RESPONSE_RESERVE_MS;
  const signal = budgetMs > 0 ? AbortSignal.timeout(budgetMs) : AbortSignal.abort(new Error('no time left to work'));
  let result: CustomResourceResult;
  try {
    const outcome = await applyAccountRole(event.RequestType, event.ResourceProperties['RoleArn'], {
      account: deps.account,
      signal,
      sleep: deps.sleep ?? sleepUntilAborted,
    });
    result = { status: 'SUCCESS', physicalResourceId, data: outcomeData(outcome) };
  } catch (error) {
    result = { status: 'FAILED', physicalResourceId, reason: reasonOf(error) };
  }
  await deps.respond(event.ResponseURL, responseBody(event, result));
  return result;
}

/** Readable with Fn::GetAtt, and shown in the function's log. */
function outcomeData(outcome: AccountRoleOutcome): Record<string, string> {
  return outcome.action === 'untouched'
    ? { Action: outcome.action }
    : { Action: outcome.action, AccountRoleArn: outcome.roleArn };
}

function reasonOf(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : `failed: ${String(error)}`;
}
