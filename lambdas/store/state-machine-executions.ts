import type { SFNClient } from '@aws-sdk/client-sfn';

/**
 * Starts Step Functions executions by name with the SDK client (AWS_ENDPOINT_URL_SFN points it
 * at the local stand-in): the job poller's (lambdas/jobs/poller-executions.ts) and the arena
 * session runner's (lambdas/arena/session-continuation.ts). A name is the work's own id, so a
 * second start of the same work finds it running and is no error. The client is loaded at the
 * first start, not at init: it is a measurable share of a cold start, and most calls start
 * nothing.
 */
let sfn: Promise<{ client: SFNClient; module: typeof import('@aws-sdk/client-sfn') }> | undefined;

const sfnClient = () =>
  (sfn ??= import('@aws-sdk/client-sfn').then((module) => ({ client: new module.SFNClient({}), module })));

/** Starts `name` on `stateMachineArn`; true when started, false when an execution by that name exists. */
export async function startNamedExecution(stateMachineArn: string, name: string, input: unknown): Promise<boolean> {
  const { client, module } = await sfnClient();
  try {
    await client.send(new module.StartExecutionCommand({ stateMachineArn, name, input: JSON.stringify(input) }));
    return true;
  } catch (error) {
    if ((error as Error).name !== 'ExecutionAlreadyExists') throw error;
    return false;
  }
}
