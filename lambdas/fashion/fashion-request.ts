import { exceedsCharacters, leadingCharacters } from '../schema/text-length.js';
import { invalidFashion } from './fashion-errors.js';
import { checkWebhookUrl } from '../jobs/webhook-url.js';
import { imageInputKind, publicUrl } from './fashion-images.js';
import { FASHION_MODEL_NAMES, fashionModelOf, type FashionModel, type InputSpec } from './fashion-models.js';

/** The body of run and subscribe (docs/interface.md §4.10), checked against the model's row of the table. */
export interface FashionRequest {
  readonly model: FashionModel;
  /** Exactly the inputs the caller sent, each checked: what the upstream receives. */
  readonly inputs: Readonly<Record<string, string | number | boolean>>;
  /** Where the job's end is sent (docs/interface.md §6.4); checked by lambdas/jobs/webhook-url.ts. */
  readonly webhookUrl?: string;
}

const BODY_FIELDS = new Set(['model_name', 'inputs', 'webhook_url']);

/** The local runtime's test receivers a webhook URL may name (configuration `localWebhookReceivers`). */
export interface FashionRequestOptions {
  readonly webhookReceivers?: readonly string[];
}

/**
 * Throws FashionError(`invalid_request`) naming the field for anything the table refuses:
 * unknown model, missing required input, wrong type, value outside its enum or range, and
 * input fields the model does not take (refused rather than dropped: a misspelt
 * `num_sample` would otherwise silently run, and be charged, once).
 */
export function parseFashionRequest(body: unknown, options: FashionRequestOptions = {}): FashionRequest {
  if (!isRecord(body)) throw invalidFashion('body', 'must be a JSON object with model_name and inputs');
  const extra = Object.keys(body).find((field) => !BODY_FIELDS.has(field));
  if (extra !== undefined) throw invalidFashion(fieldName('', extra), 'is not a known field');
  const modelName = body['model_name'];
  if (modelName === undefined) throw invalidFashion('model_name', 'is required');
  const model = typeof modelName === 'string' ? fashionModelOf(modelName) : undefined;
  if (!model) throw invalidFashion('model_name', `must be one of ${FASHION_MODEL_NAMES.join(', ')}`);
  const inputs = body['inputs'];
  if (inputs === undefined) throw invalidFashion('inputs', 'is required');
  if (!isRecord(inputs)) throw invalidFashion('inputs', 'must be an object');
  for (const name of model.required) {
    if (inputs[name] === undefined || inputs[name] === null)
      throw invalidFashion(`inputs.${name}`, `is required for ${model.name}`);
  }
  const checked: Record<string, string | number | boolean> = {};
  for (const [name, value] of Object.entries(inputs)) {
    const spec = Object.hasOwn(model.inputs, name) ? model.inputs[name] : undefined;
    const field = fieldName('inputs.', name);
    if (!spec) throw invalidFashion(field, `is not an input of ${model.name}`);
    if (value === null) continue;
    checked[name] = checkInput(field, spec, value);
  }
  if (body['webhook_url'] === undefined) return { model, inputs: checked };
  const webhook = checkWebhookUrl(body['webhook_url'], options.webhookReceivers ?? []);
  if (!webhook.ok) throw invalidFashion('webhook_url', webhook.message);
  return { model, inputs: checked, webhookUrl: webhook.url };
}

function checkInput(field: string, spec: InputSpec, value: unknown): string | number | boolean {
  switch (spec.type) {
    case 'image':
      imageInputKind(field, stringValue(field, value));
      return value as string;
    case 'text': {
      const text = stringValue(field, value);
      if (exceedsCharacters(text, spec.maxChars))
        throw invalidFashion(field, `must be at most ${spec.maxChars} characters`);
      return text;
    }
    case 'enum':
      if (typeof value !== 'string' || !spec.values.includes(value))
        throw invalidFashion(field, `must be one of ${spec.values.join(', ')}`);
      return value;
    case 'integer':
      if (!Number.isInteger(value) || (value as number) < spec.min || (value as number) > spec.max)
        throw invalidFashion(field, `must be an integer from ${spec.min} to ${spec.max}`);
      return value as number;
    case 'integer_choice':
      if (!spec.values.includes(value as number))
        throw invalidFashion(field, `must be one of ${spec.values.join(', ')}`);
      return value as number;
    case 'boolean':
      if (typeof value !== 'boolean') throw invalidFashion(field, 'must be true or false');
      return value;
    case 'lora_url': {
      const rule = 'must be a public http(s) URL of a .safetensors file';
      const url = publicUrl(field, stringValue(field, value), rule);
      if (!url.pathname.endsWith('.safetensors')) throw invalidFashion(field, rule);
      return value as string;
    }
  }
}

function stringValue(field: string, value: unknown): string {
  if (typeof value !== 'string' || value.length === 0) throw invalidFashion(field, 'must be a non-empty string');
  return value;
}

/** Upstream prediction ids are UUID-like; anything else never reaches the upstream's path. */
const PREDICTION_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/;

export function parsePredictionId(id: unknown): string {
  if (typeof id !== 'string' || !PREDICTION_ID.test(id))
    throw invalidFashion('id', 'must be a prediction id (letters, digits, - and _, at most 128)');
  return id;
}

/** An unknown field's name as the caller wrote it, cut short so a huge key cannot flood the message. */
const fieldName = (prefix: string, name: string) =>
  `${prefix}${exceedsCharacters(name, 64) ? `${leadingCharacters(name, 64)}…` : name}`;

const isRecord = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);
