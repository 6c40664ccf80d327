import { invalidRequest } from './chat-errors.js';
import { TtlCache } from '../store/ttl-cache.js';
import { nowSeconds } from '../store/dynamo.js';
import { getCachedAnswer, putCachedAnswer, type CachedAnswer } from '../store/cached-answers.js';
import type { ChatCompletion } from '../providers/chat-types.js';

export const DEFAULT_CACHE_TTL_SECONDS = 3600;
export const MAX_CACHE_TTL_SECONDS = 86_400;

export interface CachePolicy {
  /** `X-Cache: no-cache`: skip the read (a fresh answer is still stored). */
  readonly read: boolean;
  /** False: the answer is not stored either (the arena's answers and votes are never replayed). */
  readonly write?: boolean;
  readonly ttlSeconds: number;
}

/** Reads the request headers that steer the cache; a bad TTL is a 400 naming the header. */
export function cachePolicy(headers: Readonly<Record<string, string>>): CachePolicy {
  const raw = headers['x-cache-ttl'];
  let ttlSeconds = DEFAULT_CACHE_TTL_SECONDS;
  if (raw !== undefined) {
    if (!/^\d{1,6}$/.test(raw.trim()) || Number(raw) < 1 || Number(raw) > MAX_CACHE_TTL_SECONDS) {
      throw invalidRequest('X-Cache-TTL', `X-Cache-TTL: must be an integer from 1 to ${MAX_CACHE_TTL_SECONDS} seconds`);
    }
    ttlSeconds = Number(raw);
  }
  return { read: readsCache(headers), ttlSeconds };
}

/** False when the caller sent `X-Cache: no-cache`: answer afresh (image analysis reads it too). */
export const readsCache = (headers: Readonly<Record<string, string>>): boolean =>
  (headers['x-cache'] ?? '').trim().toLowerCase() !== 'no-cache';

/**
 * Whether a whole answer is stored, and the X-Cache it goes out with. Tool calls depend on the
 * live state of the caller's tools, which a replay cannot know: such an answer is BYPASS and
 * never stored. Streams never get here: they are not cached at all.
 */
export function cacheVerdict(
  completion: ChatCompletion,
  policy: CachePolicy,
): { readonly cache: 'MISS' | 'BYPASS'; readonly store: boolean } {
  const bypass = completion.choices.some((choice) => (choice.message.tool_calls?.length ?? 0) > 0);
  return { cache: bypass ? 'BYPASS' : 'MISS', store: !bypass && policy.write !== false };
}

/**
 * The response cache: a small in-memory layer per instance in front of the shared DynamoDB
 * table, so a hot answer costs no round trip. Both layers honour the entry's own expiry.
 */
const local = new TtlCache<CachedAnswer>(60_000, 2_000);

export async function readAnswer(accountId: string, hash: string, now = Date.now()): Promise<CachedAnswer | undefined> {
  const key = `${accountId}#${hash}`;
  const hit = local.get(key);
  if (hit && hit.expiresAt > nowSeconds(now)) return hit;
  const stored = await getCachedAnswer(accountId, hash, now);
  if (stored) local.set(key, stored);
  return stored;
}

/** Stores an answer; false when it was too large to keep (it is still served). */
export async function storeAnswer(
  accountId: string,
  hash: string,
  answer: Omit<CachedAnswer, 'expiresAt'>,
  ttlSeconds: number,
  now = Date.now(),
): Promise<boolean> {
  // Rounded up: an entry lives at least its TTL, never a fraction of a second less.
  const entry = { ...answer, expiresAt: Math.ceil((now + ttlSeconds * 1000) / 1000) };
  const stored = await putCachedAnswer(accountId, hash, entry);
  if (stored) local.set(`${accountId}#${hash}`, entry);
  return stored;
}
