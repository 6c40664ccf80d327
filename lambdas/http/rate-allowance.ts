import {
  WINDOW_MS,
  alignedWindowEnd,
  lease,
  shardCount,
  shardedWindows,
  shardShares,
  type Lease,
  type ShardedWindowStore,
} from '../store/rate-limit-windows.js';

export interface Admission {
  readonly allowed: boolean;
  /**
   * For X-RateLimit-Remaining: what is left of the window after this request, 0 when refused.
   * A single-item window: the limit minus this request's position in the window's count. A
   * sharded one: what is left of the shard this request was counted in, scaled to the whole
   * limit, `floor((share - position) × limit / share)`. An instance takes its blocks from the
   * shards in turn, so what it takes from each stays within a block (a tenth of a share) of the
   * others: alone, its estimate is within a tenth of the limit of the exact count. Either way a
   * position also counts the blocks other instances hold leased and have not used yet.
   */
  readonly remaining: number;
  readonly resetAtMs: number;
}

/**
 * The largest block one instance leases at once: a tenth of the limit, at most 100; from a
 * sharded window, a tenth of a shard's share (at most 50), so the shards an instance takes its
 * blocks from in turn stay within a tenth of a share of each other (see `remaining`).
 */
export function maxBlock(limit: number): number {
  const shards = shardCount(limit);
  return Math.max(1, Math.min(100, Math.floor(limit / shards / 10)));
}

/** Lease attempts on a sharded window before this request is refused without it being full. */
export const SHARD_LEASE_ROUNDS = 4;

/**
 * How long before a busy sharded window ends its instance leases a block from the next one, so
 * the first request after the rollover does not wait for DynamoDB either. Sharded windows sit
 * on a grid every instance computes, so the next window's items can be written before it starts.
 */
export const ROLLOVER_LEAD_MS = 2_000;

/** Positions leased in one round trip from one window item: `next` to `end`, both inclusive. */
interface Range {
  next: number;
  readonly end: number;
  /** The item's allowance: the limit for a single-item window, the shard's share otherwise. */
  readonly share: number;
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
  readonly shards?: ShardView;
}

/** What an instance knows of a sharded window. */
interface ShardView {
  /**
   * Room per shard as last seen (an upper bound: counts only grow within a window), so a lease
   * goes where there is room and a full window is known without asking.
   */
  readonly rooms: number[];
  /** The shard the next lease tries first: an instance takes its blocks from each in turn. */
  next: number;
}

/** What one lease round trip (or a sharded lease's rounds) brought. */
interface Leased {
  readonly resetAtMs: number;
  readonly range?: Range;
  /** `full`: the window has nothing left; `contended`: other leases kept taking the room first. */
  readonly outcome: 'granted' | 'full' | 'contended';
  readonly shards?: ShardView;
}

export interface RateAllowanceDeps {
  /** The single window item of a limit up to SINGLE_WINDOW_MAX. */
  readonly lease: (bucket: string, limit: number, wanted: number, now: number, windowEnded: boolean) => Promise<Lease>;
  /** The shard items of a larger limit. */
  readonly shards: ShardedWindowStore;
  readonly now: () => number;
  /** In [0, 1): spreads leases over a sharded window's shards. */
  readonly random: () => number;
}

const deploymentDeps: RateAllowanceDeps = { lease, shards: shardedWindows, now: Date.now, random: Math.random };

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
 * and a half blocks unused. A busy sharded key also leases a block of its next window in the
 * last ROLLOVER_LEAD_MS of the current one, so the rollover costs no wait either; a window that
 * starts at its first request (a limit up to SINGLE_WINDOW_MAX) cannot be leased before it
 * opens, so its first request per instance waits for one lease.
 *
 * A limit above SINGLE_WINDOW_MAX is counted in shard items (rate-limit-windows.ts). An
 * instance takes its blocks from the shards in turn, from one drawn at random when the window
 * starts; when a shard has too little room, one consistent read of every shard's count tells
 * where room is left, and the next lease goes to a shard drawn in proportion to its room (so
 * instances that read the same counts do not all pick one). A request is refused as over the
 * limit only once such a read shows every shard full. A lease that lost all its rounds to other
 * instances' writes (SHARD_LEASE_ROUNDS, or `lease`'s own for a single item) refuses its
 * request but leaves the window open to the next.
 */
export class RateAllowances {
  private readonly blocks = new Map<string, Block>();
  /** Blocks leased from a busy sharded bucket's next window, handed out once it starts. */
  private readonly following = new Map<string, Block>();
  private readonly refills = new Map<string, Promise<Leased['outcome']>>();
  private readonly due = new Set<string>();
  private readonly deps: RateAllowanceDeps;

