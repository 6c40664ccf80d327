/**
 * One poll in flight per key (a job) in this instance: a caller that asks while another's poll
 * of the same job is under way gets that poll's outcome instead of starting its own. Entries
 * live only while their poll does, so the map holds no more than the jobs being polled now.
 * Across instances the job's poll lease does the same work (poll-lease.ts); this spares the
 * lease's writes and reads when one instance serves several watchers, as the local runtime does.
 */
export class SharedPolls<T> {
  private readonly inFlight = new Map<string, Promise<T>>();

  run(key: string, poll: () => Promise<T>): Promise<T> {
    const pending = this.inFlight.get(key);
    if (pending) return pending;
    const started = poll().finally(() => this.inFlight.delete(key));
    this.inFlight.set(key, started);
    return started;
  }
}
