import { setTimeout as sleep } from 'node:timers/promises';
import {
  accountBudgetScope,
  reserveBudget,
  readBudgetCounters,
  type BudgetCounter,
  type BudgetCounterRef,
  type ScopedBudget,
  type StoredBudget,
} from './budget-counters.js';
import { dynamo, isConditionFailure, tableName, toItem } from './dynamo.js';
import { TransactionCanceledError } from './dynamodb-client.js';

/**
 * A budget kept on several counters (docs/deployment.md, "Budgets"): an account's, whose calls
 * come from all its keys at once. One counter item takes at most 1,000 writes a second, and a
 * budgeted call writes twice (its reservation and its settlement), so one item would hold an
 * account to about 500 calls a second; spread over SHARDS items it takes an account at 10,000.
 *
 * Each shard keeps what its own counter does (budget-counters.ts): `committed` and `spent`. The
 * limit is split into fixed shares, one per shard, and a reservation on a shard is the same
 * conditional ADD as on a whole counter, against that shard's share. A shard whose share is
 * used up may borrow from the others: one transaction moves room between shards by ADDing to
 * `committed` (the lender's rises, the borrower's falls), each conditioned as a reservation is.
 * No write ever takes a shard's committed past its share, and the moves cancel out in the sum,
 * so the sum of what the shards commit never passes the limit: the guarantee a single counter
 * gives, with no item written more than 1/SHARDS of the time.
 *
 * Settlements go to the shard the reservation was made on and need nothing of this: a shard's
 * counter settles like any other.
 */

/** How many counters an account's budget is spread over. */
export const BUDGET_SHARDS = 32;

/** The budgets an account's calls fall under: the account's own, when it has one, on its shards. */
export function accountBudgets(accountId: string, budget: StoredBudget | undefined): ScopedBudget[] {
  return budget ? [{ owner: 'account', scope: accountBudgetScope(accountId), budget, shards: BUDGET_SHARDS }] : [];
}

/**
 * A borrowing that lost a race with other writes (their reads saw the same room) is tried again
 * this many times in all, after a random pause of up to BORROW_BACKOFF_MS times the try.
 */
const BORROW_TRIES = 6;
const BORROW_BACKOFF_MS = 20;

/** Shard `index`'s counter of the budget whose period counter is `ref`. */
function shardRef(ref: BudgetCounterRef, index: number): BudgetCounterRef {
  return { ...ref, scope: `${ref.scope}#${index}` };
}

/** Shard `index`'s share of the limit: the limit split evenly, the remainder to the first shards. */
export function shardShare(limitMicroUsd: number, shards: number, index: number): number {
  return Math.floor(limitMicroUsd / shards) + (index < limitMicroUsd % shards ? 1 : 0);
}

export interface ShardedReservation {
  /** The shard counter the amount was reserved on, to settle it on. */
  readonly ref: BudgetCounterRef;
}

export interface ShardStore {
  reserve(ref: BudgetCounterRef, limitMicroUsd: number, amountMicroUsd: number): Promise<boolean>;
  read(refs: readonly BudgetCounterRef[]): Promise<BudgetCounter[]>;
  /** Moves room and reserves in one transaction: false when any condition no longer held. */
  borrow(plan: BorrowPlan): Promise<boolean>;
}

/** A borrowing: lenders give room, the borrower takes it and reserves the amount, all or nothing. */
export interface BorrowPlan {
  readonly borrower: { readonly ref: BudgetCounterRef; readonly share: number };
  readonly lenders: readonly { readonly ref: BudgetCounterRef; readonly share: number; readonly lent: number }[];
  readonly amountMicroUsd: number;
}

const DYNAMODB_SHARD_STORE: ShardStore = {
  reserve: reserveBudget,
  read: readBudgetCounters,
  borrow: borrowAndReserve,
};

/**
 * Reserves `amountMicroUsd` against a limit split over `shards` counters: on a shard picked at
 * random, else (its share used up) by borrowing room from the others; undefined when the
 * shards together cannot hold it (nothing written).
 */
