import { gunzipSync, gzipSync } from 'node:zlib';
import type { UpdateItemCommandInput } from '@aws-sdk/client-dynamodb';
import {
  conditionHolds,
  dynamo,
  fromItem,
  isConditionFailure,
  nowSeconds,
  tableName,
  toItem,
  type Item,
} from './dynamo.js';
import type { DynamoDb } from './dynamodb-client.js';
import { accountPk } from './usage-items.js';

/**
 * The arena's session log (jobs table): every event a battle or fight session produces, in
 * order, appended before any client is sent it, so the log is the session's one source of
 * truth. A client that lost its stream replays it from here (`Last-Event-ID`), and a session
 * whose host stopped (a stream at its time limit, a crash) is resumed from it by another.
 *
 * Items, all under the session's partition `ACCOUNT#<accountId>#ARENA_SESSION#<sessionId>` and kept
 * 7 days (TTL). The key leads with the account so that a caller's reads run under its tenant
 * session (lib/tenant-access-policy.ts): another account's session is out of IAM's reach, not only
 * refused by a check. Every call names the session by account and id (`SessionRef`):
 * - `META`: the owner, the status, and the lease: which host plays the session now (`holder`,
 *   `leaseUntil`) and its `epoch`, raised by every host that takes the session over. Small:
 *   readers following a live session read it often.
 * - `PLAN`: what a host taking over needs to play on (the agents, the question, the history),
 *   gzipped when large; a plan too large for an item even so is not kept, and such a session
 *   ends with its first host.
 * - `EVENTS#<first id>`: a page of consecutive events (`first`..`last`). A page is written only
 *   if no page starts at that id yet, so the log is append-only and two hosts that both think
 *   they hold the session cannot both write the same ids: the second one learns it lost.
 *
 * Events are stored as one JSON string per page: the log stores what was sent, byte for byte,
 * and a page of deltas costs one write instead of one per token.
 */

export const SESSION_LOG_TTL_SECONDS = 7 * 86_400;

export type SessionStatus = 'running' | 'complete' | 'aborted' | 'failed';

export interface SessionMeta {
  readonly sessionId: string;
  readonly accountId: string;
  readonly keyId?: string;
  readonly route: string;
  readonly mode: string;
  /** ISO 8601. */
  readonly startedAt: string;
  readonly status: SessionStatus;
  /** The plan was kept (PLAN), so another host can continue the session. */
  readonly resumable: boolean;
  /** Who plays the session now: a request id or a runner's invocation id. */
  readonly holder: string;
  /** Epoch milliseconds; a lease past it may be taken over. 0: released. */
  readonly leaseUntil: number;
  readonly epoch: number;
  /** The last event's id, once the session has ended. */
  readonly lastId?: number;
  /** Set by a cancellation; the holder stops at its next lease renewal. */
  readonly cancelled?: boolean;
  readonly expiresAt: number;
}

export interface LoggedEvent {
  readonly id: number;
  readonly event: unknown;
}

/** A session as its log is keyed: the owning account and the session's id. */
export interface SessionRef {
  readonly accountId: string;
  readonly sessionId: string;
}

const pk = (session: SessionRef) => `${accountPk(session.accountId)}#ARENA_SESSION#${session.sessionId}`;
const META = 'META';
const PLAN = 'PLAN';
const PAGE_PREFIX = 'EVENTS#';
/** Above every page's sort key ('~' sorts after the digits), below `META` and `PLAN`. */
const PAGES_END = `${PAGE_PREFIX}~`;
/** Ten digits: ids sort as strings, and a session never has ten billion events. */
const pageSk = (firstId: number) => `${PAGE_PREFIX}${String(firstId).padStart(10, '0')}`;
const metaKey = (session: SessionRef) => toItem({ pk: pk(session), sk: META });

/** An item holds 400 KB; this leaves room for the keys and attributes beside the plan. */
const MAX_PLAN_BYTES = 350 * 1024;
const GZIP_ABOVE_BYTES = 16 * 1024;

/** A plan as the PLAN item keeps it: JSON, gzipped when large. */
export type EncodedPlan = { readonly json: string } | { readonly gzip: Buffer };

/** The plan encoded for its item; undefined when even gzipped it is too large to keep. */
export function encodeSessionPlan(plan: unknown): EncodedPlan | undefined {
  const json = Buffer.from(JSON.stringify(plan));
  if (json.length <= GZIP_ABOVE_BYTES) return { json: json.toString() };
  const gzip = gzipSync(json);
  return gzip.length > MAX_PLAN_BYTES ? undefined : { gzip };
}

