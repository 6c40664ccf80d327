import { fashionEndpoint } from '../providers/fashion/fashion-deployment.js';
import { parseFashionRequest, type FashionRequest } from '../providers/fashion/fashion-request.js';
import { runPrediction, type FashnDeps } from '../providers/fashion/fashn-wire.js';
import type { ProviderEndpoint } from '../providers/provider-config.js';
import {
  dynamoIdempotencyStore,
  parseIdempotencyKey,
  requestFingerprint,
  runIdempotently,
  type IdempotencyStore,
} from '../store/idempotency.js';
import type { FashionRunData } from './fashion-bodies.js';

/**
 * Submitting a fashion prediction, for the run and subscribe routes: the body checked, then
 * (with an `Idempotency-Key`) at most one upstream prediction per key, account and body
 * within 24 hours: a repeat answers the first prediction. FASHN has no idempotency of its
 * own (upstreams.md §7.5); without the header every call submits.
 */

export interface FashionRunInput {
  readonly body: unknown;
  readonly accountId: string;
  /** The `Idempotency-Key` header as received (undefined when absent). */
  readonly idempotencyKey?: string;
}

export interface FashionRunDeps extends FashnDeps {
  readonly endpoint?: () => Promise<ProviderEndpoint>;
  readonly idempotency?: IdempotencyStore;
  readonly now?: () => number;
}

export interface FashionRun {
  readonly request: FashionRequest;
  readonly data: FashionRunData;
  /** True when an earlier call with the same Idempotency-Key made this prediction. */
  readonly replayed: boolean;
}

/** Throws FashionError (validation, upstream refusals) or IdempotencyError. */
export async function submitFashionRun(input: FashionRunInput, deps: FashionRunDeps): Promise<FashionRun> {
  const key = parseIdempotencyKey(input.idempotencyKey);
  const request = parseFashionRequest(input.body);
  const endpoint = await (deps.endpoint ?? fashionEndpoint)();
  const submit = async (): Promise<FashionRunData> => {
    const { predictionId } = await runPrediction(endpoint, request, deps);
    return {
      prediction_id: predictionId,
      status: 'starting',
      model_name: request.model.name,
      created_at: (deps.now ?? Date.now)(),
    };
  };
  if (key === undefined) return { request, data: await submit(), replayed: false };
  const scope = { accountId: input.accountId, key, fingerprint: requestFingerprint(input.body) };
  const { result, replayed } = await runIdempotently(scope, submit, deps.idempotency ?? dynamoIdempotencyStore);
  return { request, data: result, replayed };
}
