import { conditionHolds, dynamo, fromItem, nowSeconds, tableName, toItem } from '../store/dynamo.js';
import type { DynamoDb } from '../store/dynamodb-client.js';
import { tenantClients } from '../store/tenant-sessions.js';
import { accountPk } from '../store/usage-items.js';
import type { JobEnd, JobUnderway } from './job-driver.js';
import { ACTIVE_PHASES, type JobRecord, type JsonObject, type WebhookDelivery } from './job-record.js';
import type { PollLease } from './poll-lease.js';
import { jobRecordOf } from './stored-job.js';

/**
 * The jobs table's job items: one item per job, its partition led by its account
 * (`ACCOUNT#<account>#JOB#<id>`), in the owner index under its account, newest last. The key
 * names the account so that IAM can hold a tenant session to its own jobs (`dynamodb:LeadingKeys`,
 * lib/tenant-access-policy.ts): a read needs the owner as well as the id, and another account's
 * job is not missing by a check here but out of the session's reach. Each job keeps a partition
 * of its own, so a busy account's polls spread over as many partitions as it has jobs. Only
 * single-item conditional writes, so it runs on dynalite as on DynamoDB.
 */

export const jobPk = (accountId: string, jobId: string) => `${accountPk(accountId)}#JOB#${jobId}`;
export const jobKey = (job: Pick<JobRecord, 'accountId' | 'jobId'>) =>
  toItem({ pk: jobPk(job.accountId, job.jobId), sk: 'JOB' });
export const jobOwnerSk = (job: Pick<JobRecord, 'createdAt' | 'jobId'>) => `JOB#${job.createdAt}#${job.jobId}`;

/** The condition every transition shares: the item is this owner's job and has not ended. */
export const STILL_ACTIVE = 'attribute_exists(pk) AND accountId = :owner AND #phase IN (:queued, :running)';
export const activeValues = (job: Pick<JobRecord, 'accountId'>) => ({
  ':owner': job.accountId,
  ':queued': ACTIVE_PHASES[0],
  ':running': ACTIVE_PHASES[1],
});

/** Writes a new job; false (and nothing written) when the id is taken. */
export async function createJob(job: JobRecord): Promise<boolean> {
  return conditionHolds(() =>
    dynamo().putItem({
      TableName: tableName('jobs'),
      Item: toItem({
        ...fromItem<Record<string, unknown>>(jobKey(job)),
        type: 'job',
        ownerPk: accountPk(job.accountId),
        ownerSk: jobOwnerSk(job),
        ...job,
      }),
      ConditionExpression: 'attribute_not_exists(pk)',
    }),
  );
}

/**
 * The caller's own job, or undefined for an unknown, expired or another account's id. Throws
 * StoredJobError (stored-job.ts) for an item that is not a job record's shape. `db` is the
 * client to read with: the function role's by default (the poller's tasks), the account's tenant
 * session for a caller's own reads (readOwnJob below).
 */
export async function getOwnedJob(
  accountId: string,
  jobId: string,
  now = Date.now(),
  db: DynamoDb = dynamo(),
): Promise<JobRecord | undefined> {
  const { Item } = await db.getItem({
    TableName: tableName('jobs'),
    Key: jobKey({ accountId, jobId }),
    ConsistentRead: true,
  });
  if (!Item) return undefined;
  const item = fromItem<Record<string, unknown>>(Item);
  // The keys and index attributes are not the record's: jobRecordOf leaves them out.
  if (item['type'] !== 'job') return undefined;
  const job = jobRecordOf(jobId, item);
  if (job.accountId !== accountId || job.expiresAt <= nowSeconds(now)) return undefined;
  return job;
}

/**
 * A caller's read of its own job, under the account's tenant session (lambdas/store/tenant-sessions.ts):
 * the status and subscribe routes hold no read of the jobs table of their own.
 */
export async function readOwnJob(accountId: string, jobId: string, now = Date.now()): Promise<JobRecord | undefined> {
  return getOwnedJob(accountId, jobId, now, (await tenantClients(accountId)).dynamo);
}

/**
 * Records a poll that found the job still underway. Never moves an ended job (false then);
 * replaying it writes the same phase and status again.
 */
export async function recordProgress(job: JobRecord, progress: JobUnderway, now = new Date()): Promise<boolean> {
  return conditionalUpdate(job, {
    UpdateExpression: 'SET #phase = :phase, upstreamStatus = :status, updatedAt = :now ADD polls :one',
    values: { ':phase': progress.phase, ':status': progress.upstreamStatus, ':now': now.toISOString(), ':one': 1 },
  });
}

