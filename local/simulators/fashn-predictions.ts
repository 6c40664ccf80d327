import { randomUUID } from 'node:crypto';
import { fakeModelOf, type FakeModel } from './fashn-models.js';
import { changeListeners, type SimulatorState } from './persisted-state.js';

/**
 * The FASHN fake's predictions: each walks `starting → in_queue → processing` over its polls
 * and then ends `completed` or `failed` (docs/upstreams.md §7.4). Time comes from an injected clock,
 * so output expiry (CDN 72 h, base64 60 min) and abandoned predictions are testable.
 *
 * Directives in any string input (a prompt, or an image URL's query or fragment):
 * `[sim:polls=N]` polls before the end (default 3: one per running status); `[sim:fail=NAME]`
 * fails with that runtime error name; `[sim:end=canceled|time_out]` ends in one of the SDK's
 * undocumented statuses; `[sim:credits=none]` leaves `x-fashn-credits-used` out. An image
 * input that is base64 without its `data:` prefix fails with ImageLoadError, as FASHN does.
 */

export type Stage = 'starting' | 'in_queue' | 'processing' | 'completed' | 'failed' | 'canceled' | 'time_out';

export interface Prediction {
  readonly id: string;
  readonly modelName: string;
  readonly model: FakeModel;
  readonly inputs: Readonly<Record<string, unknown>>;
  readonly createdAt: number;
  readonly webhookUrl?: string;
  readonly polls: number;
  readonly end: { readonly stage: Stage; readonly error?: { readonly name: string; readonly message: string } };
  readonly reportCredits: boolean;
  polled: number;
  stage: Stage;
  endedAt?: number;
}

export const DEFAULT_POLLS = 3;
export const MAX_POLLS = 1000;
/** FASHN's default concurrency cap per account (docs/upstreams.md §7.7, a placeholder). */
export const DEFAULT_CONCURRENCY = 6;
export const CDN_RETENTION_MS = 72 * 3600_000;
export const BASE64_RETENTION_MS = 60 * 60_000;
/** A prediction nobody polls still finishes upstream: after this it no longer counts as in flight. */
export const ABANDONED_AFTER_MS = 5 * 60_000;
const MAX_PREDICTIONS = 10_000;
/**
 * Input strings longer than this are not kept in a snapshot: after `create` only the inputs'
 * presence and small options are read (outputs, credits), and a base64 image would make
 * every write megabytes.
 */
const MAX_STORED_INPUT_CHARS = 1024;

const RUNNING: readonly Stage[] = ['starting', 'in_queue', 'processing'];
const TERMINAL: ReadonlySet<Stage> = new Set(['completed', 'failed', 'canceled', 'time_out']);

const RUNTIME_MESSAGES: Readonly<Record<string, string>> = {
  ImageLoadError: 'Error loading image: URL did not return an image',
  ContentModerationError: 'Input image violates content policy; try moderation_level permissive',
  PoseError: 'Could not detect a body pose in the model image',
  LoRALoadError: 'Could not load the LoRA weights file',
  InputValidationError: 'Invalid parameter values',
  PipelineError: 'Internal processing failure; please retry',
  ThirdPartyError: 'An upstream provider failed; retry with backoff',
  '3rdPartyProviderError': 'A third-party provider failed',
  InternalServerError: 'Internal server error',
};

export function directive(inputs: Readonly<Record<string, unknown>>, name: string): string | undefined {
  for (const value of Object.values(inputs)) {
    if (typeof value !== 'string') continue;
    for (const match of value.matchAll(/\[sim:([a-z_]+)(?:=([^\]]*))?\]/g))
      if (match[1] === name) return match[2] ?? '';
  }
  return undefined;
}

/** A prediction as a snapshot holds it: its model by name, long inputs left out. */
type StoredPrediction = Omit<Prediction, 'model'>;

export class PredictionBook implements SimulatorState {
  private readonly predictions = new Map<string, Prediction>();
  private readonly changes = changeListeners();

  constructor(
    private readonly now: () => number,
    readonly concurrency: number = DEFAULT_CONCURRENCY,
  ) {}

  /** The predictions, for a restart over the same data folder (persisted-state.ts). */
  snapshot(): StoredPrediction[] {
    return [...this.predictions.values()].map(({ model: _model, ...stored }) => ({
      ...stored,
      inputs: storedInputs(stored.inputs),
    }));
  }

  restore(snapshot: unknown): void {
    const saved = snapshot ?? [];
    if (!Array.isArray(saved)) throw new Error('not a list of predictions');
    const restored = saved.slice(-MAX_PREDICTIONS).map(restoredPrediction);
    this.predictions.clear();
    for (const prediction of restored) this.predictions.set(prediction.id, prediction);
  }

  onChange(listener: () => void): () => void {
    return this.changes.onChange(listener);
  }

