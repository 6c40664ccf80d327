import { fashionJobDriver } from '../../../lambdas/fashion/fashion-job-driver.js';
import { submitFashionJob } from '../../../lambdas/fashion/fashion-jobs.js';
import { watchFashionJob, type FashionWatchDeps, type WatchStore } from '../../../lambdas/fashion/fashion-watch.js';
import { JOB_DRIVERS } from '../../../lambdas/jobs/job-driver-registry.js';
import type { JobRecord } from '../../../lambdas/jobs/job-record.js';
import { endJob, getOwnedJob, recordProgress, takePollLease } from '../../../lambdas/jobs/job-repository.js';
import {
  joinWatchers,
  leaveWatchers,
  MAX_WATCHERS_PER_JOB,
  WATCHER_SLOT_GRACE_MS,
} from '../../../lambdas/jobs/job-watchers.js';
import { POLL_LEASE_MS } from '../../../lambdas/jobs/poll-lease.js';
import { pollJob, type JobStepDeps, type JobStepOutcome } from '../../../lambdas/jobs/poll-step.js';
import { SharedPolls } from '../../../lambdas/jobs/shared-polls.js';
import {
  SUBSCRIBE_MAX_MS,
  SUBSCRIBE_POLL_INTERVAL_MS,
  type FashionStreamEvent,
} from '../../../lambdas/fashion/subscribe-events.js';
import { send, type TransportRequest } from '../../../lambdas/providers/http-transport.js';
import { recordUsage } from '../../../lambdas/usage/usage-ledger.js';
import { meteredFor } from '../../support/job-upstream.js';
import { startMediaJobWorld, type MediaJobWorld } from '../../support/media-jobs.js';
import { VirtualTime } from '../../support/virtual-time.js';

/**
 * Many streams watching one prediction, over the embedded DynamoDB and the FASHN fake, on a
 * virtual clock: FASHN is asked once per poll lease however many watch (each watcher as its own
 * instance, and together with the Step Functions poller), watchers in one instance share one
 * look, and the watcher cap refuses the one too many until a slot frees.
 */
let world: MediaJobWorld;
let accounts = 0;

beforeAll(async () => {
  world = await startMediaJobWorld('fwatch');
}, 30_000);
afterAll(() => world.stop());

const signal = () => AbortSignal.timeout(60_000);

function owner() {
  const accountId = `acct-w${++accounts}`;
  return {
    accountId,
    keyId: `key-${accountId}`,
    requestId: `req-${accountId}-${Date.now()}`,
    route: 'fashion-subscribe',
  };
}

/** The virtual instants FASHN was asked for a status, in order. */
function countingSend(clock: VirtualTime, statusCalls: number[]) {
  return (request: TransportRequest) => {
    if (new URL(request.url).pathname.startsWith('/v1/status/')) statusCalls.push(clock.now);
    return send(request);
  };
}

/** One subscribe function instance: its own looks in flight, the shared jobs table and FASHN. */
function instance(clock: VirtualTime, statusCalls: number[], store: Partial<WatchStore> = {}): FashionWatchDeps {
  return {
    ...world.deps({ now: clock.date, send: countingSend(clock, statusCalls) }),
    watch: { takePollLease, recordProgress, joinWatchers, leaveWatchers, shared: new SharedPolls(), ...store },
  };
}

/** The state machine's loop for one job: its status step, then its Wait, until the step says done. */
async function poller(clock: VirtualTime, job: JobRecord, statusCalls: number[]): Promise<JobStepOutcome[]> {
  const deps: JobStepDeps = {
    drivers: JOB_DRIVERS,
    jobs: { getOwnedJob, takePollLease, recordProgress, endJob },
    recordUsage,
    upstream: { endpoint: world.endpoint, send: countingSend(clock, statusCalls), signal: signal() },
    now: clock.date,
  };
  const deadline = new Date(clock.now + 3_600_000).toISOString();
  const outcomes: JobStepOutcome[] = [];
  for (let attempt = 1; ; attempt++) {
    const outcome = await pollJob({ jobId: job.jobId, accountId: job.accountId, attempt, deadline }, deps);
    outcomes.push(outcome);
    if (outcome.done) return outcomes;
    await clock.sleep(fashionJobDriver.pollIntervalSeconds * 1000);
  }
}

