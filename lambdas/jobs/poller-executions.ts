import type { SFNClient } from '@aws-sdk/client-sfn';
import { ENV } from '../config/environment.js';
import { required } from '../config/configuration.js';
import type { JobExecutionInput } from './job-execution.js';

/**
 * Starts job poller executions with the SDK client (AWS_ENDPOINT_URL_SFN points it at the
 * local stand-in). Not the hot path: one call per submitted job. The client is loaded at the
 * first start, not at init: the status routes share this module's dependents but never start
 * anything, and the SDK client is a measurable share of a cold start.
 */
let sfn: Promise<{ client: SFNClient; module: typeof import('@aws-sdk/client-sfn') }> | undefined;

const sfnClient = () =>
  (sfn ??= import('@aws-sdk/client-sfn').then((module) => ({ client: new module.SFNClient({}), module })));

/**
 * Starts executions of the state machine `stateMachineArn` (the configuration's
 * JOB_STATE_MACHINE_ARN). It takes no abort signal, deliberately: it runs once the upstream has
 * accepted the job, and a poller given up because the caller left would leave that work
 * unpolled and unbilled. The start is one short call, well inside the function's deadline.
 */
export function jobExecutionStarter(
  stateMachineArn: string | undefined,
): (name: string, input: JobExecutionInput) => Promise<void> {
  return (name, input) => startJobExecution(required(stateMachineArn, ENV.jobStateMachineArn), name, input);
}

async function startJobExecution(stateMachineArn: string, name: string, input: JobExecutionInput): Promise<void> {
  const { client, module } = await sfnClient();
  try {
    await client.send(
      new module.StartExecutionCommand({
        stateMachineArn,
        name,
        input: JSON.stringify(input),
      }),
    );
  } catch (error) {
    // The name is the job id: an execution by that name is this job's poller, already running.
    if ((error as Error).name !== 'ExecutionAlreadyExists') throw error;
  }
}