/**
 * Ends the job (succeeded or failed) unless it has already ended: true when this call ended
 * it, false when another had (a replay, a racing poll, the Catch after a late success).
 */
export async function endJob(job: JobRecord, end: JobEnd, now = new Date()): Promise<boolean> {
  const outcome = end.phase === 'succeeded' ? { result: end.result } : { error: end.error };
  const fields: Record<string, unknown> = {
    ...outcome,
    ...(end.upstreamStatus !== undefined ? { upstreamStatus: end.upstreamStatus } : {}),
    endedAt: now.toISOString(),
    updatedAt: now.toISOString(),
  };
  const names = Object.keys(fields);
  return conditionalUpdate(job, {
    UpdateExpression: `SET #phase = :phase, ${names.map((_name, i) => `#f${i} = :f${i}`).join(', ')}`,
    values: { ':phase': end.phase, ...Object.fromEntries(names.map((name, i) => [`:f${i}`, fields[name]])) },
    names: Object.fromEntries(names.map((name, i) => [`#f${i}`, name])),
  });
}

/**
 * Takes the job's poll lease (poll-lease.ts) for `lease.ms` from `now`: true when the caller may
 * ask the upstream now. False while another holder's lease runs, or once the job has ended
 * (nothing is left to ask); the caller then reads the record instead.
 */
export async function takePollLease(job: JobRecord, lease: PollLease, now = new Date()): Promise<boolean> {
  return conditionHolds(() =>
    dynamo().updateItem({
      TableName: tableName('jobs'),
      Key: jobKey(job),
      UpdateExpression: 'SET pollLeaseUntil = :until, pollLeaseHolder = :holder',
      ConditionExpression: `${STILL_ACTIVE} AND (attribute_not_exists(pollLeaseUntil) OR pollLeaseUntil <= :now OR pollLeaseHolder = :holder)`,
      ExpressionAttributeNames: { '#phase': 'phase' },
      ExpressionAttributeValues: toItem({
        ...activeValues(job),
        ':until': now.getTime() + lease.ms,
        ':holder': lease.holder,
        ':now': now.getTime(),
      }),
    }),
  );
}

/**
 * Replaces a succeeded job's result (a video's fresh download link). Only this owner's
 * succeeded job is touched; false otherwise.
 */
export async function updateJobResult(job: JobRecord, result: JsonObject, now = new Date()): Promise<boolean> {
  return conditionHolds(() =>
    dynamo().updateItem({
      TableName: tableName('jobs'),
      Key: jobKey(job),
      UpdateExpression: 'SET #result = :result, updatedAt = :now',
      ConditionExpression: 'attribute_exists(pk) AND accountId = :owner AND #phase = :succeeded',
      ExpressionAttributeNames: { '#phase': 'phase', '#result': 'result' },
      ExpressionAttributeValues: toItem({
        ':owner': job.accountId,
        ':succeeded': 'succeeded',
        ':result': result,
        ':now': now.toISOString(),
      }),
    }),
  );
}

/**
 * Records how the ended job's webhook went (notify-step.ts). Only this owner's ended job is
 * touched, and a delivery already recorded as delivered or failed stays so: a replayed attempt
 * cannot undo it. False when nothing was written.
 */
export async function recordWebhookDelivery(job: JobRecord, delivery: WebhookDelivery): Promise<boolean> {
  return conditionHolds(() =>
    dynamo().updateItem({
      TableName: tableName('jobs'),
      Key: jobKey(job),
      UpdateExpression: 'SET webhook = :delivery',
      ConditionExpression:
        'attribute_exists(pk) AND accountId = :owner AND #phase IN (:succeeded, :failed) AND (attribute_not_exists(webhook) OR webhook.#status = :pending)',
      ExpressionAttributeNames: { '#phase': 'phase', '#status': 'status' },
      ExpressionAttributeValues: toItem({
        ':owner': job.accountId,
        ':succeeded': 'succeeded',
        ':failed': 'failed',
        ':pending': 'pending',
        ':delivery': delivery,
      }),
    }),
  );
}

async function conditionalUpdate(
  job: JobRecord,
  update: { UpdateExpression: string; values: Record<string, unknown>; names?: Record<string, string> },
): Promise<boolean> {
  return conditionHolds(() =>
    dynamo().updateItem({
      TableName: tableName('jobs'),
      Key: jobKey(job),
      UpdateExpression: update.UpdateExpression,
      ConditionExpression: STILL_ACTIVE,
      ExpressionAttributeNames: { '#phase': 'phase', ...update.names },
      ExpressionAttributeValues: toItem({ ...activeValues(job), ...update.values }),
    }),
  );
}
