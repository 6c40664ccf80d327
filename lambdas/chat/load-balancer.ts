import type { LoadBalanceStrategy } from './chat-request.js';

export interface Weighted {
  readonly key: string;
  readonly weight: number;
}

/**
 * Orders load-balance targets: the first is tried first, the rest follow as failover.
 * State (round-robin positions, latency averages) is per instance, which is what each
 * instance can know without a round trip.
 */
export class LoadBalancer {
  private readonly positions = new Map<string, number>();
  private readonly latency = new Map<string, number>();

  constructor(
    private readonly random: () => number = Math.random,
    /** Weight of the newest sample in the latency average. */
    private readonly alpha = 0.3,
  ) {}

  order<T extends Weighted>(strategy: LoadBalanceStrategy, targets: readonly T[]): T[] {
    switch (strategy) {
      case 'weighted':
        return this.weightedOrder(targets);
      case 'round-robin':
        return this.roundRobinOrder(targets);
      case 'least-latency':
        return this.latencyOrder(targets);
    }
  }

  /** Records how long a target took to answer (or to its first token, for streams). */
  observe(key: string, ms: number): void {
    const previous = this.latency.get(key);
    this.latency.set(key, previous === undefined ? ms : this.alpha * ms + (1 - this.alpha) * previous);
  }

  averageLatency(key: string): number | undefined {
    return this.latency.get(key);
  }

  /** Weighted random sampling without replacement: later positions keep the weights' odds. */
  private weightedOrder<T extends Weighted>(targets: readonly T[]): T[] {
    const pool = [...targets];
    const ordered: T[] = [];
    while (pool.length > 0) {
      const total = pool.reduce((sum, t) => sum + t.weight, 0);
      let pick = this.random() * total;
      let index = pool.findIndex((t) => (pick -= t.weight) < 0);
      if (index < 0) index = pool.length - 1;
      ordered.push(...pool.splice(index, 1));
    }
    return ordered;
  }

  private roundRobinOrder<T extends Weighted>(targets: readonly T[]): T[] {
    const ring = targets.map((t) => t.key).join('|');
    const position = this.positions.get(ring) ?? 0;
    this.positions.set(ring, (position + 1) % targets.length);
    return [...targets.slice(position), ...targets.slice(0, position)];
  }

  /** Unmeasured targets go first, so every target gets measured. */
  private latencyOrder<T extends Weighted>(targets: readonly T[]): T[] {
    return [...targets].sort((a, b) => (this.latency.get(a.key) ?? -1) - (this.latency.get(b.key) ?? -1));
  }
}