async function collect(events: AsyncIterable<FashionStreamEvent>): Promise<FashionStreamEvent[]> {
  const seen: FashionStreamEvent[] = [];
  for await (const event of events) seen.push(event);
  return seen;
}

/** A prediction FASHN walks over `polls` status calls, then completes. */
async function submitted(clock: VirtualTime, polls: number) {
  const who = owner();
  const body = { model_name: 'model-create', inputs: { prompt: `a linen coat [sim:polls=${polls}]` } };
  const { job } = await submitFashionJob({ body, owner: who, signal: signal() }, instance(clock, []));
  return job!;
}

const gapsOf = (instants: readonly number[]) => instants.slice(1).map((at, i) => at - instants[i]!);

test('ten watchers, each its own instance, and the poller: one FASHN status call per lease, the same walk for all', async () => {
  const clock = new VirtualTime(Date.now());
  const statusCalls: number[] = [];
  const job = await submitted(clock, 6);
  const streams: FashionStreamEvent[][] = [];
  let steps: JobStepOutcome[] = [];
  const watcher = async () => {
    const deps = instance(clock, statusCalls);
    streams.push(
      await collect(await watchFashionJob(job.accountId, job.jobId, signal(), deps, { sleep: clock.sleep })),
    );
  };
  await clock.run([
    ...Array.from({ length: MAX_WATCHERS_PER_JOB }, () => watcher),
    async () => void (steps = await poller(clock, job, statusCalls)),
  ]);

  // FASHN walks the prediction over 7 calls: asked once per lease, never twice within one.
  expect(statusCalls).toHaveLength(7);
  expect(Math.min(...gapsOf(statusCalls))).toBeGreaterThanOrEqual(POLL_LEASE_MS);
  expect(statusCalls.at(-1)! - statusCalls[0]!).toBe(6 * SUBSCRIBE_POLL_INTERVAL_MS);
  const completed = streams[0]!.at(-1);
  expect(completed).toMatchObject({ type: 'completed', output: [expect.any(String)] });
  for (const events of streams) {
    expect(events[0]).toMatchObject({ type: 'job_submitted', prediction_id: job.jobId });
    expect(events.at(-1)).toEqual(completed);
    const updates = events.filter((event) => event.type === 'status_update').map((event) => event.status);
    expect(['in_queue', 'processing']).toEqual(expect.arrayContaining(updates));
    expect(updates).toEqual([...new Set(updates)]);
  }
  // The end is settled once, whoever saw it; the poller then finds the job ended.
  expect(steps.at(-1)).toMatchObject({ done: true, phase: 'succeeded' });
  expect(await getOwnedJob(job.accountId, job.jobId, clock.now)).toMatchObject({ phase: 'succeeded' });
  expect(await meteredFor(job.accountId)).toEqual({ requests: 1, costMicroUsd: 3 * 75_000 });
  // Every stream gave its slot back.
  expect((await getOwnedJob(job.accountId, job.jobId, clock.now))?.watchers).toEqual({});
});

test('watchers in one instance share one look in flight: one lease attempt per interval, not one per watcher', async () => {
  const clock = new VirtualTime(Date.now());
  const statusCalls: number[] = [];
  const leaseAttempts: number[] = [];
  const job = await submitted(clock, 4);
  const deps = instance(clock, statusCalls, {
    takePollLease: (...args) => (leaseAttempts.push(clock.now), takePollLease(...args)),
  });
  const watches = [];
  for (let i = 0; i < 6; i++) {
    watches.push(await watchFashionJob(job.accountId, job.jobId, signal(), deps, { sleep: clock.sleep }));
  }
  const streams = await clock.run(watches.map((events) => () => collect(events)));
  expect(streams.map((events) => events.at(-1)?.type)).toEqual(Array(6).fill('completed'));
  expect(statusCalls).toHaveLength(5);
  expect(leaseAttempts).toEqual(statusCalls);
  expect(Math.min(...gapsOf(leaseAttempts))).toBe(SUBSCRIBE_POLL_INTERVAL_MS);
});

