import { lease, type Lease } from '../store/rate-limit-windows.js';

export interface Admission {
  readonly allowed: boolean;
  /** This request's position in the window (1-based); the limit when refused. */
  readonly position: number;
  readonly resetAtMs: number;
}

/** The largest block one instance leases at once: a tenth of the limit, at most 100. */
export const maxBlock = (limit: number) => Math.max(1, Math.min(100, Math.floor(limit / 10)));

interface Block {
  readonly limit: number;
  readonly resetAtMs: number;
  /** Next position to hand out, and the last one leased. */
  next: number;
  end: number;
  /** Size of the next lease: doubles while the bucket stays busy within a window. */
  size: number;
  /** The shared window is used up: refuse locally until it resets. */
  exhausted: boolean;
}

/**
 * Per-instance allowances leased in blocks from the shared DynamoDB window, so a busy key
 * costs one round trip per block instead of one per request. A quiet key leases one request
 * at a time (exact, as without leasing); a busy one doubles its block up to `maxBlock`.
 * Never admits more than the limit across instances; an instance's unused leftover at the
 * window's end is the price (it can only refuse early, never admit extra).
 */
export class RateAllowances {
  private readonly blocks = new Map<string, Block>();
  private readonly refills = new Map<string, Promise<void>>();

  constructor(
    private readonly leaseBlock: (bucket: string, limit: number, wanted: number, now: number) => Promise<Lease> = lease,
    private readonly now: () => number = Date.now,
  ) {}

  async admit(bucket: string, limit: number): Promise<Admission> {
    for (;;) {
      const now = this.now();
      const block = this.blocks.get(bucket);
      const current = block && block.limit === limit && block.resetAtMs > now ? block : undefined;
      if (current?.exhausted) return { allowed: false, position: limit, resetAtMs: current.resetAtMs };
      if (current && current.next <= current.end)
        return { allowed: true, position: current.next++, resetAtMs: current.resetAtMs };
      const pending = this.refills.get(bucket);
      if (pending) {
        await pending;
        continue;
      }
      const refill = this.refill(bucket, limit, current).finally(() => this.refills.delete(bucket));
      this.refills.set(bucket, refill);
      await refill;
    }
  }

  private async refill(bucket: string, limit: number, spent: Block | undefined): Promise<void> {
    const size = spent ? Math.min(spent.size * 2, maxBlock(limit)) : 1;
    const granted: Lease = await this.leaseBlock(bucket, limit, size, this.now());
    this.blocks.set(bucket, {
      limit,
      resetAtMs: granted.resetAtMs,
      next: granted.count - granted.granted + 1,
      end: granted.count,
      size: granted.granted > 0 && spent?.resetAtMs === granted.resetAtMs ? size : Math.max(1, granted.granted),
      exhausted: granted.granted === 0,
    });
    if (this.blocks.size > 50_000) this.blocks.delete(this.blocks.keys().next().value!);
  }
}
