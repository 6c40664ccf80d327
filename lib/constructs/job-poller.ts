import { Duration } from 'aws-cdk-lib';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { StateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import type { EndpointAccess } from './endpoint-access.js';
import type { EndpointFunction, FunctionSource } from './endpoint-function.js';
import { taskFunction, taskStateMachine } from './task-state-machine.js';
import {
  DEFAULT_JOB_EXECUTION_TIMEOUT_SECONDS,
  JOB_TASK_FUNCTIONS,
  jobPollerDefinition,
} from './job-poller-definition.js';

/**
 * What the task functions need: job records, the ledger, the platform's provider keys, and the
 * budget counters (an ended job's reservation is settled: lambdas/jobs/settle-job.ts).
 */
export const JOB_TASK_GRANTS = [
  'jobs:read',
  'jobs:write',
  'usage:append',
  'platformKeys:read',
  'budgets:reserve',
] as const;

/**
 * The Notify task's: job records (to read the job and record the delivery), the platform's keys
 * (a video's status data may fetch a fresh download link), and the account's webhook secrets,
 * which it makes when an account's first event comes before its first read of them.
 */
export const JOB_NOTIFY_GRANTS = [
  'jobs:read',
  'jobs:write',
  'platformKeys:read',
  'webhookSecrets:read',
  'webhookSecrets:create',
] as const;

export const DEFAULT_JOB_EXECUTION_TIMEOUT = Duration.seconds(DEFAULT_JOB_EXECUTION_TIMEOUT_SECONDS);

export interface JobPollerProps {
  /** Statements and environment for the task functions (from JOB_TASK_GRANTS). */
  readonly taskAccess: EndpointAccess;
  /** Statements and environment for the Notify task function (from JOB_NOTIFY_GRANTS). */
  readonly notifyAccess: EndpointAccess;
  /** Whole-execution bound. @default DEFAULT_JOB_EXECUTION_TIMEOUT */
  readonly executionTimeout?: Duration;
  /** Retention of the functions' and the machine's log groups. @default RetentionDays.ONE_MONTH */
  readonly logRetention?: RetentionDays;
  /** Environment every task function also gets. @default {} */
  readonly environment?: Record<string, string>;
}

/** One Standard state machine that polls every kind of job, and its two task functions. */
export class JobPoller extends Construct {
  readonly stateMachine: StateMachine;
  readonly poll: EndpointFunction;
  readonly markFailed: EndpointFunction;
  readonly notify: EndpointFunction;

  constructor(scope: Construct, id: string, props: JobPollerProps) {
    super(scope, id);
    const retention = props.logRetention ?? RetentionDays.ONE_MONTH;
    const task = (name: string, source: FunctionSource, description: string, access = props.taskAccess) =>
      taskFunction(this, name, source, description, {
        access,
        environment: props.environment,
        retention,
      });
    this.poll = task('Poll', JOB_TASK_FUNCTIONS.poll, 'AI gateway job poller: one upstream status poll');
    this.markFailed = task('MarkFailed', JOB_TASK_FUNCTIONS.markFailed, 'AI gateway job poller: marks a job failed');
    this.notify = task(
      'Notify',
      JOB_TASK_FUNCTIONS.notify,
      "AI gateway job poller: sends an ended job's webhook",
      props.notifyAccess,
    );

    const definition = jobPollerDefinition(
      {
        poll: this.poll.fn.functionArn,
        markFailed: this.markFailed.fn.functionArn,
        notify: this.notify.fn.functionArn,
      },
      { timeoutSeconds: (props.executionTimeout ?? DEFAULT_JOB_EXECUTION_TIMEOUT).toSeconds() },
    );
    this.stateMachine = taskStateMachine(this, {
      definition,
      functions: [this.poll, this.markFailed, this.notify],
      retention,
      comment: 'AI gateway: polls video and fashion jobs',
    });
  }
}