/** Keeps the session's plan for the hosts after the first. */
export async function putSessionPlan(session: SessionRef, plan: EncodedPlan, now = Date.now()): Promise<void> {
  await dynamo().putItem({
    TableName: tableName('jobs'),
    Item: toItem({ pk: pk(session), sk: PLAN, ...plan, expiresAt: nowSeconds(now) + SESSION_LOG_TTL_SECONDS }),
    ConditionExpression: 'attribute_not_exists(pk)',
  });
}

export async function getSessionPlan(session: SessionRef): Promise<unknown> {
  const { Item } = await dynamo().getItem({
    TableName: tableName('jobs'),
    Key: toItem({ pk: pk(session), sk: PLAN }),
  });
  if (!Item) return undefined;
  const stored = fromItem<{ json?: string; gzip?: Uint8Array }>(Item);
  return JSON.parse(stored.gzip ? gunzipSync(stored.gzip).toString() : (stored.json ?? 'null'));
}

/** Creates the session's META, held by `holder` from the start (epoch 1). */
export async function createSessionMeta(
  meta: Omit<SessionMeta, 'status' | 'epoch' | 'expiresAt' | 'lastId' | 'cancelled'>,
  now = Date.now(),
): Promise<SessionMeta> {
  const created: SessionMeta = {
    ...meta,
    status: 'running',
    epoch: 1,
    expiresAt: nowSeconds(now) + SESSION_LOG_TTL_SECONDS,
  };
  await dynamo().putItem({
    TableName: tableName('jobs'),
    Item: { ...metaKey(meta), ...toItem({ type: 'arena_session_meta', ...created }) },
    ConditionExpression: 'attribute_not_exists(pk)',
  });
  return created;
}

/**
 * The session's META, if it exists and has not expired. Strongly consistent: leases read it.
 * `db`: the function role's client by default (the hosts and the runner); a caller's own read
 * passes its tenant session's.
 */
export async function getSessionMeta(
  session: SessionRef,
  now = Date.now(),
  db: DynamoDb = dynamo(),
): Promise<SessionMeta | undefined> {
  const { Item } = await db.getItem({
    TableName: tableName('jobs'),
    Key: metaKey(session),
    ConsistentRead: true,
  });
  if (!Item) return undefined;
  const meta = stripKeys(fromItem<StoredMeta>(Item));
  return meta.expiresAt > nowSeconds(now) ? meta : undefined;
}

/**
 * Appends a page of consecutive events. False when a page already starts at the first id:
 * another host wrote there, and this one no longer owns the session.
 */
export async function appendSessionEvents(
  session: SessionRef,
  epoch: number,
  events: readonly LoggedEvent[],
  now = Date.now(),
): Promise<boolean> {
  const first = events[0];
  const last = events.at(-1);
  if (!first || !last) return true;
  return conditionHolds(() =>
    dynamo().putItem({
      TableName: tableName('jobs'),
      Item: toItem({
        pk: pk(session),
        sk: pageSk(first.id),
        first: first.id,
        last: last.id,
        epoch,
        events: JSON.stringify(events.map(({ id, event }) => [id, event])),
        expiresAt: nowSeconds(now) + SESSION_LOG_TTL_SECONDS,
      }),
      ConditionExpression: 'attribute_not_exists(pk)',
    }),
  );
}

export interface EventsRead {
  readonly events: LoggedEvent[];
  /** More events may follow at once (the read stopped at its bound). */
  readonly more: boolean;
}

/**
 * The logged events after `afterId`, in order, at most about `maxEvents` (whole pages). The
 * page holding `afterId + 1` may start before it: the read starts at the last page that does
 * not start after it.
 */
