/**
 * A clock for several concurrent tasks that only moves when every one of them sleeps: it then
 * jumps to the earliest wake-up. Real I/O (the embedded DynamoDB, a simulator on loopback) takes
 * no time on it, so what a test counts per interval depends on the code, never on how busy the
 * machine is.
 */
export class VirtualTime {
  private sleepers: { readonly at: number; readonly wake: () => void }[] = [];
  private running = 0;
  private settled: (() => void) | undefined;

  constructor(public now: number) {}

  readonly date = (): Date => new Date(this.now);

  readonly sleep = (ms: number): Promise<void> =>
    new Promise((wake) => {
      this.sleepers.push({ at: this.now + Math.max(0, ms), wake });
      this.check();
    });

  /** Runs the tasks to their ends, moving the clock whenever all that are left sleep; one run at a time. */
  async run<T>(tasks: readonly (() => Promise<T>)[]): Promise<T[]> {
    if (this.running > 0) throw new Error('one run at a time: pass every task to one run');
    this.running += tasks.length;
    const all = Promise.allSettled(
      tasks.map((task) =>
        task().finally(() => {
          this.running--;
          this.check();
        }),
      ),
    );
    while (this.running > 0) {
      await new Promise<void>((resolve) => {
        this.settled = resolve;
        this.check();
      });
      this.advance();
    }
    const outcomes = await all;
    return outcomes.map((outcome) => {
      if (outcome.status === 'rejected') throw outcome.reason;
      return outcome.value;
    });
  }

  private check(): void {
    if (!this.settled || (this.running > 0 && this.sleepers.length < this.running)) return;
    const settled = this.settled;
    this.settled = undefined;
    settled();
  }

  private advance(): void {
    if (this.sleepers.length === 0) return;
    this.now = Math.min(...this.sleepers.map((sleeper) => sleeper.at));
    const due = this.sleepers.filter((sleeper) => sleeper.at <= this.now);
    this.sleepers = this.sleepers.filter((sleeper) => sleeper.at > this.now);
    for (const sleeper of due) sleeper.wake();
  }
}
