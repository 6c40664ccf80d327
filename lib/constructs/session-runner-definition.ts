/**
 * The arena session runner's Amazon States Language (JSONPath), as plain data: the CDK
 * construct (session-runner.ts) puts it in the template with the task function's ARN, and the
 * local runtime runs the very same definition (local/standins/step-functions-local.ts).
 *
 * One execution per session, named after it, started beside the session's first host:
 * Wait (a lease period) → Run → Next? → (Wait | Run | Done). `Run` asks the task to continue
 * the session (lambdas/arena/session-continuation.ts): `held` while a host's lease is live,
 * `continue` when the runner handed the session on at its own time limit, `ended` when the
 * session is over. A task that keeps failing is caught and the loop waits and tries again; the
 * execution's own timeout, past the longest session, ends a loop gone wrong.
 */
import { DEFAULT_SESSION_MAX_SECONDS } from '../../lambdas/config/configuration.js';
import type { FunctionSource } from './endpoint-function.js';
import { LAMBDA_SERVICE_ERRORS } from './job-poller-definition.js';

/** The runner's task function: not an API route. As long as Lambda allows, memory for eight streams. */
export const SESSION_TASK_FUNCTIONS = {
  run: { id: 'session-run', entry: 'lambdas/handlers/session-run.ts', memoryMb: 1024, timeoutSeconds: 900 },
} as const satisfies Record<string, FunctionSource & { id: string }>;

/** The longest session and an hour: only an execution gone wrong runs into it. */
export const DEFAULT_SESSION_EXECUTION_TIMEOUT_SECONDS = DEFAULT_SESSION_MAX_SECONDS + 3_600;

/** State names: the local runtime overrides waits and retry pauses by them. */
export const SESSION_RUNNER_STATES = { wait: 'Wait', run: 'Run', next: 'Next?', done: 'Done' } as const;

/** The task's own timeout and a minute: only a lost invocation runs into it. */
const TASK_TIMEOUT_SECONDS = SESSION_TASK_FUNCTIONS.run.timeoutSeconds + 60;

export function sessionRunnerDefinition(
  functions: { readonly run: string },
  limits: { readonly timeoutSeconds: number },
): Record<string, unknown> {
  const S = SESSION_RUNNER_STATES;
  return {
    Comment: 'Continues one arena session whenever no host plays it, until it ends.',
    StartAt: S.wait,
    TimeoutSeconds: limits.timeoutSeconds,
    States: {
      [S.wait]: { Type: 'Wait', SecondsPath: '$.checkSeconds', Next: S.run },
      [S.run]: {
        Type: 'Task',
        Resource: functions.run,
        Parameters: { 'accountId.$': '$.accountId', 'sessionId.$': '$.sessionId' },
        ResultPath: '$.run',
        TimeoutSeconds: TASK_TIMEOUT_SECONDS,
        Retry: [
          { ErrorEquals: LAMBDA_SERVICE_ERRORS, IntervalSeconds: 2, BackoffRate: 2, MaxAttempts: 6 },
          { ErrorEquals: ['States.ALL'], IntervalSeconds: 5, BackoffRate: 2, MaxAttempts: 2 },
        ],
        Catch: [{ ErrorEquals: ['States.ALL'], ResultPath: '$.failure', Next: S.wait }],
        Next: S.next,
      },
      [S.next]: {
        Type: 'Choice',
        Choices: [
          { Variable: '$.run.status', StringEquals: 'ended', Next: S.done },
          { Variable: '$.run.status', StringEquals: 'continue', Next: S.run },
        ],
        Default: S.wait,
      },
      [S.done]: { Type: 'Succeed' },
    },
  };
}
