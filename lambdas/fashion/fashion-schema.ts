import { compileConditional } from '../schema/compile.js';
import { webhookUrlSchema } from '../jobs/webhook-url.js';
import { MAX_DATA_URI_CHARS, MAX_IMAGE_URL_CHARS } from './fashion-images.js';
import { FASHION_MODEL_NAMES, FASHION_MODELS, type FashionModel, type InputSpec } from './fashion-models.js';

/**
 * The body of run and subscribe as a JSON schema, generated from the model table
 * (fashion-models.ts), so the handlers' validator and the OpenAPI document say exactly what the
 * table says: `model_name` one of the ten, and per model its inputs, which are required, and
 * each input's type, enum or range. `model_name` picks the model's branch of `oneOf` (ajv's
 * `discriminator`, lambdas/schema/compile.ts): only that branch is checked, and client
 * generators type each model's `inputs` apart. What a schema cannot say (an image URL's host
 * must be public) parseFashionRequest checks after it.
 */

export interface FashionRequestBody {
  model_name: string;
  inputs: Record<string, unknown>;
  webhook_url?: string;
}

const INPUT_SCHEMAS: { readonly [T in InputSpec['type']]: (spec: Extract<InputSpec, { type: T }>) => object } = {
  image: () => ({
    type: 'string',
    minLength: 1,
    maxLength: MAX_DATA_URI_CHARS,
    description: 'A public http(s) URL, or a data:image/<type>;base64, URI',
    'x-message': {
      minLength: 'must be a non-empty string',
      maxLength: `must be at most ${MAX_DATA_URI_CHARS} characters`,
    },
  }),
  text: (spec) => ({
    type: 'string',
    minLength: 1,
    maxLength: spec.maxChars,
    'x-message': { minLength: 'must be a non-empty string', maxLength: `must be at most ${spec.maxChars} characters` },
  }),
  enum: (spec) => ({ type: 'string', enum: [...spec.values] }),
  integer: (spec) => ({
    type: 'integer',
    minimum: spec.min,
    maximum: spec.max,
    'x-message': `must be an integer from ${spec.min} to ${spec.max}`,
  }),
  integer_choice: (spec) => ({ type: 'integer', enum: [...spec.values] }),
  boolean: () => ({ type: 'boolean' }),
  lora_url: () => ({
    type: 'string',
    minLength: 1,
    maxLength: MAX_IMAGE_URL_CHARS,
    description: 'A public http(s) URL of a .safetensors weights file (at most 256 MB)',
  }),
};

const inputSchema = (spec: InputSpec): object => (INPUT_SCHEMAS[spec.type] as (spec: InputSpec) => object)(spec);

function modelBody(model: FashionModel): object {
  return {
    required: ['model_name', 'inputs'],
    properties: {
      model_name: { const: model.name },
      inputs: {
        type: 'object',
        required: [...model.required],
        additionalProperties: false,
        properties: Object.fromEntries(Object.entries(model.inputs).map(([name, spec]) => [name, inputSchema(spec)])),
      },
    },
  };
}

export const fashionRequestSchema = {
  type: 'object',
  required: ['model_name', 'inputs'],
  additionalProperties: false,
  properties: {
    model_name: { type: 'string', enum: [...FASHION_MODEL_NAMES] },
    // Only named here (additionalProperties): its shape is the model's branch's.
    inputs: { description: "The model's inputs (docs/interface.md §4.10)" },
    webhook_url: webhookUrlSchema,
  },
  discriminator: { propertyName: 'model_name' },
  oneOf: FASHION_MODEL_NAMES.map((name) => modelBody(FASHION_MODELS[name]!)),
};

export const fashionRequestValidator = compileConditional<FashionRequestBody>(fashionRequestSchema);
