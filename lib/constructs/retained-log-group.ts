import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';

/** Function and state machine logs. */
export const DEFAULT_LOG_RETENTION = RetentionDays.ONE_MONTH;

/**
 * Every log group of the stack is made here, with a retention, so none is left to Lambda's,
 * Step Functions' or API Gateway's implicit creation, which keeps logs forever
 * (test/infra/monitoring.cases.ts checks every log group of the template).
 */
export function retainedLogGroup(
  scope: Construct,
  id: string,
  retention: RetentionDays = DEFAULT_LOG_RETENTION,
  /** Only for a group a service writes to by a name of its own. @default - generated */
  logGroupName?: string,
): LogGroup {
  return new LogGroup(scope, id, { retention, logGroupName });
}