export async function reserveOnShards(
  ref: BudgetCounterRef,
  limitMicroUsd: number,
  amountMicroUsd: number,
  shards: number = BUDGET_SHARDS,
  store: ShardStore = DYNAMODB_SHARD_STORE,
  random: () => number = Math.random,
): Promise<ShardedReservation | undefined> {
  if (amountMicroUsd > limitMicroUsd) return undefined;
  const first = Math.min(shards - 1, Math.floor(random() * shards));
  const firstRef = shardRef(ref, first);
  if (await store.reserve(firstRef, shardShare(limitMicroUsd, shards, first), amountMicroUsd)) return { ref: firstRef };

  const refs = Array.from({ length: shards }, (_, index) => shardRef(ref, index));
  for (let attempt = 0; attempt < BORROW_TRIES; attempt++) {
    if (attempt > 0) await sleep(random() * BORROW_BACKOFF_MS * attempt);
    const counters = await store.read(refs);
    const room = counters.map((counter, index) =>
      Math.max(0, shardShare(limitMicroUsd, shards, index) - counter.committedMicroUsd),
    );
    if (room.reduce((sum, r) => sum + r, 0) < amountMicroUsd) return undefined;
    // Concurrent callers read the same room: each picks its shards in an order of its own, so
    // that they seldom reach for the same room at once.
    const order = shuffled(
      room.flatMap((r, index) => (r > 0 ? [{ r, index }] : [])),
      random,
    );
    const whole = order.find(({ r }) => r >= amountMicroUsd);
    if (whole) {
      const wholeRef = refs[whole.index]!;
      if (await store.reserve(wholeRef, shardShare(limitMicroUsd, shards, whole.index), amountMicroUsd))
        return { ref: wholeRef };
      continue;
    }
    const [borrower, ...others] = order as [{ r: number; index: number }, ...{ r: number; index: number }[]];
    let needed = amountMicroUsd - borrower.r;
    const lenders: BorrowPlan['lenders'][number][] = [];
    for (const { r, index } of others) {
      if (needed <= 0) break;
      const lent = Math.min(r, needed);
      lenders.push({ ref: refs[index]!, share: shardShare(limitMicroUsd, shards, index), lent });
      needed -= lent;
    }
    const borrowerRef = refs[borrower.index]!;
    const borrowerShare = shardShare(limitMicroUsd, shards, borrower.index);
    if (await store.borrow({ borrower: { ref: borrowerRef, share: borrowerShare }, lenders, amountMicroUsd }))
      return { ref: borrowerRef };
  }
  // Others' writes kept moving the room away: refused, as a burst at the limit may be.
  return undefined;
}

/** A copy of `items` in random order (Fisher–Yates). */
function shuffled<T>(items: readonly T[], random: () => number): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.min(i, Math.floor(random() * (i + 1)));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

const counterKey = (ref: BudgetCounterRef) => toItem({ pk: `BUDGET#${ref.scope}`, sk: ref.periodStart });

/**
 * One transaction: each lender's committed rises by what it lends, conditioned on staying within
 * its share; the borrower's falls by what it borrows and rises by the amount, conditioned the
 * same way. DynamoDB conditions cannot add attributes, so each is `committed <= share - change`.
 */
async function borrowAndReserve(plan: BorrowPlan): Promise<boolean> {
  const table = tableName('identity');
  const borrowed = plan.lenders.reduce((sum, lender) => sum + lender.lent, 0);
  const change = (ref: BudgetCounterRef, share: number, delta: number) => ({
    Update: {
      TableName: table,
      Key: counterKey(ref),
      UpdateExpression: `ADD committed :delta${ref.expiresAt === undefined ? '' : ' SET expiresAt = if_not_exists(expiresAt, :expires)'}`,
      ConditionExpression: 'attribute_not_exists(committed) OR committed <= :room',
      ExpressionAttributeValues: toItem({
        ':delta': delta,
        ':room': share - delta,
        ...(ref.expiresAt === undefined ? {} : { ':expires': ref.expiresAt }),
      }),
    },
  });
  try {
    await dynamo().transactWriteItems({
      TransactItems: [
        change(plan.borrower.ref, plan.borrower.share, plan.amountMicroUsd - borrowed),
        ...plan.lenders.map((lender) => change(lender.ref, lender.share, lender.lent)),
      ],
    });
    return true;
  } catch (error) {
    if (lostARace(error)) return false;
    throw error;
  }
}

/** A transaction cancelled because a condition no longer held or another write was under way. */
const lostARace = (error: unknown) =>
  error instanceof TransactionCanceledError &&
  error.reasons.every(
    ({ Code }) => Code === 'None' || Code === 'ConditionalCheckFailed' || Code === 'TransactionConflict',
  );

/** The shards' counters summed: the budget's period counter. */
export async function readShardedCounter(
  ref: BudgetCounterRef,
  shards: number = BUDGET_SHARDS,
  read: ShardStore['read'] = readBudgetCounters,
): Promise<BudgetCounter> {
  const counters = await read(Array.from({ length: shards }, (_, index) => shardRef(ref, index)));
  return counters.reduce(
    (sum, counter) => ({
      committedMicroUsd: sum.committedMicroUsd + counter.committedMicroUsd,
      spentMicroUsd: sum.spentMicroUsd + counter.spentMicroUsd,
    }),
    { committedMicroUsd: 0, spentMicroUsd: 0 },
  );
}

/**
 * Claims the telling of one threshold crossing of a sharded budget in one period: true for the
 * one caller that claims it first. No single settlement sees a sharded budget's whole spend, so
 * crossings are found by reading the sum (lambdas/usage/sharded-crossings.ts), which several
 * instances may do at once; the claim, one conditional write, lets exactly one of them tell it.
 */
export async function claimCrossing(ref: BudgetCounterRef, thresholdPercent: number): Promise<boolean> {
  try {
    await dynamo().updateItem({
      TableName: tableName('identity'),
      Key: toItem({ pk: `BUDGET#${ref.scope}#CROSSED`, sk: `${ref.periodStart}#${thresholdPercent}` }),
      UpdateExpression: `SET claimedAt = :now${ref.expiresAt === undefined ? '' : ', expiresAt = :expires'}`,
      ConditionExpression: 'attribute_not_exists(pk)',
      ExpressionAttributeValues: toItem({
        ':now': new Date().toISOString(),
        ...(ref.expiresAt === undefined ? {} : { ':expires': ref.expiresAt }),
      }),
    });
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
}
