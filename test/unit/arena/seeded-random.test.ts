import fc from 'fast-check';
import { randomIndex, seededRandom, shuffled } from '../../../lambdas/arena/seeded-random.js';

const draws = (random: () => number, count: number): number[] => Array.from({ length: count }, random);

describe('seededRandom', () => {
  test('the same seed replays the same sequence; another seed gives another', () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), (a, b) => {
        expect(draws(seededRandom(a), 20)).toEqual(draws(seededRandom(a), 20));
        if (a !== b) expect(draws(seededRandom(a), 20)).not.toEqual(draws(seededRandom(b), 20));
      }),
    );
  });

  test('draws lie in [0, 1) and spread over it', () => {
    const values = draws(seededRandom('spread'), 10_000);
    for (const v of values) {
      expect(v).toBeGreaterThanOrEqual(0);
      expect(v).toBeLessThan(1);
    }
    const buckets = new Array<number>(10).fill(0);
    for (const v of values) buckets[Math.floor(v * 10)]!++;
    for (const count of buckets) expect(Math.abs(count - 1000)).toBeLessThan(150);
  });

  test('randomIndex stays in range even for a generator that returns 1', () => {
    expect(randomIndex(3, () => 1)).toBe(2);
    expect(randomIndex(3, () => 0)).toBe(0);
  });
});

describe('shuffled', () => {
  test('a permutation of the input, which is left untouched', () => {
    fc.assert(
      fc.property(fc.array(fc.integer()), fc.string(), (items, seed) => {
        const copy = [...items];
        const out = shuffled(items, seededRandom(seed));
        expect(items).toEqual(copy);
        expect([...out].sort((a, b) => a - b)).toEqual([...items].sort((a, b) => a - b));
      }),
    );
  });

  test('every order of three items comes up about equally often', () => {
    const counts = new Map<string, number>();
    for (let i = 0; i < 6000; i++) {
      const order = shuffled(['a', 'b', 'c'], seededRandom(`uniform:${i}`)).join('');
      counts.set(order, (counts.get(order) ?? 0) + 1);
    }
    expect(counts.size).toBe(6);
    for (const count of counts.values()) expect(Math.abs(count - 1000)).toBeLessThan(150);
  });
});
