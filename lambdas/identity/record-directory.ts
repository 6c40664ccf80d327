import { TtlCache } from '../store/ttl-cache.js';

/**
 * Identity records by id (keys, accounts' budgets), cached briefly so the hot path rarely reads
 * DynamoDB. The TTL bounds how long a change (a disabled or revoked key, a new budget) takes to
 * reach an instance that already cached the record (the requirement is 5 s everywhere). Missing
 * records are cached too, so a flood of made-up ids cannot turn into a flood of reads.
 */
export const RECORD_CACHE_TTL_MS = 2_000;
/**
 * A record older than this is still served, and read again after the response that used it
 * (`refreshDue`), so a record in steady use never waits for DynamoDB: in AWS each read costs
 * milliseconds. The TTL above still bounds staleness: an unrefreshed record expires.
 */
export const RECORD_REFRESH_AFTER_MS = 1_000;

interface Cached<T> {
  readonly record: Promise<T | null>;
  readonly fetchedAt: number;
}

export class RecordDirectory<T> {
  private readonly cache: TtlCache<Cached<T>>;
  private readonly due = new Set<string>();

  constructor(
    private readonly load: (id: string) => Promise<T | null>,
    private readonly now: () => number = Date.now,
    ttlMs: number = RECORD_CACHE_TTL_MS,
    private readonly refreshAfterMs: number = RECORD_REFRESH_AFTER_MS,
  ) {
    this.cache = new TtlCache<Cached<T>>(ttlMs, 10_000, now);
  }

  find(id: string): Promise<T | null> {
    const cached = this.cache.get(id);
    if (!cached) return this.fetch(id).record;
    if (this.now() - cached.fetchedAt >= this.refreshAfterMs) this.due.add(id);
    return cached.record;
  }

  /** Reads again the records found stale since the last call; a failed read keeps the old one. */
  async refreshDue(): Promise<void> {
    const ids = [...this.due];
    this.due.clear();
    await Promise.all(
      ids.map(async (id) => {
        const stale = this.cache.get(id);
        if (!stale) return; // expired or forgotten meanwhile: the next find reads it afresh
        const fetchedAt = this.now();
        const record = await this.load(id).catch(() => undefined);
        // Forgotten (changed on this instance) while the read was out: that read may predate the change.
        if (record !== undefined && this.cache.get(id) === stale)
          this.cache.set(id, { record: Promise.resolve(record), fetchedAt });
      }),
    );
  }

  forget(id: string): void {
    this.cache.delete(id);
    this.due.delete(id);
  }

  private fetch(id: string): Cached<T> {
    const cached = { record: this.load(id), fetchedAt: this.now() };
    cached.record.catch(() => this.cache.delete(id));
    this.cache.set(id, cached);
    return cached;
  }
}