  /** Predictions not yet ended and not abandoned: what the concurrency cap counts. */
  inFlight(): number {
    const now = this.now();
    let count = 0;
    for (const p of this.predictions.values())
      if (!TERMINAL.has(p.stage) && now - p.createdAt < ABANDONED_AFTER_MS) count++;
    return count;
  }

  /** A new prediction, or undefined when the concurrency cap is reached. */
  create(
    modelName: string,
    model: FakeModel,
    inputs: Record<string, unknown>,
    webhookUrl?: string,
  ): Prediction | undefined {
    if (this.inFlight() >= this.concurrency) return undefined;
    this.forgetExpired();
    const polls = Number(directive(inputs, 'polls') ?? DEFAULT_POLLS);
    const prediction: Prediction = {
      id: randomUUID(),
      modelName,
      model,
      inputs,
      createdAt: this.now(),
      ...(webhookUrl ? { webhookUrl } : {}),
      polls: Number.isInteger(polls) && polls >= 0 ? Math.min(polls, MAX_POLLS) : DEFAULT_POLLS,
      end: endOf(model, inputs),
      reportCredits: directive(inputs, 'credits') !== 'none',
      polled: 0,
      stage: 'starting',
    };
    this.predictions.set(prediction.id, prediction);
    this.changes.notify();
    return prediction;
  }

  /** One status poll: advances the walk; undefined for an unknown or expired prediction. */
  poll(id: string): Prediction | undefined {
    const prediction = this.predictions.get(id);
    if (!prediction || this.expired(prediction)) return undefined;
    if (TERMINAL.has(prediction.stage)) return prediction;
    prediction.polled++;
    if (prediction.polled > prediction.polls) {
      prediction.stage = prediction.end.stage;
      prediction.endedAt = this.now();
    } else {
      prediction.stage =
        RUNNING[Math.min(2, Math.floor(((prediction.polled - 1) * 3) / Math.max(1, prediction.polls)))]!;
    }
    this.changes.notify();
    return prediction;
  }

  /** The model of a known prediction, without polling it (faults scoped to a model). */
  peekModel(id: string): string | undefined {
    return this.predictions.get(id)?.modelName;
  }

  /** A completed prediction whose outputs are still served (output files). */
  servable(id: string): Prediction | undefined {
    const prediction = this.predictions.get(id);
    return prediction?.stage === 'completed' && !this.expired(prediction) ? prediction : undefined;
  }

  private expired(prediction: Prediction): boolean {
    if (prediction.endedAt === undefined) return false;
    const retention = prediction.inputs['return_base64'] === true ? BASE64_RETENTION_MS : CDN_RETENTION_MS;
    return this.now() - prediction.endedAt >= retention;
  }

  private forgetExpired(): void {
    if (this.predictions.size < MAX_PREDICTIONS) return;
    for (const [id, p] of this.predictions)
      if (this.expired(p) || this.predictions.size >= MAX_PREDICTIONS) this.predictions.delete(id);
  }
}

function storedInputs(inputs: Readonly<Record<string, unknown>>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(inputs).map(([field, value]) => [
      field,
      typeof value === 'string' && value.length > MAX_STORED_INPUT_CHARS ? `(${value.length} characters)` : value,
    ]),
  );
}

function restoredPrediction(value: unknown): Prediction {
  const stored = value as Partial<StoredPrediction> | null;
  const model = fakeModelOf(stored?.modelName);
  if (
    !model ||
    typeof stored?.id !== 'string' ||
    typeof stored.inputs !== 'object' ||
    stored.inputs === null ||
    typeof stored.createdAt !== 'number' ||
    typeof stored.polls !== 'number' ||
    typeof stored.polled !== 'number' ||
    typeof stored.stage !== 'string' ||
    typeof stored.end?.stage !== 'string'
  )
    throw new Error('not a prediction');
  return { ...(stored as StoredPrediction), model };
}

function endOf(model: FakeModel, inputs: Readonly<Record<string, unknown>>): Prediction['end'] {
  const unprefixed = model.images.find((field) => {
    const value = inputs[field];
    return typeof value === 'string' && !value.startsWith('data:') && !/^https?:\/\//.test(value);
  });
  if (unprefixed)
    return failure(
      'ImageLoadError',
      `Error loading ${unprefixed.replace('_', ' ')}: base64 image without its data: prefix`,
    );
  const failWith = directive(inputs, 'fail');
  if (failWith) return failure(failWith, RUNTIME_MESSAGES[failWith]);
  const end = directive(inputs, 'end');
  if (end === 'canceled' || end === 'time_out') return { stage: end };
  return { stage: 'completed' };
}

const failure = (name: string, message = `prediction failed: ${name}`): Prediction['end'] => ({
  stage: 'failed',
  error: { name, message },
});

export const isTerminal = (stage: Stage) => TERMINAL.has(stage);
