/**
 * Which functions reserve Lambda concurrency, and how much: data and pure functions, read by the
 * stack at synth. Lambda has no per-function cap other than a reservation, which is at once a
 * floor (kept for that function, used or not) and a ceiling. Long streams hold their units for
 * their whole length, so without reservations 50 requests a second of 20 s streams take all of
 * an account's 1,000 and sign-in, key and job-status calls are throttled. The default partition
 * therefore caps every streaming route and keeps a floor for the control routes, each as a share
 * of what the account can reserve, and every plan is checked against the account's quota here
 * rather than by a failed deploy and its rollback.
 */
import type { RouteSpec } from './routes.js';

/** Lambda refuses any reservation that would leave fewer than this unreserved in the account and region. */
export const LAMBDA_MIN_UNRESERVED_CONCURRENCY = 100;

/** The regional Lambda concurrency quota of an established account; new accounts may have far less. */
export const DEFAULT_ACCOUNT_CONCURRENCY = 1000;

/**
 * Routes a person or a client waits on to use the rest (sign-in, keys, usage, job status):
 * each keeps a floor, so streams cannot crowd them out. Their floor is their ceiling too, hence
 * generous shares for the status routes, which clients poll.
 */
export const CONTROL_ROUTE_SHARES: Readonly<Record<string, number>> = {
  'auth-login': 2,
  'keys-create': 1,
  'keys-list': 1,
  'keys-update': 1,
  'keys-delete': 1,
  'usage-get': 2,
  'media-video-status': 3,
  'fashion-status': 3,
};

/**
 * The chat core's two entries hold most of the open streams, so they get the largest ceilings:
 * chat completions most of it, the Responses API (the same core) a part of the same 20%.
 */
export const STREAMING_ROUTE_SHARES: Readonly<Record<string, number>> = {
  'chat-completions': 18,
  'responses-create': 2,
};

/** Every other streaming route (the chat modes, speech, music, fashion subscribe, and any added later). */
export const OTHER_STREAMING_ROUTE_SHARE = 2;

export interface ConcurrencySettings {
  /** The account's regional Lambda concurrency quota (`aws lambda get-account-settings`). */
  readonly accountConcurrency: number;
  /** Whether the default partition applies; off, only `explicit` reserves anything. */
  readonly partition: boolean;
  /** Route id to reservation; wins over the partition's value for that route. */
  readonly explicit: Readonly<Record<string, number>>;
}

/** The most an account with this quota lets all functions together reserve. */
export const reservableConcurrency = (accountConcurrency: number): number =>
  Math.max(0, accountConcurrency - LAMBDA_MIN_UNRESERVED_CONCURRENCY);

/**
 * The default partition for these routes: each named route's share, in percent of the reservable
 * concurrency, rounded down and at least 1 (a reservation of 0 would stop the function). The
 * shares add up to at most half, so a second stack with the same defaults fits in the account too.
 */
export function defaultPartition(routes: readonly RouteSpec[], accountConcurrency: number): Map<string, number> {
  const reservable = reservableConcurrency(accountConcurrency);
  const partition = new Map<string, number>();
  for (const route of routes) {
    const share =
      CONTROL_ROUTE_SHARES[route.id] ??
      STREAMING_ROUTE_SHARES[route.id] ??
      (route.streaming ? OTHER_STREAMING_ROUTE_SHARE : undefined);
    if (share !== undefined) partition.set(route.id, Math.max(1, Math.floor((reservable * share) / 100)));
  }
  return partition;
}

/**
 * The reservation of every route that has one: the partition (when on) with the explicit values
 * over it, checked against the account's quota. Throws naming the routes and the numbers when
 * Lambda would refuse them at deploy.
 */
export function planReservations(routes: readonly RouteSpec[], settings: ConcurrencySettings): Map<string, number> {
  const plan = settings.partition ? defaultPartition(routes, settings.accountConcurrency) : new Map<string, number>();
  for (const [routeId, reserved] of Object.entries(settings.explicit)) plan.set(routeId, reserved);
  checkReservations(plan, settings.accountConcurrency);
  return plan;
}

export function checkReservations(reservations: ReadonlyMap<string, number>, accountConcurrency: number): void {
  const total = [...reservations.values()].reduce((sum, reserved) => sum + reserved, 0);
  const reservable = reservableConcurrency(accountConcurrency);
  if (total <= reservable) return;
  const listed = [...reservations]
    .sort(([a, x], [b, y]) => y - x || a.localeCompare(b))
    .map(([routeId, reserved]) => `${routeId} ${reserved}`)
    .join(', ');
  throw new Error(
    `reserved concurrency adds up to ${total} (${listed}), more than accountConcurrency ${accountConcurrency} ` +
      `allows: Lambda keeps ${LAMBDA_MIN_UNRESERVED_CONCURRENCY} unreserved, so at most ${reservable} can be reserved. ` +
      'Pass the account quota (ConcurrentExecutions from `aws lambda get-account-settings`) as ' +
      '-c accountConcurrency=<n>, lower -c reservedConcurrency, or turn the default partition off with ' +
      '-c concurrencyPartition=off',
  );
}
