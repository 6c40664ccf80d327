import { lease, type Lease } from '../store/rate-limit-windows.js';
import { HttpError, retryAfterSeconds } from './errors.js';

/**
 * The fashion endpoints' own per-key limits (spec 8): run and subscribe 30 requests per 60 s
 * each (each its own window: "each"), status 40 per 10 s. Counted exactly in the shared
 * DynamoDB window store, one conditional write per request (fashion calls are seconds long;
 * block leasing would buy nothing). Refusals carry Retry-After.
 */

export type FashionEndpoint = 'run' | 'subscribe' | 'status';

export interface FashionLimit {
  readonly limit: number;
  readonly windowMs: number;
}

export const FASHION_LIMITS: Readonly<Record<FashionEndpoint, FashionLimit>> = Object.freeze({
  run: { limit: 30, windowMs: 60_000 },
  subscribe: { limit: 30, windowMs: 60_000 },
  status: { limit: 40, windowMs: 10_000 },
});

export interface FashionAdmission {
  readonly allowed: boolean;
  readonly limit: number;
  readonly remaining: number;
  readonly resetAtMs: number;
  /** X-RateLimit-* (and Retry-After when refused), as every limited response carries. */
  readonly headers: Readonly<Record<string, string>>;
}

export interface FashionLimitDeps {
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

const deploymentDeps: FashionLimitDeps = { lease, now: Date.now };

/** Counts one request of `apiKeyId` against `endpoint`'s window. */
export async function admitFashionRequest(
  endpoint: FashionEndpoint,
  apiKeyId: string,
  deps: FashionLimitDeps = deploymentDeps,
): Promise<FashionAdmission> {
  const { limit, windowMs } = FASHION_LIMITS[endpoint];
  const now = deps.now();
  const granted = await deps.lease(`fashion-${endpoint}#${apiKeyId}`, limit, 1, now, false, windowMs);
  const allowed = granted.granted > 0;
  const headers: Record<string, string> = {
    'X-RateLimit-Limit': String(limit),
    'X-RateLimit-Remaining': String(Math.max(0, limit - granted.count)),
    'X-RateLimit-Reset': String(Math.ceil(granted.resetAtMs / 1000)),
  };
  if (!allowed) headers['Retry-After'] = String(retryAfterSeconds(granted.resetAtMs - now));
  return { allowed, limit, remaining: Math.max(0, limit - granted.count), resetAtMs: granted.resetAtMs, headers };
}

/** The 429 for a refused admission (the caller's own limit, not the upstream's). */
export function fashionLimitError(endpoint: FashionEndpoint, admission: FashionAdmission): HttpError {
  const { limit, windowMs } = FASHION_LIMITS[endpoint];
  return new HttpError(
    429,
    'RATE_LIMIT_EXCEEDED',
    `Fashion ${endpoint} is limited to ${limit} requests per ${windowMs / 1000} s per key; retry after ${admission.headers['Retry-After']} s`,
    undefined,
    admission.headers,
  );
}
