/**
 * A one-reader queue between a producer that must not wait for its reader and the reader: the
 * session host pushes every event it has logged, the live stream reads them. A reader that
 * leaves (its iterator returned) only stops the deliveries; the producer goes on.
 * What waits is bounded by the session's own events, which its plan bounds.
 */
export class LiveTap<T> implements AsyncIterable<T> {
  private readonly queue: T[] = [];
  private ended = false;
  private detached = false;
  private wake: (() => void) | undefined;

  push(item: T): void {
    if (this.detached || this.ended) return;
    this.queue.push(item);
    this.wake?.();
  }

  end(): void {
    this.ended = true;
    this.wake?.();
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<T> {
    try {
      for (;;) {
        const item = this.queue.shift();
        if (item !== undefined) {
          yield item;
          continue;
        }
        if (this.ended) return;
        await new Promise<void>((resolve) => (this.wake = resolve));
        this.wake = undefined;
      }
    } finally {
      this.detached = true;
      this.queue.length = 0;
    }
  }
}
