import { conditionHolds, dynamo, fromItem, isConditionFailure, tableName, toItem } from '../store/dynamo.js';
import { tenantClients } from '../store/tenant-sessions.js';
import { isEnded, type JobRecord } from './job-record.js';
import { activeValues, jobKey, STILL_ACTIVE } from './job-repository.js';
import { watchedJobOf, type WatchedJob } from './stored-job.js';

/**
 * The streams watching one job, counted on its record: a map of watcher id → the epoch
 * milliseconds its slot lapses. A stream takes a slot before it starts and gives it back when it
 * ends; a slot lapses by itself after the stream's own longest life plus a grace, so a watcher
 * that crashed without leaving holds it for minutes, not forever. No heartbeat is needed: a
 * stream never outlives its slot. Joining is a conditional write that counts only live slots and
 * clears lapsed ones, so the map never holds more than the cap's worth of entries.
 */

/**
 * Streams that may watch one job at once. Only a replayed Idempotency-Key joins a job's first
 * stream (each other subscribe submits its own prediction), so this bounds the record reads a
 * single prediction draws; its upstream calls are one per lease however many watch (poll-lease.ts).
 */
export const MAX_WATCHERS_PER_JOB = 10;

/** A slot outlives its stream's longest life by this much (the last poll, the last writes). */
export const WATCHER_SLOT_GRACE_MS = 30_000;

export interface WatcherSlot {
  readonly watcherId: string;
  /** Epoch milliseconds the slot lapses. */
  readonly until: number;
  /** @default MAX_WATCHERS_PER_JOB */
  readonly cap?: number;
}

export type WatcherAdmission =
  | { readonly kind: 'joined' }
  /** Every slot is live; `freeAt` (epoch ms) is when one lapses at the latest. */
  | { readonly kind: 'full'; readonly freeAt: number }
  /** The job has ended (or is gone): its end is read from the record, no slot needed. */
  | { readonly kind: 'ended' };

/**
 * Takes a slot for `slot.watcherId` unless `cap` live slots are taken. `job` is the record as
 * last read: a write that finds it changed reads it again, a bounded number of times (each
 * conflict is another watcher's join or leave going through).
 */
export async function joinWatchers(job: WatchedJob, slot: WatcherSlot, now = new Date()): Promise<WatcherAdmission> {
  const cap = slot.cap ?? MAX_WATCHERS_PER_JOB;
  let seen: WatchedJob | undefined = job;
  let readHere = false;
  for (let tries = 0; tries < cap + 3; tries++) {
    if (!seen || seen.accountId !== job.accountId || isEnded(seen.phase)) return { kind: 'ended' };
    const slots = Object.entries(seen.watchers ?? {});
    const live = slots.filter(([, until]) => until > now.getTime());
    if (live.length >= cap) {
      // The caller's record may predate a leave: only a read of our own refuses.
      if (readHere) return { kind: 'full', freeAt: Math.min(...live.map(([, until]) => until)) };
      seen = await readWatched(job);
      readHere = true;
      continue;
    }
    const lapsed = slots.filter(([id, until]) => until <= now.getTime() && id !== slot.watcherId).map(([id]) => id);
    if (await tryJoin(job, slot, { cap, lapsed, fresh: seen.watchers === undefined }, now)) return { kind: 'joined' };
    seen = await readWatched(job);
    readHere = true;
  }
  // Joins and leaves kept racing this one: as good as full for a moment.
  return { kind: 'full', freeAt: now.getTime() + 1_000 };
}

/** Gives the slot back; a job that is gone or has no slots is left as it is. */
export async function leaveWatchers(job: Pick<JobRecord, 'accountId' | 'jobId'>, watcherId: string): Promise<void> {
  try {
    await dynamo().updateItem({
      TableName: tableName('jobs'),
      Key: jobKey(job),
      UpdateExpression: 'REMOVE watchers.#me',
      ConditionExpression: 'attribute_exists(watchers)',
      ExpressionAttributeNames: { '#me': watcherId },
    });
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
  }
}

/**
 * One conditional join. The map's size counts lapsed slots too: the ones this write clears are
 * required to be there and lapsed, so the live slots are fewer than `cap` by the time it lands
 * (one that lapsed since the read only makes the count cautious).
 */
async function tryJoin(
  job: Pick<JobRecord, 'jobId' | 'accountId'>,
  slot: WatcherSlot,
  seen: { readonly cap: number; readonly lapsed: readonly string[]; readonly fresh: boolean },
  now: Date,
): Promise<boolean> {
  const lapsedNames = Object.fromEntries(seen.lapsed.map((id, i) => [`#x${i}`, id]));
  const update = seen.fresh
    ? {
        UpdateExpression: 'SET watchers = :watchers',
        ConditionExpression: `${STILL_ACTIVE} AND attribute_not_exists(watchers)`,
        names: {},
        values: { ':watchers': { [slot.watcherId]: slot.until } },
      }
    : {
        UpdateExpression: [
          'SET watchers.#me = :until',
          ...(seen.lapsed.length
            ? [
                `REMOVE ${Object.keys(lapsedNames)
                  .map((name) => `watchers.${name}`)
                  .join(', ')}`,
              ]
            : []),
        ].join(' '),
        ConditionExpression: [
          STILL_ACTIVE,
          'size(watchers) < :limit',
          ...Object.keys(lapsedNames).map((name) => `watchers.${name} <= :now`),
        ].join(' AND '),
        names: { '#me': slot.watcherId, ...lapsedNames },
        values: {
          ':until': slot.until,
          ':limit': seen.cap + seen.lapsed.length,
          ...(seen.lapsed.length ? { ':now': now.getTime() } : {}),
        },
      };
  return conditionHolds(() =>
    dynamo().updateItem({
      TableName: tableName('jobs'),
      Key: jobKey(job),
      UpdateExpression: update.UpdateExpression,
      ConditionExpression: update.ConditionExpression,
      ExpressionAttributeNames: { '#phase': 'phase', ...update.names },
      ExpressionAttributeValues: toItem({ ...activeValues(job), ...update.values }),
    }),
  );
}

/** The watcher's own re-read, as the caller's: under its account's tenant session. */
async function readWatched(job: Pick<JobRecord, 'accountId' | 'jobId'>): Promise<WatchedJob | undefined> {
  const { dynamo: db } = await tenantClients(job.accountId);
  const { Item } = await db.getItem({
    TableName: tableName('jobs'),
    Key: jobKey(job),
    ConsistentRead: true,
    ProjectionExpression: 'jobId, accountId, #phase, watchers',
    ExpressionAttributeNames: { '#phase': 'phase' },
  });
  return Item ? watchedJobOf(job.jobId, fromItem<Record<string, unknown>>(Item)) : undefined;
}