export async function readSessionEvents(
  session: SessionRef,
  afterId: number,
  maxEvents: number,
  db: DynamoDb = dynamo(),
): Promise<EventsRead> {
  const table = tableName('jobs');
  let startSk = pageSk(afterId + 1);
  if (afterId > 0) {
    const { Items } = await db.query({
      TableName: table,
      KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
      ExpressionAttributeValues: toItem({ ':pk': pk(session), ':from': PAGE_PREFIX, ':to': pageSk(afterId + 1) }),
      ScanIndexForward: false,
      Limit: 1,
      ConsistentRead: true,
    });
    const holding = Items?.[0];
    if (holding) startSk = fromItem<{ sk: string }>(holding).sk;
  }
  const events: LoggedEvent[] = [];
  let startKey: Item | undefined;
  do {
    const page = await db.query({
      TableName: table,
      KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
      ExpressionAttributeValues: toItem({ ':pk': pk(session), ':from': startSk, ':to': PAGES_END }),
      ExclusiveStartKey: startKey,
      ConsistentRead: true,
      Limit: 50,
    });
    for (const item of page.Items ?? []) {
      const stored = fromItem<{ events: string }>(item);
      for (const [id, event] of JSON.parse(stored.events) as [number, unknown][]) {
        if (id === (events.at(-1)?.id ?? afterId) + 1) events.push({ id, event });
      }
      if (events.length >= maxEvents) return { events, more: true };
    }
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return { events, more: false };
}

/**
 * Takes the session over for `holder` when its lease has lapsed (or was released) and it is
 * still running: the epoch goes up by one. The new META, or undefined when another host holds
 * it or the session has ended.
 */
export async function takeSessionLease(
  session: SessionRef,
  holder: string,
  leaseMs: number,
  now = Date.now(),
): Promise<SessionMeta | undefined> {
  return updatedMeta(session, {
    UpdateExpression: 'SET holder = :holder, leaseUntil = :until, epoch = epoch + :one',
    ConditionExpression: 'attribute_exists(pk) AND #status = :running AND leaseUntil < :now',
    ExpressionAttributeNames: { '#status': 'status' },
    ExpressionAttributeValues: toItem({
      ':holder': holder,
      ':until': now + leaseMs,
      ':one': 1,
      ':running': 'running',
      ':now': now,
    }),
  });
}

/** Extends the holder's lease. The META after, or undefined when the holder has lost it. */
export async function renewSessionLease(
  session: SessionRef,
  holder: string,
  epoch: number,
  leaseMs: number,
  now = Date.now(),
): Promise<SessionMeta | undefined> {
  return updatedMeta(session, {
    UpdateExpression: 'SET leaseUntil = :until',
    ConditionExpression: 'holder = :holder AND epoch = :epoch',
    ExpressionAttributeValues: toItem({ ':until': now + leaseMs, ':holder': holder, ':epoch': epoch }),
  });
}

/**
 * Ends the holder's tenure: with a status other than `running` the session is over and
 * `lastId` is its last event; with `running` the lease is released for the next host at once.
 * False when the holder had already lost the session.
 */
export async function endSessionTenure(
  session: SessionRef,
  holder: string,
  epoch: number,
  status: SessionStatus,
  lastId: number,
): Promise<boolean> {
  return conditionHolds(() =>
    dynamo().updateItem({
      TableName: tableName('jobs'),
      Key: metaKey(session),
      UpdateExpression:
        status === 'running' ? 'SET leaseUntil = :zero' : 'SET leaseUntil = :zero, #status = :status, lastId = :last',
      ConditionExpression: 'holder = :holder AND epoch = :epoch',
      ExpressionAttributeNames: status === 'running' ? undefined : { '#status': 'status' },
      ExpressionAttributeValues: toItem({
        ':zero': 0,
        ':holder': holder,
        ':epoch': epoch,
        ...(status === 'running' ? {} : { ':status': status, ':last': lastId }),
      }),
    }),
  );
}

/** Asks a running session to stop; its holder sees it at its next lease renewal. */
export async function cancelSession(session: SessionRef): Promise<boolean> {
  return conditionHolds(() =>
    dynamo().updateItem({
      TableName: tableName('jobs'),
      Key: metaKey(session),
      UpdateExpression: 'SET cancelled = :yes',
      ConditionExpression: 'attribute_exists(pk) AND #status = :running',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: toItem({ ':yes': true, ':running': 'running' }),
    }),
  );
}

/** A conditional update of the META: the META after, or undefined when the condition did not hold. */
async function updatedMeta(
  session: SessionRef,
  update: Pick<
    UpdateItemCommandInput,
    'UpdateExpression' | 'ConditionExpression' | 'ExpressionAttributeNames' | 'ExpressionAttributeValues'
  >,
): Promise<SessionMeta | undefined> {
  try {
    const { Attributes } = await dynamo().updateItem({
      TableName: tableName('jobs'),
      Key: metaKey(session),
      ...update,
      ReturnValues: 'ALL_NEW',
    });
    return Attributes ? stripKeys(fromItem<StoredMeta>(Attributes)) : undefined;
  } catch (error) {
    if (isConditionFailure(error)) return undefined;
    throw error;
  }
}

type StoredMeta = SessionMeta & { pk?: string; sk?: string; type?: string };

function stripKeys(meta: StoredMeta): SessionMeta {
  const { pk: _pk, sk: _sk, type: _type, ...rest } = meta;
  return rest;
}
