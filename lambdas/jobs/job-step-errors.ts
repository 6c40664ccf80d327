/**
 * Errors the status step throws for the state machine to act on: their names are what the
 * machine's Retry and Catch match (Lambda reports `error.name` as the error type).
 */
export const JOB_ERRORS = {
  /** The job outlived its driver's maxWaitSeconds: never retried, caught, job marked failed. */
  timedOut: 'Job.TimedOut',
  /** A retryable upstream failure (throttling, overload, a cut connection): retried with backoff. */
  upstreamTransient: 'Job.UpstreamTransient',
  /** The machine's attempt bound was reached (set by the machine itself, not thrown). */
  attemptsExhausted: 'Job.AttemptsExhausted',
} as const;

export class JobStepError extends Error {
  constructor(name: (typeof JOB_ERRORS)[keyof typeof JOB_ERRORS], message: string) {
    super(message);
    this.name = name;
  }
}
