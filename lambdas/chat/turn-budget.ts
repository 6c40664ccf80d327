/**
 * How much work a loop may do before the event loop gets a turn. A loop whose awaits all
 * resolve at once (a fast upstream's stream, already buffered, relayed to a client that reads as
 * fast) runs as one chain of microtasks: nothing else on the instance runs until it stops, and
 * libuv keeps reading the upstream socket meanwhile (up to 32 reads of 64 KiB per poll), so one
 * such run relayed a 4,000-word answer whole. `spend` counts the work and, past the budget,
 * hands back a promise that resolves after other callbacks (timers, I/O, other requests) ran.
 */
export class TurnBudget {
  #spent = 0;
  /** True until a callback scheduled with the first spend of a run tells that a turn passed. */
  #running = false;

  constructor(private readonly budget: number) {}

  /** Counts `units` of work; a promise to await when the loop should let the event loop turn. */
  spend(units: number): Promise<void> | undefined {
    if (!this.#running) {
      this.#running = true;
      this.#spent = 0;
      setImmediate(() => {
        this.#running = false;
      });
    }
    this.#spent += units;
    if (this.#spent < this.budget) return undefined;
    // Runs after the callback above (immediates run in order), so the next spend starts a new run.
    return new Promise((resolve) => setImmediate(resolve));
  }
}
