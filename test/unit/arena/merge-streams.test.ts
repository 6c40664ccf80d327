import { mergeStreams, type MergedEvent, type MergeSource } from '../../../lambdas/arena/merge-streams.js';

/** A source yielding `items` with a tick between them, then failing or hanging if asked. */
function source(
  id: string,
  items: readonly string[],
  end: { fail?: Error; hang?: boolean } = {},
): MergeSource<string> & { signal?: AbortSignal; returned: boolean } {
  const state = {
    id,
    signal: undefined as AbortSignal | undefined,
    returned: false,
    async *open(signal: AbortSignal) {
      state.signal = signal;
      try {
        for (const item of items) {
          await new Promise((resolve) => setImmediate(resolve));
          yield item;
        }
        if (end.fail) throw end.fail;
        if (end.hang) await new Promise(() => undefined);
      } finally {
        state.returned = true;
      }
    },
  };
  return state;
}

async function all<T>(events: AsyncIterable<MergedEvent<T>>): Promise<MergedEvent<T>[]> {
  const seen: MergedEvent<T>[] = [];
  for await (const event of events) seen.push(event);
  return seen;
}

const of = (events: readonly MergedEvent<string>[], id: string) =>
  events.filter((e) => e.source === id).map((e) => (e.kind === 'item' ? e.value : e.kind));

test("every source's items arrive tagged and in that source's order, then its done", async () => {
  const events = await all(mergeStreams([source('a', ['a1', 'a2', 'a3']), source('b', ['b1', 'b2'])]));
  expect(of(events, 'a')).toEqual(['a1', 'a2', 'a3', 'done']);
  expect(of(events, 'b')).toEqual(['b1', 'b2', 'done']);
  // Interleaved, not one source after the other.
  expect(events.findIndex((e) => e.source === 'b')).toBeLessThan(events.findIndex((e) => e.kind === 'done'));
});

test("one source's failure is an event; the others run to their end", async () => {
  const boom = new Error('agent b failed');
  const events = await all(mergeStreams([source('a', ['a1', 'a2', 'a3']), source('b', ['b1'], { fail: boom })]));
  expect(of(events, 'b')).toEqual(['b1', 'error']);
  expect(events.find((e) => e.kind === 'error')).toEqual({ kind: 'error', source: 'b', error: boom });
  expect(of(events, 'a')).toEqual(['a1', 'a2', 'a3', 'done']);
});

test('a source that cannot even open is an error event, not a thrown merge', async () => {
  const broken: MergeSource<string> = {
    id: 'x',
    open: () => {
      throw new Error('no such agent');
    },
  };
  const events = await all(mergeStreams([broken, source('a', ['a1'])]));
  expect(of(events, 'x')).toEqual(['error']);
  expect(of(events, 'a')).toEqual(['a1', 'done']);
});

test('aborting one source ends it at once, even stuck mid-read, and only it', async () => {
  const stuck = source('stuck', ['s1'], { hang: true });
  const other = source('other', ['o1', 'o2', 'o3']);
  const merged = mergeStreams([stuck, other]);
  const seen: MergedEvent<string>[] = [];
  for await (const event of merged) {
    seen.push(event);
    if (event.kind === 'item' && event.value === 's1') merged.abort('stuck', new Error('user stopped it'));
  }
  expect(stuck.signal?.aborted).toBe(true);
  expect(stuck.signal?.reason).toEqual(new Error('user stopped it'));
  expect(other.signal?.aborted).toBe(false);
  expect(of(seen, 'stuck')).toEqual(['s1', 'aborted']);
  expect(of(seen, 'other')).toEqual(['o1', 'o2', 'o3', 'done']);
});

test('the outer signal aborts every source', async () => {
  const controller = new AbortController();
  const a = source('a', ['a1'], { hang: true });
  const b = source('b', [], { hang: true });
  const merged = mergeStreams([a, b], controller.signal);
  const seen: MergedEvent<string>[] = [];
  for await (const event of merged) {
    seen.push(event);
    if (event.kind === 'item') controller.abort();
  }
  expect([a.signal?.aborted, b.signal?.aborted]).toEqual([true, true]);
  expect(seen.filter((e) => e.kind === 'aborted').map((e) => e.source)).toEqual(['a', 'b']);
});

test('a consumer that stops early aborts and closes every source', async () => {
  const a = source('a', ['a1', 'a2', 'a3']);
  const b = source('b', ['b1', 'b2', 'b3']);
  for await (const event of mergeStreams([a, b])) if (event.kind === 'item') break;
  expect([a.signal?.aborted, b.signal?.aborted]).toEqual([true, true]);
  await new Promise((resolve) => setImmediate(resolve));
  await new Promise((resolve) => setImmediate(resolve));
  expect([a.returned, b.returned]).toEqual([true, true]);
});

test('an abort while the reader is waiting on stuck sources wakes the reader', async () => {
  const merged = mergeStreams([source('stuck', [], { hang: true })]);
  setImmediate(() => merged.abort('stuck'));
  expect(await all(merged)).toEqual([{ kind: 'aborted', source: 'stuck' }]);
});
