import { conditionHolds, dynamo, fromItem, isConditionFailure, tableName, toItem } from './dynamo.js';

/**
 * Failed dashboard sign-ins per account (the email tried, whether or not it exists), in the
 * cache table: `pk = LOGIN#<account key>`, `sk = ATTEMPTS`, `{failures, lastFailureMs}`, TTL
 * `expiresAt`. Every change is one conditional UpdateItem, so all instances share one exact
 * count and concurrent guesses cannot slip past a lock that an earlier one set. An attempt is
 * counted as a failure when it is let through (before the password is checked): guesses in
 * flight at the same time count at once. A successful sign-in deletes the row.
 */

export interface FailureRecord {
  readonly failures: number;
  /** Epoch ms of the last counted attempt; a lock runs from here. */
  readonly lastFailureMs: number;
}

/** From `failures` failed attempts on (the last rung: or more), an account is locked for `lockMs` after its last failure. */
export interface LockRung {
  readonly failures: number;
  readonly lockMs: number;
}

export interface AttemptRules {
  /** Ascending by `failures`; below the first rung an account is never locked. */
  readonly ladder: readonly LockRung[];
  /**
   * A row whose lock passed this long ago counts as no row (TTL deletion is late). From the
   * lock's end, not the failure: past the ladder's top a new failure would otherwise find the
   * count already forgotten when the longest lock ends.
   */
  readonly quietMs: number;
}

const rowKey = (account: string) => toItem({ pk: `LOGIN#${account}`, sk: 'ATTEMPTS' });
const NAMES = { '#failures': 'failures', '#last': 'lastFailureMs' };

/** TTL only tidies up (conditions decide what is stale), so one bound for every count. */
function expiresAt(lastFailureMs: number, rules: AttemptRules): number {
  const longestLock = rules.ladder.at(-1)?.lockMs ?? 0;
  return Math.ceil((lastFailureMs + longestLock + rules.quietMs) / 1000) + 60;
}

/**
 * "The row's lock ended at least `afterMs` before `now`", spelt out per rung (DynamoDB cannot
 * compute 2^n), with its values added to `values` under `prefix`.
 */
function lockPassed(rules: AttemptRules, now: number, afterMs: number, prefix: string, values: Record<string, number>) {
  const { ladder } = rules;
  // Below the ladder there is no lock: then only the quiet spell has to have passed.
  if (afterMs > 0) values[`:${prefix}q`] = now - afterMs;
  const unlockedBelow = afterMs > 0 ? `#last <= :${prefix}q` : 'attribute_exists(pk)';
  if (ladder.length === 0) return unlockedBelow;
  const clauses = [afterMs > 0 ? `(#failures < :f0 AND ${unlockedBelow})` : '#failures < :f0'];
  ladder.forEach((rung, i) => {
    values[`:f${i}`] = rung.failures;
    values[`:${prefix}${i}`] = now - rung.lockMs - afterMs;
    const top = i === ladder.length - 1;
    clauses.push(`(#failures ${top ? '>=' : '='} :f${i} AND #last <= :${prefix}${i})`);
  });
  return clauses.join(' OR ');
}

/** Starts a new count at 1 where the account has none, or only a stale one. */
export async function startAttempts(account: string, now: number, rules: AttemptRules): Promise<boolean> {
  const values: Record<string, number> = { ':one': 1, ':now': now, ':expires': expiresAt(now, rules) };
  const stale = lockPassed(rules, now, rules.quietMs, 's', values);
  return conditionHolds(() =>
    dynamo().updateItem({
      TableName: tableName('cache'),
      Key: rowKey(account),
      UpdateExpression: 'SET #failures = :one, #last = :now, expiresAt = :expires',
      ConditionExpression: `attribute_not_exists(pk) OR ${stale}`,
      ExpressionAttributeNames: NAMES,
      ExpressionAttributeValues: toItem(values),
    }),
  );
}

/**
 * Counts one more attempt on a live row unless the ladder locks it at `now`; the count after
 * it, or undefined when the row is locked, stale or gone. The check and the count are one write.
 */
export async function addAttempt(account: string, now: number, rules: AttemptRules): Promise<number | undefined> {
  const values: Record<string, number> = { ':one': 1, ':now': now, ':expires': expiresAt(now, rules) };
  const unlocked = lockPassed(rules, now, 0, 'u', values);
  const stale = lockPassed(rules, now, rules.quietMs, 's', values);
  try {
    const { Attributes } = await dynamo().updateItem({
      TableName: tableName('cache'),
      Key: rowKey(account),
      UpdateExpression: 'ADD #failures :one SET #last = :now, expiresAt = :expires',
      ConditionExpression: `attribute_exists(pk) AND (${unlocked}) AND NOT (${stale})`,
      ExpressionAttributeNames: NAMES,
      ExpressionAttributeValues: toItem(values),
      ReturnValues: 'UPDATED_NEW',
    });
    return fromItem<{ failures: number }>(Attributes!).failures;
  } catch (error) {
    if (isConditionFailure(error)) return undefined;
    throw error;
  }
}

export async function readAttempts(account: string): Promise<FailureRecord | undefined> {
  const { Item } = await dynamo().getItem({
    TableName: tableName('cache'),
    Key: rowKey(account),
    ConsistentRead: true,
  });
  if (!Item) return undefined;
  const { failures, lastFailureMs } = fromItem<FailureRecord>(Item);
  return { failures, lastFailureMs };
}

/**
 * Moves the last failure to `at`, when the password check said no: the lock then runs from
 * the answer, not from when the attempt was let through. A row cleared meanwhile stays gone.
 */
export async function markFailure(account: string, at: number, rules: AttemptRules): Promise<void> {
  await conditionHolds(() =>
    dynamo().updateItem({
      TableName: tableName('cache'),
      Key: rowKey(account),
      UpdateExpression: 'SET #last = :at, expiresAt = :expires',
      ConditionExpression: 'attribute_exists(pk) AND #last < :at',
      ExpressionAttributeNames: { '#last': NAMES['#last'] },
      ExpressionAttributeValues: toItem({ ':at': at, ':expires': expiresAt(at, rules) }),
    }),
  );
}

export async function clearAttempts(account: string): Promise<void> {
  await dynamo().deleteItem({ TableName: tableName('cache'), Key: rowKey(account) });
}
