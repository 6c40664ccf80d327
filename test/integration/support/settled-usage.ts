import { call } from './http.js';

/** Reads at most this many times, 50 ms apart. */
const POLLS = 600;

/**
 * A usage report (`GET` of `url`) once it counts at least `requests` requests: reports read the
 * totals the aggregator derives from the ledger off the request path, about a second after the
 * entries land. Returns the last answer when POLLS reads have not seen that many.
 */
export async function settledUsage(url: string, headers: Record<string, string>, requests: number) {
  for (let poll = 1; ; poll++) {
    const answer = await call(url, { headers });
    if (answer.status !== 200 || answer.body.data.totalRequests >= requests || poll >= POLLS) return answer;
    await new Promise((done) => setTimeout(done, 50));
  }
}
