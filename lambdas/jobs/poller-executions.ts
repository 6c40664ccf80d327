import { ENV } from '../config/environment.js';
import { required } from '../config/configuration.js';
import { startNamedExecution } from '../store/state-machine-executions.js';
import type { JobExecutionInput } from './job-execution.js';

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
  // The name is the job id: an execution by that name is this job's poller, already running.
  await startNamedExecution(stateMachineArn, name, input);
}
