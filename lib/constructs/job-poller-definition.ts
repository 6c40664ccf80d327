/**
 * The job poller's Amazon States Language (JSONPath), as plain data: the CDK construct
 * (job-poller.ts) puts it in the template with the task functions' ARNs, and the local
 * runtime runs the very same definition with local ARNs (local/standins/step-functions-standin.ts).
 * test/infra/job-poller.cases.ts proves the synthesized DefinitionString equals it.
 *
 * One parameterised machine for every job kind: the execution input carries the kind's
 * interval, attempt bound and deadline (lambdas/jobs/job-execution.ts), so a new kind needs
 * no new machine, grant or ARN.
 *
 * Wait → Poll → Ended? → (Count → Wait | Done | AttemptsExhausted → MarkFailed → Failed).
 * Any error the Poll task still holds after its retries (the deadline passed, an upstream that
 * stayed unavailable, a function that kept failing) is caught and ends the job failed.
 */

import type { FunctionSource } from './endpoint-function.js';

/**
 * The task functions the poller calls: a small manifest of their own (they are not API
 * routes). The stack builds them (job-poller.ts); the local runtime loads the same entries.
 */
export const JOB_TASK_FUNCTIONS = {
  poll: { id: 'job-poll', entry: 'lambdas/handlers/job-poll.ts', memoryMb: 512, timeoutSeconds: 30 },
  markFailed: {
    id: 'job-mark-failed',
    entry: 'lambdas/handlers/job-mark-failed.ts',
    memoryMb: 256,
    timeoutSeconds: 30,
  },
} as const satisfies Record<string, FunctionSource & { id: string }>;

/** A day: longer than any kind's own deadline, so it only stops an execution gone wrong. */
export const DEFAULT_JOB_EXECUTION_TIMEOUT_SECONDS = 86_400;

export interface JobPollerFunctionArns {
  readonly poll: string;
  readonly markFailed: string;
}

export interface JobPollerLimits {
  /** Whole-execution bound: a backstop beyond every kind's own deadline. */
  readonly timeoutSeconds: number;
}

/** State names: the local runtime overrides waits and retry pauses by them. */
export const JOB_POLLER_STATES = {
  wait: 'Wait',
  poll: 'Poll',
  ended: 'Ended?',
  count: 'Count',
  done: 'Done',
  attemptsExhausted: 'AttemptsExhausted',
  markFailed: 'MarkFailed',
  failed: 'Failed',
} as const;

/** Errors of the Lambda service itself (not the function's): always worth a retry. */
export const LAMBDA_SERVICE_ERRORS = [
  'Lambda.ServiceException',
  'Lambda.AWSLambdaException',
  'Lambda.SdkClientException',
  'Lambda.TooManyRequestsException',
];

/** Each task gets a minute: the functions time out at 30 s, this only covers a lost invocation. */
const TASK_TIMEOUT_SECONDS = 60;

const STEP_INPUT = {
  'jobId.$': '$.jobId',
  'accountId.$': '$.accountId',
  'attempt.$': '$.attempt',
  'deadline.$': '$.deadline',
};

export function jobPollerDefinition(
  functions: JobPollerFunctionArns,
  limits: JobPollerLimits,
): Record<string, unknown> {
  const S = JOB_POLLER_STATES;
  return {
    Comment: 'Polls one upstream job until it ends, within bounded attempts and time; failures end the job failed.',
    StartAt: S.wait,
    TimeoutSeconds: limits.timeoutSeconds,
    States: {
      [S.wait]: { Type: 'Wait', SecondsPath: '$.pollIntervalSeconds', Next: S.poll },
      [S.poll]: {
        Type: 'Task',
        Resource: functions.poll,
        Parameters: STEP_INPUT,
        ResultPath: '$.poll',
        TimeoutSeconds: TASK_TIMEOUT_SECONDS,
        Retry: [
          { ErrorEquals: ['Job.TimedOut'], MaxAttempts: 0 },
          { ErrorEquals: LAMBDA_SERVICE_ERRORS, IntervalSeconds: 2, BackoffRate: 2, MaxAttempts: 6 },
          {
            ErrorEquals: ['Job.UpstreamTransient'],
            IntervalSeconds: 5,
            BackoffRate: 2,
            MaxAttempts: 5,
            MaxDelaySeconds: 60,
          },
          { ErrorEquals: ['States.ALL'], IntervalSeconds: 2, BackoffRate: 2, MaxAttempts: 2 },
        ],
        Catch: [{ ErrorEquals: ['States.ALL'], ResultPath: '$.failure', Next: S.markFailed }],
        Next: S.ended,
      },
      [S.ended]: {
        Type: 'Choice',
        Choices: [
          { Variable: '$.poll.done', BooleanEquals: true, Next: S.done },
          { Variable: '$.attempt', NumericGreaterThanEqualsPath: '$.maxAttempts', Next: S.attemptsExhausted },
        ],
        Default: S.count,
      },
      [S.count]: {
        Type: 'Pass',
        Parameters: {
          'jobId.$': '$.jobId',
          'accountId.$': '$.accountId',
          'kind.$': '$.kind',
          'attempt.$': 'States.MathAdd($.attempt, 1)',
          'maxAttempts.$': '$.maxAttempts',
          'pollIntervalSeconds.$': '$.pollIntervalSeconds',
          'deadline.$': '$.deadline',
        },
        Next: S.wait,
      },
      [S.done]: { Type: 'Succeed' },
      [S.attemptsExhausted]: {
        Type: 'Pass',
        Result: { Error: 'Job.AttemptsExhausted', Cause: 'the upstream did not finish within the allowed polls' },
        ResultPath: '$.failure',
        Next: S.markFailed,
      },
      [S.markFailed]: {
        Type: 'Task',
        Resource: functions.markFailed,
        Parameters: { ...STEP_INPUT, 'failure.$': '$.failure' },
        ResultPath: '$.poll',
        TimeoutSeconds: TASK_TIMEOUT_SECONDS,
        Retry: [{ ErrorEquals: ['States.ALL'], IntervalSeconds: 2, BackoffRate: 2, MaxAttempts: 6 }],
        Next: S.failed,
      },
      [S.failed]: { Type: 'Fail', Error: 'Job.Failed', Cause: 'the job was ended failed; its record says why' },
    },
  };
}
