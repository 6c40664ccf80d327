import { AWS_PRICES } from './aws-prices.js';
import {
  definitionOf,
  logLevelOf,
  loopFunctions,
  pollingLoop,
  transitionsFor,
  type PollingLoop,
} from './state-machine.js';
import type { CostLine } from './table-costs.js';
import { numberProperty, resourceById, type Template } from './template.js';

/**
 * What polling long media jobs costs: the job poller (lib/constructs/job-poller-definition.ts)
 * is one Standard state machine per job, billed per state transition, and each poll invokes its
 * task function. The loop (which states, which function, its memory, the machine's log level)
 * comes from the template; how often a kind is polled and how long its jobs run are assumptions.
 */

export interface MediaJobKind {
  readonly kind: string;
  /** The wait between polls: the kind's driver's `pollIntervalSeconds` (lambdas/media/video-job-driver.ts, lambdas/fashion/fashion-job-driver.ts). */
  readonly pollIntervalSeconds: number;
  /** How long a typical job runs before the upstream reports it ended. */
  readonly typicalSeconds: number;
}

export interface MediaJobAssumptions {
  readonly kinds: readonly MediaJobKind[];
  /** Billed duration of one poll: a job record read, one upstream status call, a record write. */
  readonly pollDurationMs: number;
  /** One history event in the machine's log (level ALL, without execution data). */
  readonly historyEventBytes: number;
  /** The poll function's own log per invocation: Lambda's START/END/REPORT lines and one app line. */
  readonly pollLogBytes: number;
}

export const DEFAULT_MEDIA_JOBS: MediaJobAssumptions = Object.freeze({
  kinds: Object.freeze([
    // MiniMax says a video takes 1 to 3 minutes; its driver polls every 10 s.
    { kind: 'video', pollIntervalSeconds: 10, typicalSeconds: 120 },
    // FASHN predictions take about 5 to 20 s; the fashion driver polls every 3 s.
    { kind: 'fashion', pollIntervalSeconds: 3, typicalSeconds: 12 },
    // FASHN's image-to-video is a fashion job too (polled every 3 s) but takes 1 to 3 minutes.
    { kind: 'image-to-video', pollIntervalSeconds: 3, typicalSeconds: 120 },
  ]),
  pollDurationMs: 500,
  historyEventBytes: 350,
  pollLogBytes: 1_000,
});

/** The job poller's state machine. */
export const JOB_POLLER_MACHINE = /^JobPollerStateMachine[0-9A-F]{8}$/;

/** Per history event: Step Functions logs a state's entry and exit, and a task's scheduled, started, succeeded. */
const EVENTS_PER_TRANSITION = 2;
const EVENTS_PER_TASK = 3;
/** ExecutionStarted and ExecutionSucceeded. */
const EVENTS_PER_EXECUTION = 2;

/** The job poller as deployed: its loop, the functions a poll invokes, and their memory. */
export interface JobPoller {
  readonly run: PollingLoop;
  /** Memory (MB) of each function one poll invokes, in loop order. */
  readonly pollFunctionsMb: readonly number[];
  readonly logsAllEvents: boolean;
}

export function jobPollerOf(template: Template): JobPoller {
  const [machineId, machine] = resourceById(
    template,
    JOB_POLLER_MACHINE,
    'job poller state machine (JobPollerStateMachine…)',
  );
  const definition = definitionOf(machine);
  const run = pollingLoop(definition);
  const pollFunctionsMb = loopFunctions(definition, run).map((id) => {
    const fn = template.Resources[id];
    if (fn?.Type !== 'AWS::Lambda::Function')
      throw new Error(`the job poller invokes ${id}, not a function in the template`);
    return numberProperty(fn, 'MemorySize') ?? 128;
  });
  return { run, pollFunctionsMb, logsAllEvents: logLevelOf(template, machineId) === 'ALL' };
}

export interface MediaJobCost {
  readonly kind: MediaJobKind;
  readonly polls: number;
  readonly transitions: number;
  /** What a thousand jobs of this kind cost, by item. */
  readonly lines: CostLine[];
}

/** Per job kind, what a thousand of its jobs add: transitions, the poll invocations, their logs. */
export function perThousandMediaJobs(
  template: Template,
  assumptions: MediaJobAssumptions = DEFAULT_MEDIA_JOBS,
): MediaJobCost[] {
  const poller = jobPollerOf(template);
  return assumptions.kinds.map((kind) => mediaJobCost(poller, kind, assumptions));
}

function mediaJobCost(poller: JobPoller, kind: MediaJobKind, a: MediaJobAssumptions): MediaJobCost {
  const p = AWS_PRICES;
  const jobs = 1_000;
  // The machine waits before its first poll, so the poll that finds the job ended is the first at or after its end.
  const polls = Math.max(1, Math.ceil(kind.typicalSeconds / kind.pollIntervalSeconds));
  const transitions = transitionsFor(poller.run, polls);
  const invocations = polls * poller.pollFunctionsMb.length;
  const gbSeconds = poller.pollFunctionsMb.reduce((sum, mb) => sum + (mb / 1024) * (a.pollDurationMs / 1000), 0);
  const events = EVENTS_PER_EXECUTION + EVENTS_PER_TRANSITION * transitions + EVENTS_PER_TASK * invocations;
  const logBytes = (poller.logsAllEvents ? events * a.historyEventBytes : 0) + invocations * a.pollLogBytes;
  const lines: CostLine[] = [
    {
      item: 'Step Functions',
      usd: ((jobs * transitions) / 1000) * p.stepFunctions.perThousandStandardTransitions,
      basis: `${transitions} a job`,
    },
    {
      item: 'Lambda requests',
      usd: ((jobs * invocations) / 1e6) * p.lambda.perMillionRequests,
      basis: `${invocations} a job`,
    },
    {
      item: 'Lambda compute',
      usd: jobs * polls * gbSeconds * p.lambda.perGbSecond,
      basis: `${poller.pollFunctionsMb.join(' + ')} MB × ${a.pollDurationMs} ms a poll, arm64`,
    },
    {
      item: 'CloudWatch Logs',
      usd: ((jobs * logBytes) / 1024 ** 3) * p.cloudWatch.perLogGbIngested,
      basis: `${logBytes} bytes a job`,
    },
  ];
  return { kind, polls, transitions, lines };
}
