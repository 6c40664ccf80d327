import { KEY_CACHE_TTL_MS, KEY_REFRESH_AFTER_MS, KeyDirectory } from '../../../lambdas/identity/key-directory.js';
import type { ApiKeyRecord } from '../../../lambdas/store/api-keys.js';

const record = (enabled: boolean) => ({ keyId: 'k1', enabled }) as unknown as ApiKeyRecord;

function directoryOver(store: { current: ApiKeyRecord | null; reads: number }, clock: { now: number }) {
  return new KeyDirectory(
    async () => {
      store.reads++;
      return store.current;
    },
    () => clock.now,
  );
}

test('a key in steady use is read again after a response, never while a call waits', async () => {
  const clock = { now: 0 };
  const store = { current: record(true), reads: 0 };
  const directory = directoryOver(store, clock);
  await directory.find('k1');
  expect(store.reads).toBe(1);
  for (let t = 0; t < 10_000; t += 100) {
    clock.now = t;
    const readsBefore = store.reads;
    await directory.find('k1');
    expect(store.reads).toBe(readsBefore); // the call itself never read
    await directory.refreshDue(); // after its response
  }
  // About one read per refresh interval, all of them after responses.
  expect(store.reads).toBeGreaterThanOrEqual(10_000 / KEY_CACHE_TTL_MS);
  expect(store.reads).toBeLessThanOrEqual(10_000 / KEY_REFRESH_AFTER_MS + 1);
});

test('a change reaches a key in steady use within the TTL; an idle key is read afresh', async () => {
  const clock = { now: 0 };
  const store = { current: record(true), reads: 0 };
  const directory = directoryOver(store, clock);
  await directory.find('k1');
  store.current = record(false); // disabled on another instance
  clock.now = KEY_REFRESH_AFTER_MS;
  expect((await directory.find('k1'))?.enabled).toBe(true); // stale but within the TTL
  await directory.refreshDue();
  expect((await directory.find('k1'))?.enabled).toBe(false);

  store.current = record(true);
  clock.now += KEY_CACHE_TTL_MS; // nobody used it meanwhile: expired, read while the call waits
  const readsBefore = store.reads;
  expect((await directory.find('k1'))?.enabled).toBe(true);
  expect(store.reads).toBe(readsBefore + 1);
});

test('a failed refresh keeps the record until its TTL', async () => {
  const clock = { now: 0 };
  let fail = false;
  const directory = new KeyDirectory(
    async () => {
      if (fail) throw new Error('DynamoDB unavailable');
      return record(true);
    },
    () => clock.now,
  );
  await directory.find('k1');
  clock.now = KEY_REFRESH_AFTER_MS;
  await directory.find('k1');
  fail = true;
  await directory.refreshDue();
  expect((await directory.find('k1'))?.enabled).toBe(true);
  clock.now = KEY_CACHE_TTL_MS;
  await expect(directory.find('k1')).rejects.toThrow('DynamoDB unavailable');
});

test('a key forgotten while its refresh is out is not refilled by that late read', async () => {
  const clock = { now: 0 };
  const store = { current: record(true), reads: 0 };
  let release: () => void = () => undefined;
  let hold = false;
  const directory = new KeyDirectory(
    async () => {
      store.reads++;
      const answer = store.current;
      if (hold) await new Promise<void>((resolve) => (release = resolve));
      return answer;
    },
    () => clock.now,
  );
  await directory.find('k1');
  clock.now = KEY_REFRESH_AFTER_MS;
  await directory.find('k1');
  hold = true;
  const refreshing = directory.refreshDue(); // reads the record as it was: enabled
  store.current = record(false);
  directory.forget('k1'); // disabled through this instance while that read is out
  release();
  await refreshing;
  hold = false;
  expect((await directory.find('k1'))?.enabled).toBe(false);
  expect(store.reads).toBe(3);
});
