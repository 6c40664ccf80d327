import fc from 'fast-check';
import { seededRandom } from '../../../lambdas/arena/seeded-random.js';
import { maxBlock, RateAllowances, type Admission } from '../../../lambdas/http/rate-allowance.js';
import {
  alignedWindowEnd,
  shardCount,
  shardShares,
  SHARD_SHARE_MAX,
  SINGLE_WINDOW_MAX,
  WINDOW_MS,
} from '../../../lambdas/store/rate-limit-windows.js';
import { DynamoDbCallCounter, type ItemTouch } from '../../support/dynamodb-call-counter.js';
import { useLocalDynamoDb } from '../../support/local-dynamodb.js';
import { VirtualTime } from '../../support/virtual-time.js';

/**
 * Per-key rate limits as many gateway instances share them, each instance a RateAllowances of
 * its own, against the embedded DynamoDB (through a proxy that counts writes and reads per
 * partition key, as DynamoDB meters them), on a virtual clock: DynamoDB calls take no time on
 * it, so what is counted per simulated second depends on the code, not on the machine.
 */

useLocalDynamoDb('hotkeys');

let counter: DynamoDbCallCounter;
let onTouch: (touch: ItemTouch) => void = () => undefined;

beforeAll(async () => {
  counter = await DynamoDbCallCounter.start(process.env['AWS_ENDPOINT_URL_DYNAMODB']!, (touch) => onTouch(touch));
  // Before the store's client is first made: every call of this file goes through the counter.
  process.env['AWS_ENDPOINT_URL_DYNAMODB'] = counter.endpoint;
});
afterAll(() => counter.close());

/**
 * Per partition key and simulated second, at most: writes (conditional ones included, applied or
 * not), under a third of DynamoDB's 1,000 WCU/s; strongly consistent reads of small items, half
 * of its 3,000 RCU/s.
 */
const WRITES_PER_PARTITION_SECOND_TARGET = 300;
const READS_PER_PARTITION_SECOND_TARGET = 1_500;

let buckets = 0;
const freshBucket = () => `key:hot${++buckets}`;

function instances(count: number, clock: () => number, seed: string): RateAllowances[] {
  return Array.from(
    { length: count },
    (_, i) => new RateAllowances({ now: clock, random: seededRandom(`${seed}:${i}`) }),
  );
}

/** Counts per partition key of `bucket`'s window items, by kind and simulated second. */
function meter(bucket: string, clock: () => number, origin: number) {
  const perSecond = new Map<string, number>();
  const totals = { writes: 0, reads: 0 };
  onTouch = (touch) => {
    if (!touch.pk.startsWith(`RATE#${bucket}`)) return;
    totals[touch.kind === 'write' ? 'writes' : 'reads']++;
    const key = `${touch.kind} ${touch.pk} ${Math.floor((clock() - origin) / 1000)}`;
    perSecond.set(key, (perSecond.get(key) ?? 0) + 1);
  };
  const busiest = (kind: ItemTouch['kind']) =>
    Math.max(0, ...[...perSecond].filter(([key]) => key.startsWith(kind)).map(([, n]) => n));
  const partitions = () => new Set([...perSecond.keys()].map((key) => key.split(' ')[1])).size;
  return { totals, busiest, partitions };
}

interface Traffic {
  readonly fleet: RateAllowances[];
  readonly bucket: string;
  readonly limit: number;
  readonly time: VirtualTime;
  readonly requestsPerSecond: number;
  readonly seconds: number;
}

/**
 * Clients sending `requestsPerSecond` in all for `seconds` from the clock's now, each request to
 * an instance drawn at random, each instance leasing ahead after its response (as the
 * middleware does). Returns the admissions in order.
 */
async function drive({ fleet, bucket, limit, time, requestsPerSecond, seconds }: Traffic): Promise<Admission[]> {
  const clients = 100;
  const intervalMs = (1000 * clients) / requestsPerSecond;
  const end = time.now + seconds * 1000;
  const pick = seededRandom(`${bucket}:${time.now}:clients`);
  const admissions: Admission[] = [];
  await time.run(
    Array.from({ length: clients }, (_, client) => async () => {
      await time.sleep((client * intervalMs) / clients);
      while (time.now < end) {
        const instance = fleet[Math.floor(pick() * fleet.length)]!;
        admissions.push(await instance.admit(bucket, limit));
        await instance.leaseAhead();
        await time.sleep(intervalMs);
      }
    }),
  );
  return admissions;
}

const windowStart = (bucket: string, after: number) => alignedWindowEnd(bucket, after) - WINDOW_MS;

