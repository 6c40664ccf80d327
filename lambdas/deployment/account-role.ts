/**
 * API Gateway's CloudWatch role is one setting per account and region, shared by every API
 * there: whoever set it (another stack, another team) keeps it. The stack's role is set only
 * where there is none, which a fresh account needs before any stage may log. No AWS here: the
 * account's setting comes in as a dependency (an SDK adapter in the function, a fake in tests).
 */

/** The account's API Gateway settings, as far as the CloudWatch role goes. */
export interface ApiGatewayAccount {
  /** The role ARN in effect, undefined when none is set. */
  cloudWatchRoleArn(signal: AbortSignal): Promise<string | undefined>;
  setCloudWatchRoleArn(roleArn: string, signal: AbortSignal): Promise<void>;
}

export interface AccountRoleDeps {
  readonly account: ApiGatewayAccount;
  /** Ends every call and wait: the function must still answer CloudFormation after it. */
  readonly signal: AbortSignal;
  /** Waits, or rejects with the signal's reason once it aborts. */
  readonly sleep: (ms: number, signal: AbortSignal) => Promise<void>;
}

export type AccountRoleRequest = 'Create' | 'Update' | 'Delete';

/**
 * `set`: the account had none and now has the stack's role. `kept`: the account already had a
 * role (possibly this one, on a repeated create) and still has it. `untouched`: an update or a
 * delete, which never change the setting: after a delete the role may be what other APIs log with.
 */
export type AccountRoleOutcome =
  | { readonly action: 'set'; readonly roleArn: string }
  | { readonly action: 'kept'; readonly roleArn: string }
  | { readonly action: 'untouched' };

/**
 * Waits between attempts to set a role IAM has only just created: until IAM has propagated it,
 * API Gateway answers that the role lacks trust or permissions. About a minute in all, which
 * covers the usual propagation delay with room to spare.
 */
export const ROLE_PROPAGATION_WAITS_MS: readonly number[] = [2_000, 4_000, 8_000, 16_000, 16_000, 16_000];

export class AccountRoleError extends Error {
  override readonly name = 'AccountRoleError';
}

/** The role ARN a custom resource names, refused when it is anything else. */
const ROLE_ARN = /^arn:aws[a-z-]*:iam::\d{12}:role\/[\w+=,.@/-]{1,512}$/;

export function checkRoleArn(value: unknown): string {
  if (typeof value !== 'string' || !ROLE_ARN.test(value)) {
    throw new AccountRoleError(`RoleArn must be an IAM role ARN, not ${JSON.stringify(value)}`);
  }
  return value;
}

/**
 * The role ARN is checked on a create only: an update or a delete must succeed whatever the
 * properties say, or a stack could not be rolled back or deleted.
 */
export async function applyAccountRole(
  request: AccountRoleRequest,
  roleArnProperty: unknown,
  deps: AccountRoleDeps,
): Promise<AccountRoleOutcome> {
  if (request !== 'Create') return { action: 'untouched' };
  const roleArn = checkRoleArn(roleArnProperty);
  const existing = await deps.account.cloudWatchRoleArn(deps.signal);
  if (existing !== undefined) return { action: 'kept', roleArn: existing };
  for (let attempt = 0; ; attempt++) {
    try {
      await deps.account.setCloudWatchRoleArn(roleArn, deps.signal);
      return { action: 'set', roleArn };
    } catch (error) {
      const wait = ROLE_PROPAGATION_WAITS_MS[attempt];
      if (wait === undefined || !awaitsRolePropagation(error)) throw error;
      await deps.sleep(wait, deps.signal);
    }
  }
}

/** API Gateway's answer while IAM has not yet propagated a new role's trust policy. */
export function awaitsRolePropagation(error: unknown): boolean {
  return error instanceof Error && error.name === 'BadRequestException' && /role/i.test(error.message);
}
