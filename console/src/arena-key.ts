/**
 * The key the console runs the arena with. Battle, fight and the session routes take an API key,
 * not the dashboard cookie (lib/routes.ts), and a publishable key would not do: a browser sends
 * no Origin on a same-origin GET, which the session events route needs for a publishable key. So
 * the console makes a secret key of the signed-in account, named for what it is and rate
 * limited, keeps it in this browser's storage for the account, and revokes it at sign-out. It
 * adds no power a script on the page lacks: the session cookie already lets the page make keys,
 * and the Content-Security-Policy admits no script but the console's own.
 */
import { ApiFailure, callApi } from './console-http';

export const ARENA_KEY_NAME = 'Console arena (browser)';
const ARENA_KEY_RATE_LIMIT = 120;
const storageName = (accountId: string) => `gateway-console-arena-key:${accountId}`;

interface StoredKey {
  readonly keyId: string;
  readonly key: string;
}

function stored(accountId: string): StoredKey | undefined {
  try {
    const value = JSON.parse(localStorage.getItem(storageName(accountId)) ?? 'null') as StoredKey | null;
    return value && typeof value.key === 'string' && typeof value.keyId === 'string' ? value : undefined;
  } catch {
    return undefined;
  }
}

/** The key being made, per account: the page's panels ask at once, and one key must serve them all. */
const making = new Map<string, Promise<string>>();

export function arenaKey(accountId: string): Promise<string> {
  const kept = stored(accountId);
  if (kept) return Promise.resolve(kept.key);
  let made = making.get(accountId);
  if (!made) {
    made = callApi<StoredKey>('POST', '/api/v1/keys', {
      body: { name: ARENA_KEY_NAME, rateLimit: ARENA_KEY_RATE_LIMIT },
    })
      .then((created) => {
        localStorage.setItem(storageName(accountId), JSON.stringify({ keyId: created.keyId, key: created.key }));
        return created.key;
      })
      .finally(() => making.delete(accountId));
    making.set(accountId, made);
  }
  return made;
}

/** Drops a kept key the gateway refused (revoked or disabled on the Keys page): the next call makes another. */
export function dropArenaKey(accountId: string): void {
  localStorage.removeItem(storageName(accountId));
}

/** At sign-out: the key is revoked, so none outlives the session that made it in this browser. */
export async function forgetArenaKey(accountId: string): Promise<void> {
  const kept = stored(accountId);
  dropArenaKey(accountId);
  if (kept)
    await callApi('DELETE', `/api/v1/keys/${encodeURIComponent(kept.keyId)}`, { quietUnauthorized: true }).catch(
      () => undefined,
    );
}

/** Runs `call` with the arena key; a refused key is replaced once. */
export async function withArenaKey<T>(accountId: string, call: (key: string) => Promise<T>): Promise<T> {
  try {
    return await call(await arenaKey(accountId));
  } catch (error) {
    if (!(error instanceof ApiFailure) || error.status !== 401) throw error;
    dropArenaKey(accountId);
    return call(await arenaKey(accountId));
  }
}