describe('the shard plan', () => {
  test('one item up to 1,000 a minute, then shards of at most 500 whose shares sum to the limit', () => {
    expect([1, 5, 600, 1_000].map(shardCount)).toEqual([1, 1, 1, 1]);
    expect([1_001, 1_500, 1_501, 10_000].map(shardCount)).toEqual([3, 3, 4, 20]);
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 10_000 }), (limit) => {
        const shares = shardShares(limit);
        expect(shares.reduce((a, b) => a + b, 0)).toBe(limit);
        expect(Math.max(...shares) - Math.min(...shares)).toBeLessThanOrEqual(1);
        if (limit > SINGLE_WINDOW_MAX) expect(Math.max(...shares)).toBeLessThanOrEqual(SHARD_SHARE_MAX);
      }),
    );
  });

  test('a sharded window is one minute on a grid offset per bucket, the same for every instance', () => {
    fc.assert(
      fc.property(fc.string(), fc.integer({ min: 0, max: 2 ** 45 }), (bucket, now) => {
        const end = alignedWindowEnd(bucket, now);
        expect(end - now).toBeGreaterThan(0);
        expect(end - now).toBeLessThanOrEqual(WINDOW_MS);
        expect(alignedWindowEnd(bucket, end - WINDOW_MS)).toBe(end);
        expect(alignedWindowEnd(bucket, end)).toBe(end + WINDOW_MS);
      }),
    );
    const phases = new Set(['key:a', 'key:b', 'key:c', 'key:d'].map((b) => alignedWindowEnd(b, 0)));
    expect(phases.size).toBe(4);
  });
});

describe('a key allowed 10,000 a minute, drained at full speed (10,000 requests a second)', () => {
  test.each([
    [100, 2, 0.12],
    [1_000, 1, 0.5],
  ])(
    'from %i instances, over %i window(s): the limit per window, at most 300 writes a second to any partition, at most %f writes per admitted request',
    async (count, windows, writesPerRequest) => {
      const bucket = freshBucket();
      const limit = 10_000;
      const start = windowStart(bucket, 1_800_000_000_000);
      const time = new VirtualTime(start);
      const fleet = instances(count, () => time.now, bucket);
      const meters = meter(bucket, () => time.now, start);
      const unused = () => fleet.reduce((sum, instance) => sum + instance.unused(bucket), 0);
      for (let window = 0; window < windows; window++) {
        // Each window starts afresh, for every instance, whatever each one held in the last.
        time.now = start + window * WINDOW_MS;
        const answers = await drive({ fleet, bucket, limit, time, requestsPerSecond: 10_000, seconds: 1.5 });
        const resetAtMs = start + (window + 1) * WINDOW_MS;
        expect(new Set(answers.map((a) => a.resetAtMs))).toEqual(new Set([resetAtMs]));
        // Exact: what was admitted and what instances still hold leased make up the limit.
        expect(answers.filter((a) => a.allowed).length + unused()).toBe(limit);
        expect(unused()).toBeLessThanOrEqual(count * 1.5 * maxBlock(limit));
        const refused = answers.filter((a) => !a.allowed);
        expect(refused.length).toBeGreaterThan(0);
        expect(refused.every((a) => a.remaining === 0)).toBe(true);
      }
      expect(meters.partitions()).toBe(shardCount(limit));
      expect(meters.busiest('write')).toBeLessThanOrEqual(WRITES_PER_PARTITION_SECOND_TARGET);
      expect(meters.busiest('read')).toBeLessThanOrEqual(READS_PER_PARTITION_SECOND_TARGET);
      expect(meters.totals.writes / (windows * limit)).toBeLessThanOrEqual(writesPerRequest);
    },
    120_000,
  );

  test('instances that stop holding leased blocks cost the window at most what they hold unused', async () => {
    const bucket = freshBucket();
    const limit = 10_000;
    const start = windowStart(bucket, 1_800_000_000_000);
    const time = new VirtualTime(start);
    const fleet = instances(100, () => time.now, bucket);
    const traffic = { bucket, limit, time, requestsPerSecond: 10_000 };
    const early = await drive({ ...traffic, fleet, seconds: 0.4 });
    const dead = fleet.slice(0, 50);
    const lost = dead.reduce((sum, instance) => sum + instance.unused(bucket), 0);
    expect(lost).toBeGreaterThan(0);
    expect(lost).toBeLessThanOrEqual(dead.length * 1.5 * maxBlock(limit));
    const survivors = fleet.slice(50);
    const late = await drive({ ...traffic, fleet: survivors, seconds: 1.5 });
    const admitted = [...early, ...late].filter((a) => a.allowed).length;
    const held = survivors.reduce((sum, instance) => sum + instance.unused(bucket), 0);
    expect(late.some((a) => !a.allowed)).toBe(true);
    expect(admitted + held).toBe(limit - lost);
  }, 60_000);
});

