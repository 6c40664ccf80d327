import { jest } from '@jest/globals';
import { Coalescer } from '../../../lambdas/store/coalescer.js';

test('items added together share one write; each add resolves after it', async () => {
  const writes: number[][] = [];
  const coalescer = new Coalescer<number>(async (items) => void writes.push(items), 10, 5);
  await Promise.all([1, 2, 3].map((n) => coalescer.add(n)));
  expect(writes).toEqual([[1, 2, 3]]);
});

test('a full batch goes at once; the rest follow', async () => {
  // Fake timers: the delay never passes unless advanced, so a full batch that settles proves it
  // did not wait for it, whatever the machine's load.
  jest.useFakeTimers();
  try {
    const writes: number[][] = [];
    const coalescer = new Coalescer<number>(async (items) => void writes.push(items), 2, 50);
    await Promise.all([coalescer.add(1), coalescer.add(2)]);
    expect(writes).toEqual([[1, 2]]);
    const rest = Promise.all([coalescer.add(3), coalescer.add(4), coalescer.add(5)]);
    await jest.advanceTimersByTimeAsync(50);
    await rest;
    expect(writes).toEqual([[1, 2], [3, 4], [5]]);
  } finally {
    jest.useRealTimers();
  }
});

test('a failed write rejects every add it carried, and only those', async () => {
  let fail = true;
  const coalescer = new Coalescer<number>(
    async () => {
      if (fail) throw new Error('boom');
    },
    10,
    1,
  );
  const results = await Promise.allSettled([coalescer.add(1), coalescer.add(2)]);
  expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
  fail = false;
  await expect(coalescer.add(3)).resolves.toBeUndefined();
});

test('a zero delay batches what arrives in the same turn of the event loop', async () => {
  const writes: number[][] = [];
  const coalescer = new Coalescer<number>(async (items) => void writes.push(items), 100, 0);
  await Promise.all([coalescer.add(1), coalescer.add(2)]);
  await coalescer.add(3);
  expect(writes).toEqual([[1, 2], [3]]);
});
