import { fashionJobDriver } from '../../../lambdas/fashion/fashion-job-driver.js';
import type { JobRecord } from '../../../lambdas/jobs/job-record.js';
import { createJob, getOwnedJob, jobPk } from '../../../lambdas/jobs/job-repository.js';
import { joinWatchers } from '../../../lambdas/jobs/job-watchers.js';
import { jobRecordOf, StoredJobError, watchedJobOf } from '../../../lambdas/jobs/stored-job.js';
import { videoJobDriver } from '../../../lambdas/media/video-job-driver.js';
import { dynamo, tableName, toItem } from '../../../lambdas/store/dynamo.js';
import { accountPk } from '../../../lambdas/store/usage-items.js';
import { startJobTables, testJobRecord } from '../../support/job-upstream.js';

/**
 * Job items are checked where they are read from DynamoDB: the platform's attributes by the
 * repository, a kind's `details` and `result` by its driver. A stored item of another shape
 * fails naming the attribute; a well-formed one reads back as it was written.
 */

/** Every attribute a record declares, optional ones included: a new one must be added here. */
const FULL: Required<JobRecord> = {
  jobId: 'job_full',
  kind: 'video',
  accountId: 'acct-a',
  keyId: 'key-a',
  requestId: 'req-1',
  route: 'media-video-submit',
  provider: 'minimax',
  model: 'MiniMax-Hailuo-2.3',
  upstreamJobId: 'up-1',
  phase: 'succeeded',
  upstreamStatus: 'Success',
  details: { model: 'minimax-video-2.3', duration: 6, resolution: '1080P' },
  result: { file_id: '42', width: 1920, height: 1080 },
  error: { name: 'Job.TimedOut', message: 'late' },
  createdAt: '2025-01-01T00:00:00.000Z',
  updatedAt: '2025-01-01T00:01:00.000Z',
  endedAt: '2025-01-01T00:01:00.000Z',
  polls: 4,
  expiresAt: 1_800_000_000,
  pollLeaseUntil: 1_735_689_660_000,
  pollLeaseHolder: 'poller',
  watchers: { w1: 1_735_689_700_000, 'w-2': 1_735_689_800_000 },
  webhookUrl: 'https://hooks.example.com/jobs',
  webhook: { status: 'pending', attempts: 2, lastStatus: 500 },
  budgetHolds: [
    { scope: 'KEY#key-a', periodStart: '2025-01-01', expiresAt: 1_770_000_000, amountMicroUsd: 600_000 },
    { scope: 'KEY#key-a', periodStart: 'total', amountMicroUsd: 600_000 },
    {
      scope: 'ACCOUNT#acct-a#7',
      periodStart: '2025-01',
      amountMicroUsd: 600_000,
      budget: {
        owner: 'account',
        scope: 'ACCOUNT#acct-a',
        budget: { limitMicroUsd: 50_000_000, period: 'month' },
        shards: 32,
        accountId: 'acct-a',
        webhookUrl: 'https://hooks.example.com/budgets',
      },
    },
  ],
};

const MINIMAL: JobRecord = {
  jobId: 'job_min',
  kind: 'fashion',
  accountId: 'acct-a',
  requestId: 'req-2',
  route: 'fashion-run',
  provider: 'fashn',
  model: 'tryon-v1.6',
  upstreamJobId: 'up-2',
  phase: 'queued',
  createdAt: '2025-01-01T00:00:00.000Z',
  updatedAt: '2025-01-01T00:00:00.000Z',
  polls: 0,
  expiresAt: 1_800_000_000,
};

/** What a read threw, for the assertions on its attribute and wording. */
function refusal(read: () => unknown): StoredJobError {
  try {
    read();
  } catch (error) {
    if (error instanceof StoredJobError) return error;
    throw error;
  }
  throw new Error('the read was expected to fail');
}

