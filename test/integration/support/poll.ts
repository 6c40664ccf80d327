/** Reads at most this many times, 50 ms apart: what lands after a response (usage, totals, records) is waited for by count, not by a time bound. */
export const POLLS = 600;

/** Polls until `done` holds for what `read` returns, or POLLS reads have not seen it; the last value read. */
export async function until<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  for (let poll = 1; ; poll++) {
    const value = await read();
    if (done(value) || poll >= POLLS) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
