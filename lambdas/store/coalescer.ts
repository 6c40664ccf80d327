/**
 * Gathers items added within a short window (or until a batch is full) and writes them with
 * one call; every `add` resolves when the write that carried its item succeeded, or rejects
 * with its failure. Under load many requests share one round trip; a lone request waits at
 * most `delayMs`, after its response has already gone out.
 */
export class Coalescer<T> {
  private pending: { item: T; done: () => void; fail: (error: unknown) => void }[] = [];
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly write: (items: T[]) => Promise<void>,
    private readonly maxItems: number,
    private readonly delayMs: number,
  ) {}

  add(item: T): Promise<void> {
    return new Promise((done, fail) => {
      this.pending.push({ item, done, fail });
      if (this.pending.length >= this.maxItems) this.flush();
      else this.timer ??= setTimeout(() => this.flush(), this.delayMs);
    });
  }

  private flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    const batch = this.pending.splice(0, this.maxItems);
    if (this.pending.length > 0) this.timer = setTimeout(() => this.flush(), this.delayMs);
    this.write(batch.map((entry) => entry.item)).then(
      () => batch.forEach((entry) => entry.done()),
      (error: unknown) => batch.forEach((entry) => entry.fail(error)),
    );
  }
}
