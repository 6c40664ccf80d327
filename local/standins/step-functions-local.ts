/**
 * The local runtime's Step Functions: the job poller's and the arena session runner's
 * definitions (the ones the stack synthesizes, from lib/constructs/job-poller-definition.ts and
 * session-runner-definition.ts) with local ARNs, their task functions run in the gateway
 * process from the same handler modules Lambda would run.
 * It lives in the gateway process, not the services child, because its tasks are handlers:
 * here, as for routes, the gateway process plays Lambda.
 */
import { join } from 'node:path';
import {
  DEFAULT_JOB_EXECUTION_TIMEOUT_SECONDS,
  JOB_TASK_FUNCTIONS,
  jobPollerDefinition,
} from '../../lib/constructs/job-poller-definition.js';
import {
  DEFAULT_SESSION_EXECUTION_TIMEOUT_SECONDS,
  SESSION_TASK_FUNCTIONS,
  sessionRunnerDefinition,
} from '../../lib/constructs/session-runner-definition.js';
import { loadRouteHandler } from '../handler-modules.js';
import { LOCAL_REGION } from '../runtime-config.js';
import { startStepFunctionsStandIn, type StepFunctionsStandIn } from './step-functions-standin.js';
import type { StandInCredentials } from './signature-check.js';
import type { TaskHandler } from './step-functions-runner.js';

const LOCAL_ACCOUNT = '000000000000';
export const LOCAL_JOB_STATE_MACHINE_ARN = `arn:aws:states:${LOCAL_REGION}:${LOCAL_ACCOUNT}:stateMachine:gateway-jobs`;
export const LOCAL_SESSION_STATE_MACHINE_ARN = `arn:aws:states:${LOCAL_REGION}:${LOCAL_ACCOUNT}:stateMachine:gateway-sessions`;
/** Waits and retry pauses of local executions when GATEWAY_JOB_WAIT_MS is not set. */
export const DEFAULT_LOCAL_JOB_WAIT_MS = 1_000;

const functionArn = (id: string) => `arn:aws:lambda:${LOCAL_REGION}:${LOCAL_ACCOUNT}:function:gateway-${id}`;

/**
 * The two machines as the stack deploys them, with local ARNs. test/unit/standins/
 * local-state-machines.test.ts checks them against the States language, so the runtime need not
 * at each start.
 */
export function localStateMachineDefinitions(): { arn: string; definition: Record<string, unknown> }[] {
  return [
    {
      arn: LOCAL_JOB_STATE_MACHINE_ARN,
      definition: jobPollerDefinition(
        {
          poll: functionArn(JOB_TASK_FUNCTIONS.poll.id),
          markFailed: functionArn(JOB_TASK_FUNCTIONS.markFailed.id),
          notify: functionArn(JOB_TASK_FUNCTIONS.notify.id),
        },
        { timeoutSeconds: DEFAULT_JOB_EXECUTION_TIMEOUT_SECONDS },
      ),
    },
    {
      arn: LOCAL_SESSION_STATE_MACHINE_ARN,
      definition: sessionRunnerDefinition(
        { run: functionArn(SESSION_TASK_FUNCTIONS.run.id) },
        { timeoutSeconds: DEFAULT_SESSION_EXECUTION_TIMEOUT_SECONDS },
      ),
    },
  ];
}

const TASK_FUNCTIONS = [...Object.values(JOB_TASK_FUNCTIONS), ...Object.values(SESSION_TASK_FUNCTIONS)];
/** Every task function of both machines, by the ARN their Task states name. */
export const LOCAL_TASK_FUNCTION_ARNS = TASK_FUNCTIONS.map((task) => functionArn(task.id));

/**
 * Listens at once (its URL is part of the handlers' environment), but runs no task, not even
 * of an execution resumed from the data dir, until `handlersConfigured` settles: the task
 * functions read their configuration at their first call.
 */
export function startLocalStepFunctions(
  dataDir: string,
  handlersConfigured: Promise<void>,
  credentials: StandInCredentials,
  waitMs = DEFAULT_LOCAL_JOB_WAIT_MS,
): Promise<StepFunctionsStandIn> {
  const taskHandlers: Record<string, TaskHandler> = {};
  for (const task of TASK_FUNCTIONS) {
    taskHandlers[functionArn(task.id)] = async (input) => {
      await handlersConfigured;
      const { handler } = await loadRouteHandler(task);
      return (handler as TaskHandler)(input);
    };
  }
  return startStepFunctionsStandIn({
    dataDir: join(dataDir, 'stepfunctions'),
    waitMs,
    credentials,
    stateMachines: localStateMachineDefinitions().map((machine) => ({ ...machine, taskHandlers, validated: true })),
  });
}
