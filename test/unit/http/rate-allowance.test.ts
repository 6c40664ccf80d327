import { maxBlock, RateAllowances } from '../../../lambdas/http/rate-allowance.js';
import {
  alignedWindowEnd,
  WINDOW_MS,
  type Lease,
  type ShardedWindowStore,
} from '../../../lambdas/store/rate-limit-windows.js';

/** One shared window, as the DynamoDB store keeps it, for several instances to lease from. */
function sharedWindow(clock: { now: number }) {
  const state = { count: 0, resetAtMs: 0, leases: 0 };
  const lease = async (_bucket: string, limit: number, wanted: number, now: number): Promise<Lease> => {
    state.leases++;
    if (state.resetAtMs <= now) Object.assign(state, { count: 0, resetAtMs: now + 60_000 });
    const granted = Math.max(0, Math.min(wanted, limit - state.count));
    state.count += granted;
    return { granted, count: state.count, resetAtMs: state.resetAtMs };
  };
  return { state, lease, now: () => clock.now };
}

/** Shard items as the DynamoDB store keeps them (`<shard>@<window end>` → count); `unread` shards' counts come back unread. */
function memoryShards(unread: ReadonlySet<number> = new Set()) {
  const stored = new Map<string, number>();
  const calls = { lease: 0, counts: 0 };
  const shards: ShardedWindowStore = {
    lease: async (_bucket, shard, share, wanted, resetAtMs) => {
      calls.lease++;
      const count = (stored.get(`${shard}@${resetAtMs}`) ?? 0) + wanted;
      if (count > share) return undefined;
      stored.set(`${shard}@${resetAtMs}`, count);
      return count;
    },
    counts: async (_bucket, count, resetAtMs) => {
      calls.counts++;
      return Array.from({ length: count }, (_, shard) =>
        unread.has(shard) ? undefined : (stored.get(`${shard}@${resetAtMs}`) ?? 0),
      );
    },
  };
  return { stored, calls, shards };
}

test('a quiet key leases one request at a time; a busy one doubles its block up to a tenth of the limit', async () => {
  const clock = { now: 1_000 };
  const window = sharedWindow(clock);
  const instance = new RateAllowances({ lease: window.lease, now: window.now });
  const remaining: number[] = [];
  for (let i = 0; i < 40; i++) remaining.push((await instance.admit('k', 1000)).remaining);
  expect(remaining).toEqual(Array.from({ length: 40 }, (_, i) => 1000 - i - 1));
  // Blocks of 1, 2, 4, 8, 16, 32 (the cap, maxBlock(1000), is 100): 6 leases for 40 requests.
  expect(window.state.leases).toBe(6);
  expect(maxBlock(1000)).toBe(100);
  expect(maxBlock(5)).toBe(1);
});

test('instances sharing one window never admit more than the limit in total', async () => {
  const clock = { now: 1_000 };
  const window = sharedWindow(clock);
  const instances = [
    new RateAllowances({ lease: window.lease, now: window.now }),
    new RateAllowances({ lease: window.lease, now: window.now }),
  ];
  const results = await Promise.all(Array.from({ length: 300 }, (_, i) => instances[i % 2]!.admit('k', 100)));
  const admitted = results.filter((r) => r.allowed).length;
  expect(admitted).toBeLessThanOrEqual(100);
  expect(admitted).toBeGreaterThanOrEqual(100 - 2 * maxBlock(100));
  expect(window.state.count).toBeLessThanOrEqual(100);
});

test('a used-up window is refused locally until it resets, then opens again', async () => {
  const clock = { now: 1_000 };
  const window = sharedWindow(clock);
  const instance = new RateAllowances({ lease: window.lease, now: window.now });
  for (let i = 0; i < 3; i++) expect((await instance.admit('k', 3)).allowed).toBe(true);
  const refused = await instance.admit('k', 3);
  expect(refused).toMatchObject({ allowed: false, remaining: 0 });
  const leases = window.state.leases;
  expect((await instance.admit('k', 3)).allowed).toBe(false);
  expect(window.state.leases).toBe(leases);
  clock.now += 60_001;
  expect(await instance.admit('k', 3)).toMatchObject({ allowed: true, remaining: 2 });
});

test('a changed limit drops the local block', async () => {
  const clock = { now: 1_000 };
  const window = sharedWindow(clock);
  const instance = new RateAllowances({ lease: window.lease, now: window.now });
  for (let i = 0; i < 5; i++) await instance.admit('k', 100);
  expect((await instance.admit('k', 5)).allowed).toBe(false);
});

test('a busy key leases its next block ahead, so steady calls never wait for a lease', async () => {
  const clock = { now: 1_000 };
  const window = sharedWindow(clock);
  const instance = new RateAllowances({ lease: window.lease, now: window.now });
  const waited: number[] = [];
  const remaining: number[] = [];
  for (let i = 0; i < 300; i++) {
    const leasesBefore = window.state.leases;
    remaining.push((await instance.admit('k', 1_000)).remaining);
    if (window.state.leases > leasesBefore) waited.push(i);
    await instance.leaseAhead(); // what the rate-limit middleware does after each response
  }
  // A quiet key leases exactly: the first call leases 1 and the second 2. From then on the key is
  // busy, and every block is leased ahead, after a response.
  expect(waited).toEqual([0, 1]);
  // Positions stay unique and in order within the window: no request is counted twice.
  expect(remaining).toEqual(Array.from({ length: 300 }, (_, i) => 1_000 - i - 1));
  // What is held unused is at most half a block plus the next block.
  expect(window.state.count).toBeLessThanOrEqual(300 + 1.5 * maxBlock(1_000));
});

