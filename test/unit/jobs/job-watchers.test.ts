import fc from 'fast-check';
import { createJob, endJob, getOwnedJob, takePollLease } from '../../../lambdas/jobs/job-repository.js';
import { joinWatchers, leaveWatchers, MAX_WATCHERS_PER_JOB } from '../../../lambdas/jobs/job-watchers.js';
import { POLLER_LEASE_HOLDER } from '../../../lambdas/jobs/poll-lease.js';
import { startJobTables, testJobRecord } from '../../support/job-upstream.js';

/**
 * The job record as the coordination point of everyone watching a job, on the embedded DynamoDB:
 * the poll lease (one upstream call per lease, whoever asks) and the watcher slots (a cap, slots
 * that lapse by themselves, given back on leaving).
 */
let tables: { stop(): Promise<void> };

beforeAll(async () => {
  tables = await startJobTables('job-watchers');
}, 30_000);

afterAll(async () => {
  await tables.stop();
});

const T0 = new Date('2031-05-01T10:00:00Z');
const at = (ms: number) => new Date(T0.getTime() + ms);
const slot = (watcherId: string, until = T0.getTime() + 150_000, cap?: number) => ({
  watcherId,
  until,
  ...(cap === undefined ? {} : { cap }),
});

async function freshJob() {
  const job = testJobRecord({}, T0);
  await createJob(job);
  return job;
}

const slotsOf = async (job: { accountId: string; jobId: string }) =>
  Object.keys((await getOwnedJob(job.accountId, job.jobId, T0.getTime()))?.watchers ?? {}).sort();

test('the poll lease: one holder until it lapses; the holder may retake it; an ended job has none to take', async () => {
  const job = await freshJob();
  const lease = (holder: string) => ({ holder, ms: 1_500 });
  expect(await takePollLease(job, lease('w1'), at(0))).toBe(true);
  expect(await takePollLease(job, lease('w2'), at(1))).toBe(false);
  expect(await takePollLease(job, lease(POLLER_LEASE_HOLDER), at(1_499))).toBe(false);
  expect(await takePollLease(job, lease('w1'), at(1_000))).toBe(true);
  expect(await takePollLease(job, lease('w2'), at(2_499))).toBe(false);
  expect(await takePollLease(job, lease('w2'), at(2_500))).toBe(true);
  await endJob(job, { phase: 'failed', error: { name: 'x', message: 'x' } });
  expect(await takePollLease(job, lease('w2'), at(10_000))).toBe(false);
  // Another account's id takes nothing.
  const other = await freshJob();
  expect(await takePollLease({ ...other, accountId: 'acct-intruder' }, lease('w1'), at(0))).toBe(false);
});

test('slots: up to the cap, then full until the earliest lapses; leaving frees one', async () => {
  const job = await freshJob();
  let record = job;
  for (let i = 0; i < MAX_WATCHERS_PER_JOB; i++) {
    // Each join starts from the record as last read, as a watcher's would.
    expect(await joinWatchers(record, slot(`w${i}`, T0.getTime() + 100_000 + i), at(0))).toEqual({ kind: 'joined' });
    record = (await getOwnedJob(job.accountId, job.jobId, T0.getTime()))!;
  }
  expect(await joinWatchers(record, slot('late'), at(5))).toEqual({ kind: 'full', freeAt: T0.getTime() + 100_000 });
  // A stale record (read before the others joined) is no way round the cap.
  expect(await joinWatchers(job, slot('stale'), at(5))).toEqual({ kind: 'full', freeAt: T0.getTime() + 100_000 });
  await leaveWatchers(job, 'w3');
  expect(await joinWatchers(record, slot('late'), at(6))).toEqual({ kind: 'joined' });
  expect(await slotsOf(job)).toHaveLength(MAX_WATCHERS_PER_JOB);
  expect(await slotsOf(job)).toContain('late');
});

test('a watcher that never left frees its slot when it lapses; lapsed slots are cleared by the next join', async () => {
  const job = await freshJob();
  expect(await joinWatchers(job, slot('crashed', T0.getTime() + 10_000, 1), at(0))).toEqual({ kind: 'joined' });
  const read = () => getOwnedJob(job.accountId, job.jobId, T0.getTime()).then((r) => r!);
  expect(await joinWatchers(await read(), slot('next', T0.getTime() + 20_000, 1), at(9_999))).toMatchObject({
    kind: 'full',
  });
  expect(await joinWatchers(await read(), slot('next', T0.getTime() + 20_000, 1), at(10_000))).toEqual({
    kind: 'joined',
  });
  expect(await slotsOf(job)).toEqual(['next']);
});

test('an ended job takes no watchers; leaving a job without slots (or an unknown one) is a no-op', async () => {
  const job = await freshJob();
  await endJob(job, { phase: 'succeeded', upstreamStatus: 'done', result: {} });
  expect(await joinWatchers(job, slot('w'), at(0))).toEqual({ kind: 'ended' });
  await leaveWatchers(job, 'w');
  await leaveWatchers({ accountId: job.accountId, jobId: 'job_unknown' }, 'w');
  expect(await slotsOf(job)).toEqual([]);
});

test('concurrent joins never take more than the cap, whatever the mix of stale reads and lapsed slots', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.integer({ min: 1, max: 4 }),
      fc.integer({ min: 0, max: 3 }),
      fc.integer({ min: 1, max: 12 }),
      async (cap, lapsedBefore, joiners) => {
        const job = await freshJob();
        for (let i = 0; i < lapsedBefore; i++) await joinWatchers(job, slot(`old${i}`, T0.getTime() + 1, 99), at(0));
        const stale = (await getOwnedJob(job.accountId, job.jobId, T0.getTime()))!;
        const outcomes = await Promise.all(
          Array.from({ length: joiners }, (_, i) =>
            joinWatchers(i % 2 ? stale : job, slot(`j${i}`, undefined, cap), at(5)),
          ),
        );
        const joined = outcomes.filter((outcome) => outcome.kind === 'joined').length;
        expect(joined).toBe(Math.min(cap, joiners));
        const left = await slotsOf(job);
        expect(left.filter((id) => id.startsWith('j'))).toHaveLength(joined);
        expect(left.filter((id) => id.startsWith('old')).length).toBeLessThanOrEqual(lapsedBefore);
      },
    ),
    { numRuns: 15 },
  );
}, 60_000);