describe('small limits stay exact', () => {
  test('5 of 20 concurrent requests at limit 5, whether on 20 instances or on one', async () => {
    const time = { now: 1_800_000_000_000 };
    for (const spread of [20, 1]) {
      const bucket = freshBucket();
      const fleet = instances(spread, () => time.now, bucket);
      const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => fleet[i % spread]!.admit(bucket, 5)));
      expect(answers.filter((a) => a.allowed)).toHaveLength(5);
      expect(
        answers
          .filter((a) => a.allowed)
          .map((a) => a.remaining)
          .sort(),
      ).toEqual([0, 1, 2, 3, 4]);
    }
  });

  test('5 of 20 concurrent requests at limit 5, however they fall on up to 8 instances', async () => {
    const time = { now: 1_800_000_000_000 };
    await fc.assert(
      fc.asyncProperty(fc.array(fc.nat({ max: 7 }), { minLength: 20, maxLength: 20 }), async (placement) => {
        const bucket = freshBucket();
        const fleet = instances(8, () => time.now, bucket);
        const answers = await Promise.all(placement.map((instance) => fleet[instance]!.admit(bucket, 5)));
        expect(answers.filter((a) => a.allowed)).toHaveLength(5);
      }),
      { numRuns: 30 },
    );
  }, 60_000);
});

/**
 * Property: however requests interleave over instances (concurrent bursts, leases ahead or not,
 * clock steps within and across windows), no window admits more than the limit; and once the
 * traffic has drained a window, it has admitted exactly the limit: nothing leased was lost or
 * counted twice.
 */
describe('interleavings', () => {
  const step = fc.record({
    instance: fc.nat({ max: 5 }),
    requests: fc.integer({ min: 1, max: 8 }),
    leaseAhead: fc.boolean(),
  });
  const batch = fc.record({
    steps: fc.array(step, { minLength: 1, maxLength: 4 }),
    advanceMs: fc.oneof(
      { arbitrary: fc.constant(0), weight: 3 },
      { arbitrary: fc.integer({ min: 1, max: 5_000 }), weight: 2 },
      { arbitrary: fc.constant(WINDOW_MS), weight: 1 },
    ),
  });

  test.each([
    ['single-item', fc.constantFrom(1, 2, 3, 5, 20, 150)],
    ['sharded', fc.constantFrom(1_001, 1_600)],
  ])(
    '%s windows: never over the limit, exactly the limit once drained',
    async (_kind, limits) => {
      let clock = 1_800_000_000_000;
      await fc.assert(
        fc.asyncProperty(limits, fc.array(batch, { minLength: 1, maxLength: 8 }), async (limit, batches) => {
          const bucket = freshBucket();
          const fleet = instances(6, () => clock, bucket);
          const admittedPerWindow = new Map<number, number>();
          const count = (answers: Admission[]) => {
            for (const a of answers.filter((answer) => answer.allowed)) {
              admittedPerWindow.set(a.resetAtMs, (admittedPerWindow.get(a.resetAtMs) ?? 0) + 1);
            }
          };
          for (const { steps, advanceMs } of batches) {
            const answers = await Promise.all(
              steps.map(async ({ instance, requests, leaseAhead }) => {
                const own = fleet[instance]!;
                const got = await Promise.all(Array.from({ length: requests }, () => own.admit(bucket, limit)));
                if (leaseAhead) await own.leaseAhead();
                return got;
              }),
            );
            count(answers.flat());
            clock += advanceMs;
          }
          // Drain the window that is open now: every instance, many requests each, until a round
          // in which every request is refused (with no lease ahead, a round that admits nothing
          // has taken nothing from the window, so nothing can be left to take).
          for (;;) {
            const round = (
              await Promise.all(
                fleet.map((own) => Promise.all(Array.from({ length: 8 }, () => own.admit(bucket, limit)))),
              )
            ).flat();
            count(round);
            if (round.every((a) => !a.allowed)) break;
          }
          for (const admitted of admittedPerWindow.values()) expect(admitted).toBeLessThanOrEqual(limit);
          const last = Math.max(...admittedPerWindow.keys());
          expect(admittedPerWindow.get(last)).toBe(limit);
          clock += 2 * WINDOW_MS;
        }),
        { numRuns: 25 },
      );
    },
    240_000,
  );
});

describe('X-RateLimit-Remaining on a sharded window', () => {
  test('counts down with the requests admitted, and is 0 once the window is used up', async () => {
    const bucket = freshBucket();
    const limit = 2_000;
    const time = { now: windowStart(bucket, 1_800_000_000_000) };
    const [instance] = instances(1, () => time.now, bucket);
    const answers: Admission[] = [];
    for (let i = 0; i < limit + 3; i++) {
      answers.push(await instance!.admit(bucket, limit));
      await instance!.leaseAhead();
    }
    expect(answers.map((a) => a.allowed)).toEqual([...Array<boolean>(limit).fill(true), false, false, false]);
    const remaining = answers.map((a) => a.remaining);
    // Each answer's estimate, against the exact count left after it: one instance takes its
    // blocks from the shards in turn, so they differ by at most a block each.
    const errors = remaining.slice(0, limit).map((r, i) => Math.abs(r - (limit - i - 1)));
    expect(Math.max(...errors)).toBeLessThanOrEqual(shardCount(limit) * maxBlock(limit));
    expect(remaining.at(limit - 1)).toBeLessThanOrEqual(shardCount(limit) * maxBlock(limit));
    expect(remaining.slice(limit)).toEqual([0, 0, 0]);
  }, 60_000);
});