describe('the record', () => {
  test('a record with every attribute, and one with none of the optional ones, read back as written', () => {
    expect(jobRecordOf(FULL.jobId, { ...FULL })).toStrictEqual(FULL);
    expect(jobRecordOf(MINIMAL.jobId, { ...MINIMAL })).toStrictEqual(MINIMAL);
  });

  test('attributes the record does not declare are left out', () => {
    expect(jobRecordOf(MINIMAL.jobId, { ...MINIMAL, legacyFlag: true })).toStrictEqual(MINIMAL);
  });

  test.each<[string, Record<string, unknown>, string, RegExp]>([
    ['a missing attribute', { accountId: undefined }, 'accountId', /accountId must be a string, found nothing/],
    ['a number held as a string', { polls: '3' }, 'polls', /polls must be a number, found the string "3"/],
    ['an unknown phase', { phase: 'done' }, 'phase', /phase must be one of queued, running, succeeded, failed/],
    ['a null where an object goes', { result: null }, 'result', /result must be an object, found null/],
    ['a list where an object goes', { details: [1, 2] }, 'details', /details must be an object, found a list/],
    ['a set where an object goes', { details: new Set(['a']) }, 'details', /details must be an object, found a Set/],
    ['an error without its message', { error: { name: 'x' } }, 'error.message', /error\.message must be a string/],
    ['a watcher slot not a number', { watchers: { w1: 'soon' } }, 'watchers.w1', /watchers\.w1 must be a number/],
    ['an oddly named watcher', { watchers: { 'a-b': true } }, 'watchers["a-b"]', /watchers\["a-b"\] must be/],
    ['an infinite expiry', { expiresAt: Infinity }, 'expiresAt', /expiresAt must be a number, found number Infinity/],
  ])('%s fails naming the attribute', (_case, change, attribute, message) => {
    const refused = refusal(() => jobRecordOf(MINIMAL.jobId, { ...MINIMAL, ...change }));
    expect(refused.attribute).toBe(attribute);
    expect(refused.jobId).toBe(MINIMAL.jobId);
    expect(refused.message).toMatch(new RegExp(`^stored job job_min: `));
    expect(refused.message).toMatch(message);
  });

  test("a watcher's projection is checked as the record is", () => {
    const watched = { jobId: 'job_w', accountId: 'acct-a', phase: 'running', watchers: { w1: 5 } };
    expect(watchedJobOf('job_w', watched)).toStrictEqual(watched);
    expect(watchedJobOf('job_w', { ...watched, watchers: undefined })).toStrictEqual({
      jobId: 'job_w',
      accountId: 'acct-a',
      phase: 'running',
    });
    expect(refusal(() => watchedJobOf('job_w', { ...watched, phase: 3 })).attribute).toBe('phase');
  });
});

