/**
 * Per-route QPS limits of a simulator, as upstreams enforce them (Exa: 10 QPS on `/search`,
 * 100 on `/contents`): a sliding one-second window of the requests admitted. Driven over the
 * control API `POST /__sim/limits` `{"qps": N | null, "route"?: name}` (null lifts the limit),
 * `GET` lists them and `DELETE` restores the provider's defaults.
 */

const WINDOW_MS = 1000;
/** Bounds the window's memory: a higher limit is as good as none for a test. */
export const MAX_QPS = 100_000;

export class QpsLimits {
  private readonly limits = new Map<string, number | null>();
  private readonly admitted = new Map<string, number[]>();

  constructor(private readonly defaults: Readonly<Record<string, number>>) {
    this.restore();
  }

  /** True when the request fits in its route's window (and is then counted in it). */
  admit(route: string, now = performance.now()): boolean {
    const qps = this.limits.get(route);
    if (qps === undefined || qps === null) return true;
    const window = this.admitted.get(route) ?? [];
    while (window.length > 0 && window[0]! <= now - WINDOW_MS) window.shift();
    if (window.length >= qps) return false;
    window.push(now);
    this.admitted.set(route, window);
    return true;
  }

  qpsOf(route: string): number | null {
    return this.limits.get(route) ?? null;
  }

  /** Sets one route's limit, or every route's when none is named. */
  set(qps: number | null, route?: string): void {
    for (const name of route === undefined ? this.limits.keys() : [route]) this.limits.set(name, qps);
    this.admitted.clear();
  }

  restore(): void {
    for (const [route, qps] of Object.entries(this.defaults)) this.limits.set(route, qps);
    this.admitted.clear();
  }

  routes(): string[] {
    return [...this.limits.keys()];
  }

  list(): Record<string, number | null> {
    return Object.fromEntries(this.limits);
  }
}

/** The control API's body, checked: a limit, or an error naming the field. */
export function parseLimit(
  spec: unknown,
  routes: readonly string[],
): { qps: number | null; route?: string } | { error: string } {
  const { qps, route } = (spec ?? {}) as { qps?: unknown; route?: unknown };
  if (qps !== null && (typeof qps !== 'number' || !Number.isInteger(qps) || qps < 1 || qps > MAX_QPS))
    return { error: `qps must be null or an integer from 1 to ${MAX_QPS}` };
  if (route !== undefined && (typeof route !== 'string' || !routes.includes(route)))
    return { error: `route must be one of ${JSON.stringify(routes)}` };
  return route === undefined ? { qps } : { qps, route };
}
