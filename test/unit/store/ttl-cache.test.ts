import { TtlCache } from '../../../lambdas/store/ttl-cache.js';

/** A cache on a hand-driven clock. */
function cacheWith(ttlMs: number, maxEntries: number) {
  let now = 1_000_000;
  const cache = new TtlCache<string>(ttlMs, maxEntries, () => now);
  return { cache, advance: (ms: number) => (now += ms) };
}

describe('TtlCache expiry', () => {
  test('an entry lives until just before its ttl and is gone at it', () => {
    const { cache, advance } = cacheWith(1000, 10);
    cache.set('k', 'v');
    advance(999);
    expect(cache.get('k')).toBe('v');
    expect(cache.has('k')).toBe(true);
    advance(1);
    expect(cache.get('k')).toBeUndefined();
    expect(cache.has('k')).toBe(false);
  });

  test('an expired entry stays gone even if the clock went backwards', () => {
    let now = 5000;
    const cache = new TtlCache<string>(100, 10, () => now);
    cache.set('k', 'v');
    now = 5100;
    expect(cache.get('k')).toBeUndefined();
    now = 5000;
    expect(cache.get('k')).toBeUndefined(); // deleted on the expired read
  });

  test('set again refreshes the expiry and the value', () => {
    const { cache, advance } = cacheWith(1000, 10);
    cache.set('k', 'old');
    advance(800);
    cache.set('k', 'new');
    advance(800);
    expect(cache.get('k')).toBe('new');
    advance(200);
    expect(cache.get('k')).toBeUndefined();
  });

  test('a zero ttl caches nothing', () => {
    const { cache } = cacheWith(0, 10);
    cache.set('k', 'v');
    expect(cache.get('k')).toBeUndefined();
  });
});

describe('TtlCache bound', () => {
  test('past maxEntries the oldest entry is evicted', () => {
    const { cache } = cacheWith(60_000, 3);
    for (const key of ['a', 'b', 'c', 'd']) cache.set(key, key.toUpperCase());
    expect(cache.get('a')).toBeUndefined();
    expect([cache.get('b'), cache.get('c'), cache.get('d')]).toEqual(['B', 'C', 'D']);
    cache.set('e', 'E');
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('e')).toBe('E');
  });

  test('set refreshes an entry’s position, so the next oldest is evicted instead', () => {
    const { cache } = cacheWith(60_000, 3);
    cache.set('a', '1');
    cache.set('b', '2');
    cache.set('c', '3');
    cache.set('a', '1 again');
    cache.set('d', '4');
    expect(cache.get('a')).toBe('1 again');
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('c')).toBe('3');
    expect(cache.get('d')).toBe('4');
  });

  test('get does not refresh position: eviction is by last write, not last read', () => {
    const { cache } = cacheWith(60_000, 2);
    cache.set('a', '1');
    cache.set('b', '2');
    expect(cache.get('a')).toBe('1');
    cache.set('c', '3');
    expect(cache.get('a')).toBeUndefined();
    expect(cache.get('b')).toBe('2');
  });

  test('re-setting an existing key at capacity evicts nothing', () => {
    const { cache } = cacheWith(60_000, 2);
    cache.set('a', '1');
    cache.set('b', '2');
    cache.set('b', '2b');
    expect(cache.get('a')).toBe('1');
    expect(cache.get('b')).toBe('2b');
  });

  test('delete and clear', () => {
    const { cache } = cacheWith(60_000, 5);
    cache.set('a', '1');
    cache.set('b', '2');
    cache.delete('a');
    expect(cache.get('a')).toBeUndefined();
    expect(cache.get('b')).toBe('2');
    cache.delete('missing');
    cache.clear();
    expect(cache.get('b')).toBeUndefined();
  });
});
