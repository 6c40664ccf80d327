import { getApiKey, type ApiKeyRecord } from '../store/api-keys.js';
import { TtlCache } from '../store/ttl-cache.js';

/**
 * Key records by key id, cached briefly so the hot path rarely reads DynamoDB. The TTL bounds
 * how long a disabled or revoked key keeps working on an instance that already cached it
 * (the requirement is 5 s everywhere). Missing keys are cached too, so a flood of made-up
 * key ids cannot turn into a flood of reads.
 */
export const KEY_CACHE_TTL_MS = 2_000;
/**
 * A record older than this is still served, and read again after the response that used it
 * (`refreshDueKeys`), so a key in steady use never waits for DynamoDB: in AWS each read costs
 * milliseconds. The TTL above still bounds staleness: an unrefreshed record expires.
 */
export const KEY_REFRESH_AFTER_MS = 1_000;

interface Cached {
  readonly record: Promise<ApiKeyRecord | null>;
  readonly fetchedAt: number;
}

export class KeyDirectory {
  private readonly cache: TtlCache<Cached>;
  private readonly due = new Set<string>();

  constructor(
    private readonly load: (keyId: string) => Promise<ApiKeyRecord | null> = async (keyId) =>
      (await getApiKey(keyId)) ?? null,
    private readonly now: () => number = Date.now,
  ) {
    this.cache = new TtlCache<Cached>(KEY_CACHE_TTL_MS, 10_000, now);
  }

  find(keyId: string): Promise<ApiKeyRecord | null> {
    const cached = this.cache.get(keyId);
    if (!cached) return this.fetch(keyId).record;
    if (this.now() - cached.fetchedAt >= KEY_REFRESH_AFTER_MS) this.due.add(keyId);
    return cached.record;
  }

  /** Reads again the records found stale since the last call; a failed read keeps the old one. */
  async refreshDue(): Promise<void> {
    const keyIds = [...this.due];
    this.due.clear();
    await Promise.all(
      keyIds.map(async (keyId) => {
        const stale = this.cache.get(keyId);
        if (!stale) return; // expired or forgotten meanwhile: the next find reads it afresh
        const fetchedAt = this.now();
        const record = await this.load(keyId).catch(() => undefined);
        // Forgotten (changed on this instance) while the read was out: that read may predate the change.
        if (record !== undefined && this.cache.get(keyId) === stale)
          this.cache.set(keyId, { record: Promise.resolve(record), fetchedAt });
      }),
    );
  }

  forget(keyId: string): void {
    this.cache.delete(keyId);
    this.due.delete(keyId);
  }

  private fetch(keyId: string): Cached {
    const cached = { record: this.load(keyId), fetchedAt: this.now() };
    cached.record.catch(() => this.cache.delete(keyId));
    this.cache.set(keyId, cached);
    return cached;
  }
}

const directory = new KeyDirectory();

export const findApiKey = (keyId: string) => directory.find(keyId);

/** Work for after the response: see KEY_REFRESH_AFTER_MS. */
export const refreshDueKeys = () => directory.refreshDue();

/** The instance that changed a key drops its own copy at once. */
export const forgetApiKey = (keyId: string) => directory.forget(keyId);