describe("a kind's details and result, read by its driver", () => {
  const job = (fields: Partial<JobRecord>) => ({ jobId: 'job_kind', ...fields });

  test('video: what pricing reads of the request, and the file of a finished video', () => {
    const details = { model: 'minimax-video-2.3-Fast', duration: 10, resolution: '768P', prompt: 'not read' };
    expect(videoJobDriver.details(job({ details }))).toStrictEqual({
      model: 'minimax-video-2.3-Fast',
      duration: 10,
      resolution: '768P',
    });
    const result = { file_id: '42', download_url: 'https://cdn/v.mp4', download_url_expires_at: 9 };
    expect(videoJobDriver.result(job({ result }))).toStrictEqual(result);
  });

  test.each<[string, Partial<JobRecord>, string]>([
    ['no details', {}, 'details'],
    [
      'a duration not offered',
      { details: { model: 'minimax-video-2.3', duration: 7, resolution: '768P' } },
      'details.duration',
    ],
    ['a model not offered', { details: { model: 'sora', duration: 6, resolution: '768P' } }, 'details.model'],
    [
      'an interface resolution, not a made one',
      { details: { model: 'minimax-video-2.3', duration: 6, resolution: '720P' } },
      'details.resolution',
    ],
  ])('video details with %s fail naming the member', (_case, fields, attribute) => {
    expect(refusal(() => videoJobDriver.details(job(fields))).attribute).toBe(attribute);
  });

  test.each<[string, Partial<JobRecord>, string]>([
    ['no result', {}, 'result'],
    ['no file id', { result: { width: 3 } }, 'result.file_id'],
    ['a numeric file id', { result: { file_id: 42 } }, 'result.file_id'],
    [
      'an expiry held as a string',
      { result: { file_id: '42', download_url_expires_at: '9' } },
      'result.download_url_expires_at',
    ],
  ])('a video result with %s fails naming the member', (_case, fields, attribute) => {
    expect(refusal(() => videoJobDriver.result(job(fields))).attribute).toBe(attribute);
  });

  test('fashion: the credits expected, the outputs kept or left at the upstream', () => {
    expect(fashionJobDriver.details(job({ details: { expectedCredits: 3 } }))).toStrictEqual({ expectedCredits: 3 });
    expect(fashionJobDriver.details(job({}))).toBeUndefined();
    const kept = { output: ['https://cdn/a.png', 'https://cdn/b.png'], creditsUsed: 2 };
    expect(fashionJobDriver.result(job({ result: kept }))).toStrictEqual(kept);
    expect(fashionJobDriver.result(job({ result: { outputsAtUpstream: true } }))).toStrictEqual({
      outputsAtUpstream: true,
    });
  });

  test.each<[string, Partial<JobRecord>, string]>([
    ['credits held as a string', { details: { expectedCredits: '3' } }, 'details.expectedCredits'],
    ['an output that is not a URL string', { result: { output: ['https://cdn/a.png', 7] } }, 'result.output[1]'],
    ['outputs that are not a list', { result: { output: 'https://cdn/a.png' } }, 'result.output'],
    ['outputsAtUpstream false', { result: { outputsAtUpstream: false } }, 'result.outputsAtUpstream'],
  ])('fashion with %s fails naming the member', (_case, fields, attribute) => {
    const read = () => (fields.details ? fashionJobDriver.details(job(fields)) : fashionJobDriver.result(job(fields)));
    expect(refusal(read).attribute).toBe(attribute);
  });
});

describe('reads from the jobs table', () => {
  let tables: { stop(): Promise<void> };
  beforeAll(async () => {
    tables = await startJobTables('stored-job');
  }, 30_000);
  afterAll(async () => {
    await tables.stop();
  });

  /** An item as some other writer left it: the record's keys, with `fields` over a good record. */
  async function putStored(job: JobRecord, fields: Record<string, unknown>): Promise<void> {
    await dynamo().putItem({
      TableName: tableName('jobs'),
      Item: toItem({
        pk: jobPk(job.accountId, job.jobId),
        sk: 'JOB',
        type: 'job',
        ownerPk: accountPk(job.accountId),
        ownerSk: `JOB#${job.createdAt}#${job.jobId}`,
        ...job,
        ...fields,
      }),
    });
  }

  test('a record written by createJob reads back whole, details and result included', async () => {
    const job = testJobRecord({ upstreamStatus: 'x', result: { url: 'https://cdn/v.mp4' }, watchers: { w: 1 } });
    await createJob(job);
    expect(await getOwnedJob(job.accountId, job.jobId)).toStrictEqual(job);
  });

  test('an item of another shape fails the read naming the attribute, never answers', async () => {
    const job = testJobRecord();
    await putStored(job, { polls: 'two' });
    const read = getOwnedJob(job.accountId, job.jobId);
    await expect(read).rejects.toBeInstanceOf(StoredJobError);
    await expect(read).rejects.toMatchObject({ jobId: job.jobId, attribute: 'polls' });
  });

  test("a watcher's read of a malformed item fails naming the attribute", async () => {
    const job = testJobRecord();
    await putStored(job, { watchers: { w1: 'later' } });
    const full = { watcherId: 'w2', until: Date.now() + 60_000, cap: 1 };
    // The caller's copy says the one slot is taken, so the join reads the item itself.
    const stale = { ...job, watchers: { w0: Date.now() + 60_000 } };
    await expect(joinWatchers(stale, full)).rejects.toMatchObject({ attribute: 'watchers.w1' });
  });
});
