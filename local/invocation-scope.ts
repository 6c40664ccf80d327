import { InvokeStore, InvokeStoreBase } from '@aws/lambda-invoke-store';

/** Runs one handler invocation in a scope of its own. */
export type InvocationScope = <T>(awsRequestId: string, invoke: () => Promise<T>) => Promise<T>;

/** Far above what the runtime serves at once; Lambda managed instances cap this per vCPU. */
const MAX_CONCURRENCY = '1024';

/**
 * The local runtime serves many calls at once in one process, as a Lambda managed instance
 * does. Lambda's runtime then sets AWS_LAMBDA_MAX_CONCURRENCY and runs each invocation inside
 * the InvokeStore's AsyncLocalStorage; Powertools reads that to keep log keys, the Lambda
 * context and metric buffers per invocation. Doing the same here keeps one call's request id
 * and account off another call's log lines. Must run before any handler is invoked.
 */
export async function concurrentInvocations(): Promise<InvocationScope> {
  process.env['AWS_LAMBDA_MAX_CONCURRENCY'] ??= MAX_CONCURRENCY;
  const store = await InvokeStore.getInstanceAsync(true);
  const requestIdKey = InvokeStoreBase.PROTECTED_KEYS.REQUEST_ID;
  return (awsRequestId, invoke) => store.run({ [requestIdKey]: awsRequestId }, invoke);
}