test('the watcher cap: the one too many is refused with when a slot frees; leaving or lapsing frees one', async () => {
  const clock = new VirtualTime(Date.now());
  const job = await submitted(clock, 50);
  const watch = () => watchFashionJob(job.accountId, job.jobId, signal(), instance(clock, []), { sleep: clock.sleep });
  const streams = [];
  for (let i = 0; i < MAX_WATCHERS_PER_JOB; i++) streams.push(await watch());
  const lapse = SUBSCRIBE_MAX_MS + WATCHER_SLOT_GRACE_MS;
  await expect(watch()).rejects.toMatchObject({ kind: 'too_many_watchers', details: { retryAfterMs: lapse } });
  // A caller that leaves after the first event gives its slot back.
  expect((await streams[0]!.next()).value).toMatchObject({ type: 'job_submitted' });
  await streams[0]!.return(undefined);
  await watch();
  await expect(watch()).rejects.toMatchObject({ kind: 'too_many_watchers' });
  // Streams that vanished without leaving (a crashed instance): their slots lapse on their own.
  clock.now += lapse;
  for (let i = 0; i < MAX_WATCHERS_PER_JOB; i++) await watch();
  await expect(watch()).rejects.toMatchObject({ kind: 'too_many_watchers' });
});

test('an ended prediction takes no slot: any number of streams are told its end from the record', async () => {
  const clock = new VirtualTime(Date.now());
  const job = await submitted(clock, 0);
  await pollJob(
    { jobId: job.jobId, accountId: job.accountId, attempt: 1, deadline: new Date(clock.now + 60_000).toISOString() },
    {
      drivers: JOB_DRIVERS,
      jobs: { getOwnedJob, takePollLease, recordProgress, endJob },
      recordUsage,
      upstream: { endpoint: world.endpoint, send, signal: signal() },
      now: clock.date,
    },
  );
  const statusCalls: number[] = [];
  for (let i = 0; i < MAX_WATCHERS_PER_JOB + 2; i++) {
    const events = await collect(
      await watchFashionJob(job.accountId, job.jobId, signal(), instance(clock, statusCalls), {}),
    );
    expect(events.map((event) => event.type)).toEqual(['job_submitted', 'completed']);
  }
  expect(statusCalls).toEqual([]);
  expect((await getOwnedJob(job.accountId, job.jobId, clock.now))?.watchers).toBeUndefined();
});

test('the poll step respects a watcher’s lease, and settles the job once the watchers are gone', async () => {
  const clock = new VirtualTime(Date.now());
  const statusCalls: number[] = [];
  const job = await submitted(clock, 3);
  // One look by a stream that then runs out of time (a 0 s stream: one look, then still_running).
  const events = await collect(
    await watchFashionJob(job.accountId, job.jobId, signal(), instance(clock, statusCalls), {
      maxMs: 0,
      sleep: clock.sleep,
    }),
  );
  expect(events.at(-1)).toMatchObject({ type: 'still_running' });
  expect(statusCalls).toEqual([clock.now]);
  const start = clock.now;
  const deps: JobStepDeps = {
    drivers: JOB_DRIVERS,
    jobs: { getOwnedJob, takePollLease, recordProgress, endJob },
    recordUsage,
    upstream: { endpoint: world.endpoint, send: countingSend(clock, statusCalls), signal: signal() },
    now: clock.date,
  };
  const step = (attempt: number) =>
    pollJob(
      { jobId: job.jobId, accountId: job.accountId, attempt, deadline: new Date(start + 60_000).toISOString() },
      deps,
    );
  clock.now = start + POLL_LEASE_MS - 1;
  expect(await step(1)).toEqual({ done: false, phase: 'queued' });
  expect(statusCalls).toHaveLength(1);
  clock.now = start + POLL_LEASE_MS;
  expect(await step(2)).toEqual({ done: false, phase: 'queued' });
  expect(statusCalls).toHaveLength(2);
  // The poller may take its own lease again (the local runtime's shortened waits).
  clock.now += 1;
  expect(await step(3)).toEqual({ done: false, phase: 'running' });
  clock.now += 1;
  expect(await step(4)).toEqual({ done: true, phase: 'succeeded', ended: true });
  expect(statusCalls).toHaveLength(4);
  expect(await meteredFor(job.accountId)).toEqual({ requests: 1, costMicroUsd: 3 * 75_000 });
});
