/**
 * Work after the response for one arena call, held until that call has settled. A client that
 * leaves ends the response at once, while the calls it aborted are still unwinding: their
 * `client_closed` attempts reach the meter only then, so a flush run earlier would lose them.
 * A call settles when its promise rejects, its whole answer arrives, or its stream of chunks
 * ends in any way (read to the end, failed, or returned by a consumer that stopped).
 */
export interface SettledWork {
  /** Collects a task; the tasks run, side by side, once the call has settled. */
  readonly defer: (task: () => Promise<void>) => void;
  readonly settle: () => void;
}

export function settledWork(deferAfterResponse: (task: () => Promise<void>) => void): SettledWork {
  const tasks: (() => Promise<void>)[] = [];
  let settle!: () => void;
  const settled = new Promise<void>((resolve) => (settle = resolve));
  deferAfterResponse(async () => {
    await settled;
    await Promise.all(tasks.map((task) => task()));
  });
  return { defer: (task) => void tasks.push(task), settle };
}

/** `chunks`, calling `settle` once the stream ends in any way. */
export async function* settlingWith<T>(chunks: AsyncIterable<T>, settle: () => void): AsyncGenerator<T> {
  try {
    yield* chunks;
  } finally {
    settle();
  }
}
