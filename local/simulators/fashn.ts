import type { SimExchange, SimRoute, SimulatorDefinition } from './harness.js';
import { fakeModelOf, FAKE_MODELS } from './fashn-models.js';
import { creditsOf, outputFile, outputsOf } from './fashn-outputs.js';
import { isTerminal, PredictionBook, DEFAULT_CONCURRENCY, type Prediction } from './fashn-predictions.js';
import { apiError, authenticateFashn, fashnJson, namedApiErrors, statusError } from './fashn-responses.js';

/**
 * The FASHN fake (docs/upstreams.md §7 and its Simulator checklist): `POST /v1/run` checks
 * `model_name` and the required inputs (400 BadRequest) and answers `{id, error:null}`,
 * reading `webhook_url` from the query string (recorded, not delivered); `GET /v1/status/{id}`
 * walks the prediction (fashn-predictions.ts, with its directives) and carries
 * `x-fashn-credits-used` once it ended; an unknown or expired id is 404 NotFound. Outputs are
 * served under `/cdn/` without auth until they expire.
 *
 * Limits: at most `concurrency` predictions in flight (default 6) → 429
 * ConcurrencyLimitExceeded; QPS limits `run` (10) and `status` (50) → 429 RateLimitExceeded.
 * Named faults (`error:<name>`): RateLimitExceeded, ConcurrencyLimitExceeded, OutOfCredits,
 * InternalServerError, BadRequest, UnauthorizedAccess, NotFound. The model of a request, for
 * faults scoped to one, is its `model_name` (for status polls, the prediction's).
 *
 * Started over a state folder, the predictions outlive a restart (persisted-state.ts): a walk
 * goes on where it was, and outputs handed out before are still served until they expire.
 */

export interface FashnSimulatorOptions {
  /** The fake's clock (epoch ms): output expiry and abandoned predictions follow it. */
  readonly now?: () => number;
  readonly concurrency?: number;
}

interface RunBody {
  model_name?: unknown;
  inputs?: unknown;
}

export function createFashnSimulator(options: FashnSimulatorOptions = {}): SimulatorDefinition {
  const book = new PredictionBook(options.now ?? Date.now, options.concurrency ?? DEFAULT_CONCURRENCY);
  const routes: SimRoute[] = [
    { method: 'POST', path: /^\/v1\/run$/, faultable: true, limit: { name: 'run', qps: 10 }, handle: (x) => run(x) },
    {
      method: 'GET',
      path: /^\/v1\/status\/(?<id>[^/]+)$/,
      faultable: true,
      limit: { name: 'status', qps: 50 },
      handle: (x) => status(x),
    },
    {
      method: 'GET',
      path: /^\/cdn\/(?<id>[^/]+)\/output_(?<n>\d{1,2})\.(?<ext>[a-z0-9]+)$/,
      faultable: false,
      handle: (x) => serveOutput(x),
    },
  ];

  async function run(x: SimExchange): Promise<void> {
    const body = x.body as RunBody | undefined;
    if (!body || typeof body !== 'object') return x.send(apiError('BadRequest', 'Invalid JSON body'));
    const model = fakeModelOf(body.model_name);
    if (!model) {
      return x.send(
        apiError('BadRequest', `Invalid model_name; expected one of ${Object.keys(FAKE_MODELS).join(', ')}`),
      );
    }
    const inputs = body.inputs;
    if (!inputs || typeof inputs !== 'object' || Array.isArray(inputs)) {
      return x.send(apiError('BadRequest', 'inputs must be an object'));
    }
    const missing = model.required.find((field) => typeof (inputs as Record<string, unknown>)[field] !== 'string');
    if (missing) return x.send(apiError('BadRequest', `inputs.${missing} is required`));
    const webhook = x.url.searchParams.get('webhook_url') ?? undefined;
    const prediction = book.create(String(body.model_name), model, inputs as Record<string, unknown>, webhook);
    if (!prediction) return x.send(apiError('ConcurrencyLimitExceeded'));
    return x.send(fashnJson(200, { id: prediction.id, error: null }));
  }

  async function status(x: SimExchange): Promise<void> {
    const prediction = book.poll(x.params['id']!);
    if (!prediction) return x.send(apiError('NotFound', `Prediction ${x.params['id']} not found`));
    const ended = isTerminal(prediction.stage);
    const headers: Record<string, string> =
      ended && prediction.reportCredits ? { 'x-fashn-credits-used': String(creditsOf(prediction)) } : {};
    return x.send(fashnJson(200, statusBody(prediction, String(x.headers.host)), headers));
  }

  async function serveOutput(x: SimExchange): Promise<void> {
    const prediction = book.servable(x.params['id']!);
    const file = outputFile(x.params['ext']!);
    if (!prediction || !file) return x.send(apiError('NotFound', 'Output not found or expired'));
    return x.send({ status: 200, headers: { 'Content-Type': file.contentType }, body: file.bytes });
  }

  return {
    name: 'fashn',
    routes,
    modelOf: ({ body, params }) => {
      const named = (body as RunBody | undefined)?.model_name;
      if (typeof named === 'string') return named;
      return params['id'] ? book.peekModel(params['id']) : undefined;
    },
    errorFor: (status) => statusError(status),
    authenticate: authenticateFashn,
    overLimit: () => apiError('RateLimitExceeded'),
    namedErrors: namedApiErrors,
    state: book,
  };
}

function statusBody(prediction: Prediction, host: string): Record<string, unknown> {
  return {
    id: prediction.id,
    status: prediction.stage,
    output: prediction.stage === 'completed' ? outputsOf(prediction, host) : null,
    error: prediction.stage === 'failed' ? prediction.end.error : null,
  };
}

/** The instance `npm start` and LocalGateway run. */
export const fashnSimulator = createFashnSimulator();
