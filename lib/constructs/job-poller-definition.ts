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
 * Wait → Poll → Ended? → (Count → Wait | Notify | AttemptsExhausted → MarkFailed → Notify);
 * Notify → Outcome? → (Done | Failed). Any error the Poll task still holds after its retries
 * (the deadline passed, an upstream that stayed unavailable, a function that kept failing) is
 * caught and ends the job failed.
 *
 * Notify sends the ended job's webhook event, if it has one (lambdas/jobs/notify-step.ts): a
 * failed delivery is retried with backoff (WEBHOOK_RETRY), then NotifyGaveUp records it failed.
 * Whatever happens there, the execution ends as the job did: the webhook never changes a job.
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
  notify: { id: 'job-notify', entry: 'lambdas/handlers/job-notify.ts', memoryMb: 256, timeoutSeconds: 30 },
} as const satisfies Record<string, FunctionSource & { id: string }>;

/** A day: longer than any kind's own deadline, so it only stops an execution gone wrong. */
export const DEFAULT_JOB_EXECUTION_TIMEOUT_SECONDS = 86_400;

export interface JobPollerFunctionArns {
  readonly poll: string;
  readonly markFailed: string;
  readonly notify: string;
}

/**
 * A failed webhook attempt (non-2xx, no answer within 10 s, refused connection) is tried again
 * after 10, 20, 40, 80 and 160 s: six attempts over about five minutes.
 */
export const WEBHOOK_RETRY = {
  ErrorEquals: ['Webhook.DeliveryFailed'],
  IntervalSeconds: 10,
  BackoffRate: 2,
  MaxAttempts: 5,
  MaxDelaySeconds: 300,
} as const;

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
  notify: 'Notify',
  notifyGaveUp: 'NotifyGaveUp',
  outcome: 'Outcome?',
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

const JOB_ID = { 'jobId.$': '$.jobId', 'accountId.$': '$.accountId' };

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
          { Variable: '$.poll.done', BooleanEquals: true, Next: S.notify },
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
        Next: S.notify,
      },
      [S.notify]: {
        Type: 'Task',
        Resource: functions.notify,
        Parameters: JOB_ID,
        ResultPath: '$.notify',
        TimeoutSeconds: TASK_TIMEOUT_SECONDS,
        Retry: [
          WEBHOOK_RETRY,
          { ErrorEquals: LAMBDA_SERVICE_ERRORS, IntervalSeconds: 2, BackoffRate: 2, MaxAttempts: 6 },
          { ErrorEquals: ['States.ALL'], IntervalSeconds: 2, BackoffRate: 2, MaxAttempts: 2 },
        ],
        Catch: [{ ErrorEquals: ['States.ALL'], ResultPath: '$.notifyFailure', Next: S.notifyGaveUp }],
        Next: S.outcome,
      },
      [S.notifyGaveUp]: {
        Type: 'Task',
        Resource: functions.notify,
        Parameters: { ...JOB_ID, giveUp: true },
        ResultPath: '$.notify',
        TimeoutSeconds: TASK_TIMEOUT_SECONDS,
        Retry: [{ ErrorEquals: ['States.ALL'], IntervalSeconds: 2, BackoffRate: 2, MaxAttempts: 3 }],
        // Only the record of the webhook is lost then: the job has ended as it did.
        Catch: [{ ErrorEquals: ['States.ALL'], ResultPath: '$.notifyFailure', Next: S.outcome }],
        Next: S.outcome,
      },
      // A job ended through MarkFailed carries its failure: that execution fails, as before.
      [S.outcome]: {
        Type: 'Choice',
        Choices: [{ Variable: '$.failure', IsPresent: true, Next: S.failed }],
        Default: S.done,
      },
      [S.failed]: { Type: 'Fail', Error: 'Job.Failed', Cause: 'the job was ended failed; its record says why' },
    },
  };
}