  constructor(deps: Partial<RateAllowanceDeps> = {}) {
    this.deps = { ...deploymentDeps, ...deps };
  }

  async admit(bucket: string, limit: number): Promise<Admission> {
    for (;;) {
      const now = this.deps.now();
      const block = this.current(bucket, limit, now);
      const range = block?.ranges[0];
      if (block && range) {
        const position = range.next++;
        if (range.next > range.end) block.ranges.shift();
        if (this.runningLow(block) || this.nearRollover(bucket, block, now)) this.due.add(bucket);
        const remaining = Math.max(0, Math.floor(((range.share - position) * limit) / range.share));
        return { allowed: true, remaining, resetAtMs: block.resetAtMs };
      }
      if (block?.exhausted) return { allowed: false, remaining: 0, resetAtMs: block.resetAtMs };
      const outcome = await this.refill(bucket, limit, block);
      if (outcome === 'contended') {
        return { allowed: false, remaining: 0, resetAtMs: this.blocks.get(bucket)?.resetAtMs ?? now };
      }
    }
  }

  /** Leases the next block of every busy bucket that ran low; for after the response. */
  async leaseAhead(): Promise<void> {
    const buckets = [...this.due];
    this.due.clear();
    await Promise.all(
      buckets.flatMap((bucket) => {
        const block = this.blocks.get(bucket);
        const now = this.deps.now();
        if (!block || block.resetAtMs <= now) return [];
        const leases: Promise<unknown>[] = [];
        if (this.runningLow(block)) leases.push(this.refill(bucket, block.limit, block).catch(() => undefined));
        if (this.nearRollover(bucket, block, now))
          leases.push(this.leaseFollowing(bucket, block).catch(() => undefined));
        return leases;
      }),
    );
  }

  /**
   * Requests of `bucket`'s current window this instance holds leased and has not handed out:
   * what the window loses if the instance stops now (the bound on under-admission).
   */
  unused(bucket: string): number {
    const block = this.blocks.get(bucket);
    return block && block.resetAtMs > this.deps.now() ? held(block) : 0;
  }

  /** Requests of the window after the current one this instance has already leased. */
  unusedFollowing(bucket: string): number {
    const block = this.following.get(bucket);
    return block && block.resetAtMs > this.deps.now() ? held(block) : 0;
  }

  private current(bucket: string, limit: number, now: number): Block | undefined {
    const block = this.blocks.get(bucket);
    if (block && block.limit === limit && block.resetAtMs > now) return block;
    const next = this.following.get(bucket);
    if (!next) return undefined;
    this.following.delete(bucket);
    // Leased before its window started; good once that window is the one now running.
    if (next.limit !== limit || next.resetAtMs <= now || next.resetAtMs - WINDOW_MS > now) return undefined;
    this.blocks.set(bucket, next);
    return next;
  }

  /** A busy sharded window ends soon and nothing is leased from the next one yet. */
  private nearRollover(bucket: string, block: Block, now: number): boolean {
    return (
      block.shards !== undefined &&
      block.size >= 2 &&
      block.resetAtMs - now <= ROLLOVER_LEAD_MS &&
      this.following.get(bucket)?.resetAtMs !== block.resetAtMs + WINDOW_MS &&
      !this.refills.has(`${bucket}\0next`)
    );
  }

  /** Leases a block of the window after `block`'s, at the busy size, for after the rollover. */
  private leaseFollowing(bucket: string, block: Block): Promise<unknown> {
    const key = `${bucket}\0next`;
    const pending = (async (): Promise<Leased['outcome']> => {
      const leased = await this.leaseSharded(bucket, block.limit, block.size, block.resetAtMs, undefined);
      if (leased.range && this.blocks.get(bucket) === block) {
        this.following.set(bucket, {
          limit: block.limit,
          resetAtMs: leased.resetAtMs,
          ranges: [leased.range],
          size: block.size,
          exhausted: false,
          shards: leased.shards,
        });
        if (this.following.size > 50_000) this.following.delete(this.following.keys().next().value!);
      }
      return leased.outcome;
    })().finally(() => this.refills.delete(key));
    this.refills.set(key, pending);
    return pending;
  }

  /** Half of the last block is left, and more can be had from the window. */
  private runningLow(block: Block): boolean {
    if (block.exhausted || block.size < 2) return false;
    return held(block) <= block.size / 2;
  }

  /** One lease at a time per bucket: callers arriving meanwhile wait for it. */
  private refill(bucket: string, limit: number, spent: Block | undefined): Promise<Leased['outcome']> {
    let pending = this.refills.get(bucket);
    if (!pending) {
      pending = this.leaseInto(bucket, limit, spent).finally(() => this.refills.delete(bucket));
      this.refills.set(bucket, pending);
    }
    return pending;
  }

