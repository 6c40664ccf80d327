import { lease, type Lease } from '../store/rate-limit-windows.js';

export interface Admission {
  readonly allowed: boolean;
  /** This request's position in the window (1-based); the limit when refused. */
  readonly position: number;
  readonly resetAtMs: number;
}

/** The largest block one instance leases at once: a tenth of the limit, at most 100. */
export const maxBlock = (limit: number) => Math.max(1, Math.min(100, Math.floor(limit / 10)));

/** Positions leased in one round trip: `next` to `end`, both inclusive. */
interface Range {
  next: number;
  readonly end: number;
}

interface Block {
  readonly limit: number;
  readonly resetAtMs: number;
  /** Leased positions not yet handed out, oldest first. */
  readonly ranges: Range[];
  /** Size of the next lease: doubles while the bucket stays busy within a window. */
  size: number;
  /** The shared window is used up: once the ranges are spent, refuse locally until it resets. */
  exhausted: boolean;
}

/**
 * Per-instance allowances leased in blocks from the shared DynamoDB window, so a busy key
 * costs one round trip per block instead of one per request. A quiet key leases one request
 * at a time (exact, as without leasing); a busy one doubles its block up to `maxBlock`.
 * Never admits more than the limit across instances; an instance's unused leftover at the
 * window's end is the price (it can only refuse early, never admit extra).
 *
 * A busy key's next block is leased ahead, after the response of the call that used up half
 * of the current one (`leaseAhead`), so within a window a call in steady traffic does not
 * wait for DynamoDB (in AWS each call costs milliseconds). An instance then holds at most one
 * and a half blocks unused.
 */
export class RateAllowances {
  private readonly blocks = new Map<string, Block>();
  private readonly refills = new Map<string, Promise<void>>();
  private readonly due = new Set<string>();

  constructor(
    private readonly leaseBlock: (
      bucket: string,
      limit: number,
      wanted: number,
      now: number,
      windowEnded: boolean,
    ) => Promise<Lease> = lease,
    private readonly now: () => number = Date.now,
  ) {}

  async admit(bucket: string, limit: number): Promise<Admission> {
    for (;;) {
      const now = this.now();
      const block = this.current(bucket, limit, now);
      const range = block?.ranges[0];
      if (block && range) {
        const position = range.next++;
        if (range.next > range.end) block.ranges.shift();
        if (this.runningLow(block)) this.due.add(bucket);
        return { allowed: true, position, resetAtMs: block.resetAtMs };
      }
      if (block?.exhausted) return { allowed: false, position: limit, resetAtMs: block.resetAtMs };
      await this.refill(bucket, limit, block);
    }
  }

  /** Leases the next block of every busy bucket that ran low; for after the response. */
  async leaseAhead(): Promise<void> {
    const buckets = [...this.due];
    this.due.clear();
    await Promise.all(
      buckets.map((bucket) => {
        const block = this.blocks.get(bucket);
        if (!block || !this.runningLow(block) || block.resetAtMs <= this.now()) return undefined;
        return this.refill(bucket, block.limit, block).catch(() => undefined);
      }),
    );
  }

  private current(bucket: string, limit: number, now: number): Block | undefined {
    const block = this.blocks.get(bucket);
    return block && block.limit === limit && block.resetAtMs > now ? block : undefined;
  }

  /** Half of the last block is left, and more can be had from the window. */
  private runningLow(block: Block): boolean {
    if (block.exhausted || block.size < 2) return false;
    const left = block.ranges.reduce((sum, range) => sum + range.end - range.next + 1, 0);
    return left <= block.size / 2;
  }

  /** One lease at a time per bucket: callers arriving meanwhile wait for it. */
  private refill(bucket: string, limit: number, spent: Block | undefined): Promise<void> {
    let pending = this.refills.get(bucket);
    if (!pending) {
      pending = this.leaseInto(bucket, limit, spent).finally(() => this.refills.delete(bucket));
      this.refills.set(bucket, pending);
    }
    return pending;
  }

  private async leaseInto(bucket: string, limit: number, spent: Block | undefined): Promise<void> {
    const size = spent ? Math.min(spent.size * 2, maxBlock(limit)) : 1;
    const now = this.now();
    const previous = this.blocks.get(bucket);
    const windowEnded = previous !== undefined && previous.limit === limit && previous.resetAtMs <= now;
    const granted: Lease = await this.leaseBlock(bucket, limit, size, now, windowEnded);
    const range = { next: granted.count - granted.granted + 1, end: granted.count };
    const sameWindow = spent !== undefined && spent.resetAtMs === granted.resetAtMs;
    if (sameWindow && this.blocks.get(bucket) === spent) {
      if (granted.granted > 0) spent.ranges.push(range);
      spent.size = granted.granted > 0 ? size : spent.size;
      spent.exhausted = granted.granted === 0;
      return;
    }
    this.blocks.set(bucket, {
      limit,
      resetAtMs: granted.resetAtMs,
      ranges: granted.granted > 0 ? [range] : [],
      size: granted.granted > 0 && sameWindow ? size : Math.max(1, granted.granted),
      exhausted: granted.granted === 0,
    });
    if (this.blocks.size > 50_000) this.blocks.delete(this.blocks.keys().next().value!);
  }
}
