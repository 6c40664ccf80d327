import type { RouteLimit } from '../../lib/routes.js';
import { lease, type Lease } from '../store/rate-limit-windows.js';
import { HttpError } from './errors.js';
import { retryAfterSeconds } from '../errors/domain-error.js';

/**
 * A route's own limit per key (the manifest's `perKeyLimit`; docs/interface.md §8 gives the fashion routes
 * theirs: run and subscribe 30 per 60 s each, status 40 per 10 s). Each route has a window of
 * its own, counted exactly in the shared DynamoDB window store, one conditional write per
 * request: these are calls of seconds, where leasing blocks ahead would buy nothing.
 */

export interface RouteAdmission {
  readonly allowed: boolean;
  /** X-RateLimit-* (and Retry-After when refused), as every limited response carries. */
  readonly headers: Readonly<Record<string, string>>;
}

export interface RouteLimitDeps {
  readonly lease: (
    bucket: string,
    limit: number,
    wanted: number,
    now: number,
    windowEnded: boolean,
    windowMs: number,
  ) => Promise<Lease>;
  readonly now: () => number;
}

const deploymentDeps: RouteLimitDeps = { lease, now: Date.now };

/** Counts one request of `bucket` (the caller's key) against `routeId`'s window. */
export async function admitRouteRequest(
  routeId: string,
  limit: RouteLimit,
  bucket: string,
  deps: RouteLimitDeps = deploymentDeps,
): Promise<RouteAdmission> {
  const now = deps.now();
  const granted = await deps.lease(`${routeId}#${bucket}`, limit.requests, 1, now, false, limit.windowSeconds * 1000);
  const allowed = granted.granted > 0;
  const headers: Record<string, string> = {
    'X-RateLimit-Limit': String(limit.requests),
    'X-RateLimit-Remaining': String(Math.max(0, limit.requests - granted.count)),
    'X-RateLimit-Reset': String(Math.ceil(granted.resetAtMs / 1000)),
  };
  if (!allowed) headers['Retry-After'] = String(retryAfterSeconds(granted.resetAtMs - now));
  return { allowed, headers };
}

/** The 429 for a refused admission (the caller's own limit, not the upstream's). */
export function routeLimitError(limit: RouteLimit, admission: RouteAdmission): HttpError {
  return new HttpError(
    429,
    'RATE_LIMIT_EXCEEDED',
    `This endpoint is limited to ${limit.requests} requests per ${limit.windowSeconds} s per key; retry after ${admission.headers['Retry-After']} s`,
    undefined,
    { 'Retry-After': admission.headers['Retry-After']! },
  );
}