  private async leaseInto(bucket: string, limit: number, spent: Block | undefined): Promise<Leased['outcome']> {
    const size = spent ? Math.min(spent.size * 2, maxBlock(limit)) : 1;
    const now = this.deps.now();
    const leased =
      shardCount(limit) === 1
        ? await this.leaseSingle(bucket, limit, size, now)
        : await this.leaseSharded(bucket, limit, size, now, spent);
    const { range, outcome } = leased;
    const sameWindow = spent !== undefined && spent.resetAtMs === leased.resetAtMs;
    if (sameWindow && this.blocks.get(bucket) === spent) {
      if (range) spent.ranges.push(range);
      if (range) spent.size = size;
      spent.exhausted = outcome === 'full';
      return outcome;
    }
    this.blocks.set(bucket, {
      limit,
      resetAtMs: leased.resetAtMs,
      ranges: range ? [range] : [],
      size: range && sameWindow ? size : Math.max(1, range ? range.end - range.next + 1 : 0),
      exhausted: outcome === 'full',
      shards: leased.shards,
    });
    if (this.blocks.size > 50_000) this.blocks.delete(this.blocks.keys().next().value!);
    return outcome;
  }

  private async leaseSingle(bucket: string, limit: number, size: number, now: number): Promise<Leased> {
    const previous = this.blocks.get(bucket);
    const windowEnded = previous !== undefined && previous.limit === limit && previous.resetAtMs <= now;
    const granted = await this.deps.lease(bucket, limit, size, now, windowEnded);
    if (granted.granted > 0) {
      const range = { next: granted.count - granted.granted + 1, end: granted.count, share: limit };
      return { resetAtMs: granted.resetAtMs, range, outcome: 'granted' };
    }
    // Nothing granted while the count is below the limit: the lease lost its rounds to others.
    return { resetAtMs: granted.resetAtMs, outcome: granted.count >= limit ? 'full' : 'contended' };
  }

  private async leaseSharded(
    bucket: string,
    limit: number,
    size: number,
    now: number,
    spent: Block | undefined,
  ): Promise<Leased> {
    const resetAtMs = alignedWindowEnd(bucket, now);
    const shares = shardShares(limit);
    // The block's own view when it is this window's, so what is learnt here stays with it.
    const view: ShardView =
      spent?.resetAtMs === resetAtMs && spent.shards
        ? spent.shards
        : { rooms: shares.slice(), next: Math.floor(this.deps.random() * shares.length) };
    const { rooms } = view;
    for (let round = 1; ; round++) {
      // In turn while nothing says otherwise, so one instance's blocks spread evenly; after a
      // read, at random by room, so instances that read the same counts do not all pick one shard.
      const shard = round === 1 ? nextWithRoom(rooms, view.next) : pickByRoom(rooms, this.deps.random());
      if (shard === undefined) return { resetAtMs, outcome: 'full', shards: view };
      const share = shares[shard]!;
      const want = Math.min(size, rooms[shard]!);
      const count = await this.deps.shards.lease(bucket, shard, share, want, resetAtMs);
      if (count !== undefined) {
        rooms[shard] = share - count;
        view.next = (shard + 1) % rooms.length;
        return { resetAtMs, range: { next: count - want + 1, end: count, share }, outcome: 'granted', shards: view };
      }
      rooms[shard] = Math.min(rooms[shard]!, want - 1);
      if (round >= SHARD_LEASE_ROUNDS) return { resetAtMs, outcome: 'contended', shards: view };
      const counts = await this.deps.shards.counts(bucket, shares.length, resetAtMs);
      counts.forEach((count, i) => {
        if (count !== undefined) rooms[i] = Math.min(rooms[i]!, shares[i]! - count);
      });
    }
  }
}

const held = (block: Block) => block.ranges.reduce((sum, range) => sum + range.end - range.next + 1, 0);

/** The first shard from `from` on (wrapping) that may have room. */
function nextWithRoom(rooms: readonly number[], from: number): number | undefined {
  for (let step = 0; step < rooms.length; step++) {
    const shard = (from + step) % rooms.length;
    if (rooms[shard]! > 0) return shard;
  }
  return undefined;
}

/** A shard with room, chosen with probability proportional to its room; undefined when none has any. */
function pickByRoom(rooms: readonly number[], random: number): number | undefined {
  const total = rooms.reduce((sum, room) => sum + Math.max(0, room), 0);
  if (total <= 0) return undefined;
  let point = random * total;
  let last: number | undefined;
  for (let shard = 0; shard < rooms.length; shard++) {
    if (rooms[shard]! <= 0) continue;
    last = shard;
    point -= rooms[shard]!;
    if (point < 0) return shard;
  }
  return last;
}
