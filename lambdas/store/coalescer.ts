/**
 * Gathers items added within a short window (or until a batch is full) and writes them with
 * one call; every `add` resolves when the write that carried its item succeeded, or rejects
 * with its failure. Under load many requests share one round trip; a lone request waits at
 * most `delayMs`, after its response has already gone out.
 */
export class Coalescer<T> {
  private pending: { item: T; done: () => void; fail: (error: unknown) => void }[] = [];
  private timer: { cancel(): void } | undefined;

  constructor(
    private readonly write: (items: T[]) => Promise<void>,
    private readonly maxItems: number,
    private readonly delayMs: number,
  ) {}

  add(item: T): Promise<void> {
    return new Promise((done, fail) => {
      this.pending.push({ item, done, fail });
      if (this.pending.length >= this.maxItems) this.flush();
      else this.timer ??= this.schedule();
    });
  }

  /** A zero delay means "the rest of this turn of the event loop": what arrived together. */
  private schedule(): { cancel(): void } {
    if (this.delayMs === 0) {
      const immediate = setImmediate(() => this.flush());
      return { cancel: () => clearImmediate(immediate) };
    }
    const timeout = setTimeout(() => this.flush(), this.delayMs);
    return { cancel: () => clearTimeout(timeout) };
  }

  private flush(): void {
    this.timer?.cancel();
    this.timer = undefined;
    const batch = this.pending.splice(0, this.maxItems);
    if (this.pending.length > 0) this.timer = this.schedule();
    this.write(batch.map((entry) => entry.item)).then(
      () => batch.forEach((entry) => entry.done()),
      (error: unknown) => batch.forEach((entry) => entry.fail(error)),
    );
  }
}
