import { Duration, Stack, Validations } from 'aws-cdk-lib';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { DefinitionBody, LogLevel, StateMachine, StateMachineType } from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import type { EndpointAccess } from './endpoint-access.js';
import { EndpointFunction, type FunctionSource } from './endpoint-function.js';
import {
  DEFAULT_JOB_EXECUTION_TIMEOUT_SECONDS,
  JOB_TASK_FUNCTIONS,
  jobPollerDefinition,
} from './job-poller-definition.js';

/** What the task functions need: job records, the ledger, and the platform's provider keys. */
export const JOB_TASK_GRANTS = ['jobs:read', 'jobs:write', 'usage:append', 'platformKeys:read'] as const;

export const DEFAULT_JOB_EXECUTION_TIMEOUT = Duration.seconds(DEFAULT_JOB_EXECUTION_TIMEOUT_SECONDS);

export interface JobPollerProps {
  /** Statements and environment for the task functions (from JOB_TASK_GRANTS). */
  readonly taskAccess: EndpointAccess;
  /** Whole-execution bound. @default DEFAULT_JOB_EXECUTION_TIMEOUT */
  readonly executionTimeout?: Duration;
  /** Retention of the functions' and the machine's log groups. @default RetentionDays.ONE_MONTH */
  readonly logRetention?: RetentionDays;
  /** Environment every task function also gets. @default {} */
  readonly environment?: Record<string, string>;
}

/**
 * One Standard state machine (JSONPath) that polls every kind of job, and its two task
 * functions. Logs ALL events to its own log group and traces with X-Ray (cdk-nag SF1, SF2).
 */
export class JobPoller extends Construct {
  readonly stateMachine: StateMachine;
  readonly poll: EndpointFunction;
  readonly markFailed: EndpointFunction;

  constructor(scope: Construct, id: string, props: JobPollerProps) {
    super(scope, id);
    const retention = props.logRetention ?? RetentionDays.ONE_MONTH;
    const task = (name: string, source: FunctionSource, description: string) =>
      new EndpointFunction(this, name, {
        route: source,
        description,
        statements: props.taskAccess.statements,
        environment: { ...props.environment, ...props.taskAccess.environment },
        acknowledgements: props.taskAccess.acknowledgements,
        logRetention: retention,
      });
    this.poll = task('Poll', JOB_TASK_FUNCTIONS.poll, 'AI gateway job poller: one upstream status poll');
    this.markFailed = task('MarkFailed', JOB_TASK_FUNCTIONS.markFailed, 'AI gateway job poller: marks a job failed');

    const definition = jobPollerDefinition(
      { poll: this.poll.fn.functionArn, markFailed: this.markFailed.fn.functionArn },
      { timeoutSeconds: (props.executionTimeout ?? DEFAULT_JOB_EXECUTION_TIMEOUT).toSeconds() },
    );
    this.stateMachine = new StateMachine(this, 'StateMachine', {
      stateMachineType: StateMachineType.STANDARD,
      definitionBody: DefinitionBody.fromString(Stack.of(this).toJsonString(definition)),
      logs: { destination: new LogGroup(this, 'Logs', { retention }), level: LogLevel.ALL },
      tracingEnabled: true,
      comment: 'AI gateway: polls video and fashion jobs',
    });
    // The definition names the functions unqualified, so exactly these ARNs (no `:*` versions).
    this.stateMachine.addToRolePolicy(
      new PolicyStatement({
        actions: ['lambda:InvokeFunction'],
        resources: [this.poll.fn.functionArn, this.markFailed.fn.functionArn],
      }),
    );
    const defaultPolicy = this.stateMachine.role.node.tryFindChild('DefaultPolicy');
    if (defaultPolicy) {
      Validations.of(defaultPolicy).acknowledge({
        id: 'AwsSolutions-IAM5[Resource::*]',
        reason:
          'Step Functions logging to CloudWatch Logs (logs:CreateLogDelivery and the other vended-log delivery ' +
          'actions) and X-Ray trace writes do not support resource-level permissions; "*" is the only valid value.',
      });
    }
  }
}