test('leasing ahead never admits past the limit, and a used-up window still refuses', async () => {
  const clock = { now: 1_000 };
  const window = sharedWindow(clock);
  const instance = new RateAllowances({ lease: window.lease, now: window.now });
  const results = [];
  for (let i = 0; i < 150; i++) {
    results.push(await instance.admit('k', 100));
    await instance.leaseAhead();
  }
  expect(results.filter((r) => r.allowed)).toHaveLength(100);
  expect(results.slice(100).every((r) => !r.allowed && r.remaining === 0)).toBe(true);
  expect(window.state.count).toBe(100);
});

test('after its window ends, the next lease is told so (it opens a new window first)', async () => {
  const clock = { now: 1_000 };
  const window = sharedWindow(clock);
  const hints: boolean[] = [];
  const instance = new RateAllowances({
    lease: (bucket, limit, wanted, now, windowEnded) => (
      hints.push(windowEnded),
      window.lease(bucket, limit, wanted, now)
    ),
    now: window.now,
  });
  await instance.admit('k', 10);
  await instance.admit('k', 10);
  clock.now += 60_001;
  await instance.admit('k', 10);
  expect(hints).toEqual([false, false, true]);
});

test('a lease that lost its rounds to other instances refuses that request only, not the rest of the window', async () => {
  const clock = { now: 1_000 };
  const window = sharedWindow(clock);
  let contended = true;
  const instance = new RateAllowances({
    // What `lease` answers after its rounds all lost to other writers: nothing granted, room left.
    lease: async (bucket, limit, wanted, now) =>
      contended
        ? ((contended = false), { granted: 0, count: 2, resetAtMs: now + 60_000 })
        : window.lease(bucket, limit, wanted, now),
    now: window.now,
  });
  expect(await instance.admit('k', 5)).toMatchObject({ allowed: false, remaining: 0 });
  expect(await instance.admit('k', 5)).toMatchObject({ allowed: true, remaining: 4 });
});

test('shards a count read leaves unread (DynamoDB throttling a batch) are neither taken for full nor overfilled', async () => {
  const clock = { now: 1_000 };
  const { stored, shards } = memoryShards(new Set([0, 1]));
  let seed = 1;
  const random = () => ((seed = (seed * 16807) % 2147483647) - 1) / 2147483646;
  const instances = [0, 1].map(() => new RateAllowances({ shards, now: () => clock.now, random }));
  let admitted = 0;
  for (let i = 0; i < 3_000; i++) {
    const instance = instances[i % 2]!;
    if ((await instance.admit('k', 1_500)).allowed) admitted++;
    await instance.leaseAhead();
  }
  expect(admitted).toBe(1_500);
  expect([...stored.values()].reduce((a, b) => a + b, 0)).toBe(1_500);
});

test('a busy sharded key leases from the next window before this one ends, so the rollover does not wait either', async () => {
  const { stored, calls, shards } = memoryShards();
  const bucket = 'key:rollover';
  const limit = 10_000;
  const firstEnd = alignedWindowEnd(bucket, 1_800_000_000_000);
  const clock = { now: firstEnd - 10_000 };
  const instance = new RateAllowances({ shards, now: () => clock.now, random: () => 0.5 });
  const waited: number[] = [];
  const resets = new Set<number>();
  // 20 requests a second for 20 s: across the end of the first window and 10 s into the next.
  for (let i = 0; i < 400; i++) {
    const before = calls.lease + calls.counts;
    const admission = await instance.admit(bucket, limit);
    expect(admission.allowed).toBe(true);
    resets.add(admission.resetAtMs);
    if (calls.lease + calls.counts > before) waited.push(i);
    await instance.leaseAhead();
    clock.now += 50;
  }
  expect([...resets]).toEqual([firstEnd, firstEnd + WINDOW_MS]);
  // Only the quiet start leases in the request path (blocks of 1, then 2).
  expect(waited).toEqual([0, 1]);
  // Each window's items hold what its requests took plus at most the blocks held unused.
  const inWindow = (end: number) =>
    [...stored].filter(([key]) => key.endsWith(`@${end}`)).reduce((sum, [, n]) => sum + n, 0);
  expect(inWindow(firstEnd)).toBeGreaterThanOrEqual(200);
  expect(inWindow(firstEnd)).toBeLessThanOrEqual(200 + 1.5 * maxBlock(limit));
  expect(inWindow(firstEnd + WINDOW_MS)).toBe(200 + instance.unused(bucket));
});

test('a block leased for the next window is not used in this one, and a quiet sharded key does not lease ahead', async () => {
  const { shards } = memoryShards();
  const bucket = 'key:quiet';
  const end = alignedWindowEnd(bucket, 1_800_000_000_000);
  const clock = { now: end - 1_000 };
  const instance = new RateAllowances({ shards, now: () => clock.now, random: () => 0 });
  expect((await instance.admit(bucket, 2_000)).resetAtMs).toBe(end);
  await instance.leaseAhead();
  expect(instance.unusedFollowing(bucket)).toBe(0);
  // Busy now (a block of 2): the next call leases ahead into the next window.
  await instance.admit(bucket, 2_000);
  await instance.leaseAhead();
  expect(instance.unusedFollowing(bucket)).toBeGreaterThan(0);
  const admissions = [];
  for (let i = 0; i < 3; i++) admissions.push(await instance.admit(bucket, 2_000));
  expect(admissions.every((a) => a.resetAtMs === end)).toBe(true);
  clock.now = end;
  expect((await instance.admit(bucket, 2_000)).resetAtMs).toBe(end + WINDOW_MS);
});
