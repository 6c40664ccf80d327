import { SFNClient, StartExecutionCommand } from '@aws-sdk/client-sfn';
import { requireEnv, ENV } from '../config/environment.js';
import type { JobExecutionInput } from './job-execution.js';

/**
 * Starts job poller executions with the SDK client (AWS_ENDPOINT_URL_SFN points it at the
 * local stand-in). Not the hot path: one call per submitted job.
 */
let client: SFNClient | undefined;

export async function startJobExecution(name: string, input: JobExecutionInput): Promise<void> {
  client ??= new SFNClient({});
  try {
    await client.send(
      new StartExecutionCommand({
        stateMachineArn: requireEnv(ENV.jobStateMachineArn),
        name,
        input: JSON.stringify(input),
      }),
    );
  } catch (error) {
    // The name is the job id: an execution by that name is this job's poller, already running.
    if ((error as Error).name !== 'ExecutionAlreadyExists') throw error;
  }
}
