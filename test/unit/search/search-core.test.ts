import { send } from '../../../lambdas/providers/http-transport.js';
import { search, type SearchDeps } from '../../../lambdas/search/web-search.js';
import { SearchError } from '../../../lambdas/search/search-errors.js';
import {
  DEFAULT_SEARCH_OPTIONS,
  type SearchAttempt,
  type SearchOptions,
} from '../../../lambdas/search/search-types.js';
import { exaSimulator } from '../../../local/simulators/exa.js';
import { startSimulator, type RunningSimulator } from '../../../local/simulators/harness.js';

/** The search core as the arena calls it: no HTTP of its own, against the real Exa simulator. */
let exa: RunningSimulator;
let deps: SearchDeps;

beforeAll(async () => {
  exa = await startSimulator(exaSimulator);
  deps = { endpoint: async () => ({ baseUrl: exa.url, apiKey: 'core-test-key' }), send, now: () => new Date() };
});
afterAll(() => exa.close());
beforeEach(() => {
  exa.faults.clear();
  exa.requests.length = 0;
});

async function failure(run: () => Promise<unknown>): Promise<SearchError> {
  try {
    await run();
  } catch (error) {
    if (error instanceof SearchError) return error;
    throw error;
  }
  throw new Error('the search did not fail');
}

const attemptsOf = () => {
  const attempts: SearchAttempt[] = [];
  return { attempts, onAttempt: (attempt: SearchAttempt) => void attempts.push(attempt) };
};

it('returns typed results and reports the one upstream call', async () => {
  const { attempts, onAttempt } = attemptsOf();
  const options: SearchOptions = { ...DEFAULT_SEARCH_OPTIONS, numResults: 3 };
  const answer = await search('solar storms', options, { signal: new AbortController().signal, onAttempt }, deps);
  expect(answer.results).toHaveLength(3);
  expect(answer.results[0]).toMatchObject({ score: 0.9, publishedDate: expect.any(String) });
  expect(answer.costMicroUsd).toBe(10_000);
  expect(attempts).toEqual([
    { provider: 'exa', type: 'neural', status: 200, outcome: 'ok', costMicroUsd: 10_000, estimated: false, results: 3 },
  ]);
});

it('refuses what a model might send out of bounds, before any upstream call', async () => {
  const signal = new AbortController().signal;
  const long = await failure(() => search('x'.repeat(1001), DEFAULT_SEARCH_OPTIONS, { signal }, deps));
  expect(long).toMatchObject({ kind: 'invalid_request', details: { field: 'query' } });
  const many = await failure(() => search('q', { ...DEFAULT_SEARCH_OPTIONS, numResults: 100 }, { signal }, deps));
  expect(many).toMatchObject({ kind: 'invalid_request', details: { field: 'num_results' } });
  expect(exa.requests).toHaveLength(0);
});

it('gives up after its timeout and reports a timeout', async () => {
  await fetch(`${exa.url}/__sim/faults`, { method: 'POST', body: JSON.stringify({ fault: 'delay_headers:3000' }) });
  const { attempts, onAttempt } = attemptsOf();
  const started = Date.now();
  const error = await failure(() =>
    search('slow', DEFAULT_SEARCH_OPTIONS, { signal: new AbortController().signal, timeoutMs: 200, onAttempt }, deps),
  );
  expect(error.kind).toBe('upstream_failed');
  expect(Date.now() - started).toBeLessThan(2_000);
  expect(attempts).toMatchObject([{ status: 0, outcome: 'timeout', costMicroUsd: 0 }]);
});

it('stops when the caller goes away, with the caller’s reason, and still reports the call', async () => {
  await fetch(`${exa.url}/__sim/faults`, { method: 'POST', body: JSON.stringify({ fault: 'delay_headers:3000' }) });
  const caller = new AbortController();
  const { attempts, onAttempt } = attemptsOf();
  const pending = search('leaving', DEFAULT_SEARCH_OPTIONS, { signal: caller.signal, onAttempt }, deps);
  setTimeout(() => caller.abort(new Error('client left')), 100);
  await expect(pending).rejects.toThrow('client left');
  expect(attempts).toMatchObject([{ status: 0, outcome: 'client_closed', costMicroUsd: 0 }]);
});

it('is not configured without an endpoint, and makes no call', async () => {
  const none: SearchDeps = { ...deps, endpoint: async () => undefined };
  const error = await failure(() =>
    search('q', DEFAULT_SEARCH_OPTIONS, { signal: new AbortController().signal }, none),
  );
  expect(error.kind).toBe('not_configured');
  expect(exa.requests).toHaveLength(0);
});

it('carries the provider retry hint on a rate limit', async () => {
  await fetch(`${exa.url}/__sim/faults`, { method: 'POST', body: JSON.stringify({ fault: 'status:429' }) });
  const error = await failure(() =>
    search('q', DEFAULT_SEARCH_OPTIONS, { signal: new AbortController().signal }, deps),
  );
  expect(error).toMatchObject({ kind: 'rate_limited', details: { retryAfterMs: 1000 } });
});
