import type { ArenaEvent } from '../../../lambdas/arena/arena-events.js';
import { durableEvents, SessionTakenOver, type SequencedEvent } from '../../../lambdas/arena/durable-events.js';

/**
 * Pages of the session log: every event is written before it is passed on; an answer's first
 * delta at once, its later deltas sharing a page until the interval passes or a non-delta comes; a round's judging results share a page with its
 * round_complete; and a page refused (another host wrote there) stops this host.
 */
const delta = (text: string): ArenaEvent => ({ type: 'agent_delta', round: 1, agent: 'a', delta: text });
const start: ArenaEvent = { type: 'agent_start', round: 1, agent: 'a', model: 'm' };
const complete: ArenaEvent = { type: 'agent_complete', round: 1, agent: 'a', model: 'm', message: 'xyz' };
const results: ArenaEvent = { type: 'voting_complete', round: 1, results: [] };
const board: ArenaEvent = { type: 'leaderboard_update', round: 1, leaderboard: [] };
const roundEnd: ArenaEvent = { type: 'round_complete', round: 1, winner: null };

async function* source(events: readonly ArenaEvent[], pauseMs = 0) {
  for (const event of events) {
    if (pauseMs > 0) await new Promise((resolve) => setTimeout(resolve, pauseMs));
    yield event;
  }
}

/** Runs the pages with a clock that moves one per reading; the pages, and each event passed on with whether its page was written by then. */
async function run(
  events: AsyncIterable<ArenaEvent>,
  options: { intervalMs?: number; maxBytes?: number; refuseAt?: number } = {},
) {
  const pages: number[][] = [];
  const passed: { id: number; written: boolean }[] = [];
  let clock = 0;
  const append = async (page: readonly SequencedEvent[]) => {
    if (options.refuseAt !== undefined && page[0]!.id >= options.refuseAt) return false;
    pages.push(page.map((entry) => entry.id));
    return true;
  };
  for await (const { id } of durableEvents('s', events, append, {
    firstId: 5,
    pageIntervalMs: options.intervalMs ?? 1_000_000,
    maxPageBytes: options.maxBytes ?? 1_000_000,
    now: () => (clock += 1),
  }))
    passed.push({ id, written: pages.flat().includes(id) });
  return { pages, passed };
}

it('numbers from firstId and passes an event on only once its page is written', async () => {
  const { pages, passed } = await run(source([start, delta('a'), delta('b'), complete]));
  expect(passed.map((p) => p.id)).toEqual([5, 6, 7, 8]);
  expect(passed.every((p) => p.written)).toBe(true);
  // agent_start alone, the answer's first delta at once, then the next waiting for agent_complete.
  expect(pages).toEqual([[5], [6], [7, 8]]);
});

it('a round’s results share a page with its round_complete', async () => {
  const { pages } = await run(source([results, board, roundEnd]));
  expect(pages).toEqual([[5, 6, 7]]);
});

it('deltas are written once the interval has passed since the last write, and a large page at once', async () => {
  // The test's clock moves one per reading: an interval of 3 passes every few deltas.
  const timed = await run(source([start, ...'abcdefgh'.split('').map(delta), complete]), { intervalMs: 3 });
  expect(timed.pages.length).toBeGreaterThan(2);
  expect(timed.pages.flat()).toEqual([5, 6, 7, 8, 9, 10, 11, 12, 13, 14]);
  const sized = await run(source([start, delta('x'.repeat(100)), delta('y'.repeat(100)), complete]), { maxBytes: 100 });
  expect(sized.pages).toEqual([[5], [6], [7], [8]]);
});

it('a delta that waits is written when no event follows within the interval (real time)', async () => {
  const pages: number[][] = [];
  const seen: number[] = [];
  const events = (async function* () {
    yield start;
    yield delta('a');
    yield delta('b');
    // The next event is far off: the waiting delta must not wait for it.
    await new Promise((resolve) => setTimeout(resolve, 200));
    yield complete;
  })();
  for await (const { id } of durableEvents('s', events, async (page) => (pages.push(page.map((e) => e.id)), true), {
    firstId: 1,
    pageIntervalMs: 20,
    maxPageBytes: 1_000_000,
    now: Date.now,
  })) {
    seen.push(id);
    expect(pages.flat()).toContain(id);
  }
  // The first delta at once; the second waits out the interval alone, not the 200 ms to the next event.
  expect(pages).toEqual([[1], [2], [3], [4]]);
});

it('a refused page stops the host with SessionTakenOver, and passes nothing of it on', async () => {
  const passed: number[] = [];
  await expect(
    (async () => {
      for await (const { id } of durableEvents(
        's',
        source([start, complete, roundEnd]),
        async (page) => page[0]!.id < 2,
        {
          firstId: 1,
          pageIntervalMs: 0,
          maxPageBytes: 1_000_000,
          now: Date.now,
        },
      ))
        passed.push(id);
    })(),
  ).rejects.toBeInstanceOf(SessionTakenOver);
  expect(passed).toEqual([1]);
});
