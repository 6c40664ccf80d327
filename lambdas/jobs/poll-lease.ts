/**
 * One upstream status call per job per lease, however many ask: the poller's status step and
 * every stream watching the job (fashion subscribe) each take the job's lease with a conditional
 * write before they call the upstream, and whoever does not get it reads the job record, which
 * the holder updates. The record is the coordination point because watchers run as separate
 * Lambda invocations, often on separate instances (job-repository.ts takePollLease).
 */
export interface PollLease {
  /** Who holds it: a holder may take its own lease again before it lapses (the poller's own cadence). */
  readonly holder: string;
  /** How long the holder alone may call the upstream. */
  readonly ms: number;
}

/**
 * The spacing of upstream status calls for one job: a subscribe stream's interval (1.5 s), so
 * the poller (every 3 s) and any number of streams together make at most one call per 1.5 s.
 */
export const POLL_LEASE_MS = 1_500;

/**
 * The poller's holder name. One poller runs per job (its execution is named after the job), so
 * retaking its own lease never lets two pollers in; it keeps the poller's cadence its own (the
 * local runtime's shortened waits) while any stream's lease still holds it off.
 */
export const POLLER_LEASE_HOLDER = 'poller';
