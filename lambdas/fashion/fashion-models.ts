/**
 * The ten FASHN models the gateway offers (docs/interface.md §4.10), as data: each model's inputs with their
 * type and rule, its base credits, the input that makes it a face-reference run (5 credits
 * instead of 3), and the input that multiplies the credits. Validation (fashion-request.ts) and
 * credits (credits.ts) read this table; no code branches on a model's name.
 */

export type InputSpec =
  /** A public http(s) URL or a `data:image/...;base64,` URI (fashion-images.ts). */
  | { readonly type: 'image' }
  | { readonly type: 'text'; readonly maxChars: number }
  | { readonly type: 'enum'; readonly values: readonly string[] }
  | { readonly type: 'integer'; readonly min: number; readonly max: number }
  | { readonly type: 'integer_choice'; readonly values: readonly number[] }
  | { readonly type: 'boolean' }
  /** A public http(s) URL of a `.safetensors` weights file. */
  | { readonly type: 'lora_url' };

export interface FashionModel {
  readonly name: string;
  readonly required: readonly string[];
  readonly inputs: Readonly<Record<string, InputSpec>>;
  readonly baseCredits: number;
  /** Present on a run, the credits per output are `faceReferenceCredits` instead of the base. */
  readonly faceReference?: { readonly input: string; readonly credits: number };
  /** The input whose value multiplies the credits (outputs per run). */
  readonly multiplier?: string;
  /** True when outputs are videos (MP4) rather than images. */
  readonly video?: boolean;
}

/** Longest prompt accepted, as the video prompt's (docs/interface.md §8): bounded input, whatever the model. */
export const MAX_PROMPT_CHARS = 2_000;
/** `num_samples` / `num_images`: 1 to 4 (docs/interface.md §8). */
export const MAX_OUTPUTS_PER_RUN = 4;
export const MAX_SEED = 2 ** 32 - 1;

const image: InputSpec = { type: 'image' };
const text: InputSpec = { type: 'text', maxChars: MAX_PROMPT_CHARS };
const bool: InputSpec = { type: 'boolean' };
const oneOf = (...values: string[]): InputSpec => ({ type: 'enum', values });
const outputs: InputSpec = { type: 'integer', min: 1, max: MAX_OUTPUTS_PER_RUN };
const loraUrl: InputSpec = { type: 'lora_url' };

/** What most image models share: a seed, the output format and base64 outputs. */
const IMAGE_OUTPUT = {
  seed: { type: 'integer', min: 0, max: MAX_SEED },
  output_format: oneOf('png', 'jpeg'),
  return_base64: bool,
} as const satisfies Record<string, InputSpec>;

const NINE_ASPECT_RATIOS = oneOf('1:1', '2:3', '3:4', '4:5', '5:4', '4:3', '3:2', '16:9', '9:16');

/** A face reference costs 5 credits instead of 3 (docs/interface.md §4.10) on the models that take one. */
const FACE_REFERENCE = { input: 'face_reference', credits: 5 } as const;

const MODELS: readonly FashionModel[] = [
  {
    name: 'tryon-v1.6',
    required: ['model_image', 'garment_image'],
    inputs: {
      model_image: image,
      garment_image: image,
      category: oneOf('auto', 'tops', 'bottoms', 'one-pieces'),
      mode: oneOf('performance', 'balanced', 'quality'),
      garment_photo_type: oneOf('auto', 'flat-lay', 'model'),
      moderation_level: oneOf('conservative', 'permissive', 'none'),
      num_samples: outputs,
      segmentation_free: bool,
      ...IMAGE_OUTPUT,
    },
    baseCredits: 3,
    multiplier: 'num_samples',
  },
  {
    name: 'product-to-model',
    required: ['product_image'],
    inputs: {
      product_image: image,
      model_image: image,
      face_reference: image,
      image_prompt: image,
      prompt: text,
      aspect_ratio: NINE_ASPECT_RATIOS,
      resolution: oneOf('1k', '4k'),
      num_images: outputs,
      ...IMAGE_OUTPUT,
    },
    baseCredits: 3,
    faceReference: FACE_REFERENCE,
    multiplier: 'num_images',
  },
  {
    name: 'face-to-model',
    required: ['face_image'],
    inputs: {
      face_image: image,
      prompt: text,
      aspect_ratio: oneOf('1:1', '4:5', '3:4', '2:3', '9:16'),
      ...IMAGE_OUTPUT,
    },
    baseCredits: 3,
  },
  {
    name: 'model-create',
    required: ['prompt'],
    inputs: {
      prompt: text,
      image_reference: image,
      reference_type: oneOf('pose', 'silhouette'),
      face_reference: image,
      aspect_ratio: NINE_ASPECT_RATIOS,
      lora_url: loraUrl,
      disable_prompt_enhancement: bool,
      num_images: outputs,
      ...IMAGE_OUTPUT,
    },
    baseCredits: 3,
    faceReference: FACE_REFERENCE,
    multiplier: 'num_images',
  },
  {
    name: 'model-variation',
    required: ['model_image'],
    inputs: { model_image: image, variation_strength: oneOf('subtle', 'strong'), lora_url: loraUrl, ...IMAGE_OUTPUT },
    baseCredits: 3,
  },
  {
    name: 'model-swap',
    required: ['model_image'],
    inputs: {
      model_image: image,
      face_reference: image,
      prompt: text,
      background_change: bool,
      disable_prompt_enhancement: bool,
      lora_url: loraUrl,
      num_images: outputs,
      ...IMAGE_OUTPUT,
    },
    baseCredits: 3,
    faceReference: FACE_REFERENCE,
    multiplier: 'num_images',
  },
  {
    name: 'reframe',
    required: ['image'],
    inputs: {
      image,
      mode: oneOf('direction', 'aspect_ratio'),
      target_aspect_ratio: oneOf('1:1', '2:3', '3:2', '3:4', '4:3', '4:5', '5:4', '9:16', '16:9'),
      target_direction: oneOf('both', 'down', 'up'),
      num_images: outputs,
      ...IMAGE_OUTPUT,
    },
    baseCredits: 2,
    multiplier: 'num_images',
  },
  {
    name: 'background-change',
    required: ['image', 'prompt'],
    inputs: { image, prompt: text, disable_prompt_enhancement: bool, ...IMAGE_OUTPUT },
    baseCredits: 2,
  },
  {
    name: 'background-remove',
    required: ['image'],
    inputs: { image, return_base64: bool },
    baseCredits: 2,
  },
  {
    name: 'image-to-video',
    required: ['image'],
    inputs: {
      image,
      prompt: text,
      negative_prompt: text,
      duration: { type: 'integer_choice', values: [5, 10] },
      resolution: oneOf('480p', '720p', '1080p'),
    },
    baseCredits: 5,
    video: true,
  },
];

export const FASHION_MODELS: Readonly<Record<string, FashionModel>> = Object.freeze(
  Object.fromEntries(MODELS.map((model) => [model.name, model])),
);

export const FASHION_MODEL_NAMES: readonly string[] = MODELS.map((model) => model.name);

export function fashionModelOf(name: string): FashionModel | undefined {
  return Object.hasOwn(FASHION_MODELS, name) ? FASHION_MODELS[name] : undefined;
}
