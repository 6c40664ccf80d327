import { Duration } from 'aws-cdk-lib';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { StateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import type { Grant } from '../routes.js';
import type { EndpointAccess } from './endpoint-access.js';
import type { EndpointFunction } from './endpoint-function.js';
import {
  DEFAULT_SESSION_EXECUTION_TIMEOUT_SECONDS,
  SESSION_TASK_FUNCTIONS,
  sessionRunnerDefinition,
} from './session-runner-definition.js';
import { taskFunction, taskStateMachine } from './task-state-machine.js';

/**
 * What the runner's task needs: what a chat mode route needs to play a session (keys, the
 * ledger, the platform's and callers' provider keys, prompts, guardrails), and the session log.
 */
export const SESSION_TASK_GRANTS = [
  'identity:read',
  'answers:cache',
  'usage:append',
  'platformKeys:read',
  'providerKeys:read',
  'promptService:read',
  'guardrails:apply',
  'arenaSessions:write',
  'arenaSessions:read',
  'budgets:reserve',
  'bedrock:invoke',
] as const satisfies readonly Grant[];

export interface SessionRunnerProps {
  /** Statements and environment for the task function (from SESSION_TASK_GRANTS). */
  readonly taskAccess: EndpointAccess;
  /** Whole-execution bound. @default the longest session and an hour */
  readonly executionTimeout?: Duration;
  /** Retention of the function's and the machine's log groups. @default RetentionDays.ONE_MONTH */
  readonly logRetention?: RetentionDays;
  /** Environment the task function also gets. @default {} */
  readonly environment?: Record<string, string>;
}

/** The arena session runner (session-runner-definition.ts): one Standard state machine and its task. */
export class SessionRunner extends Construct {
  readonly stateMachine: StateMachine;
  readonly run: EndpointFunction;

  constructor(scope: Construct, id: string, props: SessionRunnerProps) {
    super(scope, id);
    const retention = props.logRetention ?? RetentionDays.ONE_MONTH;
    this.run = taskFunction(this, 'Run', SESSION_TASK_FUNCTIONS.run, 'AI gateway: continues an arena session', {
      access: props.taskAccess,
      environment: props.environment,
      retention,
    });
    const timeout = props.executionTimeout ?? Duration.seconds(DEFAULT_SESSION_EXECUTION_TIMEOUT_SECONDS);
    this.stateMachine = taskStateMachine(this, {
      definition: sessionRunnerDefinition({ run: this.run.fn.functionArn }, { timeoutSeconds: timeout.toSeconds() }),
      functions: [this.run],
      retention,
      comment: 'AI gateway: continues arena sessions longer than one invocation',
    });
  }
}
