/**
 * The FASHN fake's own view of the models (docs/upstreams.md §7.3 and docs/interface.md §4.10), kept apart from
 * the gateway's table on purpose: the fake states what the upstream does, so a mistake in the
 * gateway's table shows up against it. `edit` is the upstream's too (the gateway offers ten).
 */
export interface FakeModel {
  readonly required: readonly string[];
  /** Inputs the fake tries to load as images (a bare base64 string fails with ImageLoadError). */
  readonly images: readonly string[];
  readonly credits: number;
  /** Credits per output when `face_reference` is given. */
  readonly faceCredits?: number;
  readonly countInput?: 'num_samples' | 'num_images';
  readonly video?: boolean;
  readonly defaultFormat?: 'png' | 'jpeg';
}

export const FAKE_MODELS: Readonly<Record<string, FakeModel>> = {
  'tryon-v1.6': {
    required: ['model_image', 'garment_image'],
    images: ['model_image', 'garment_image'],
    credits: 3,
    countInput: 'num_samples',
  },
  'product-to-model': {
    required: ['product_image'],
    images: ['product_image', 'model_image', 'face_reference', 'image_prompt'],
    credits: 3,
    faceCredits: 5,
    countInput: 'num_images',
  },
  'face-to-model': { required: ['face_image'], images: ['face_image'], credits: 3, defaultFormat: 'jpeg' },
  'model-create': {
    required: ['prompt'],
    images: ['image_reference', 'face_reference'],
    credits: 3,
    faceCredits: 5,
    countInput: 'num_images',
  },
  'model-variation': { required: ['model_image'], images: ['model_image'], credits: 3 },
  'model-swap': {
    required: ['model_image'],
    images: ['model_image', 'face_reference'],
    credits: 3,
    faceCredits: 5,
    countInput: 'num_images',
  },
  reframe: { required: ['image'], images: ['image'], credits: 2, countInput: 'num_images' },
  'background-change': { required: ['image', 'prompt'], images: ['image'], credits: 2 },
  'background-remove': { required: ['image'], images: ['image'], credits: 2 },
  'image-to-video': { required: ['image'], images: ['image'], credits: 5, video: true },
  edit: { required: ['image', 'prompt'], images: ['image'], credits: 2 },
};

export const fakeModelOf = (name: unknown): FakeModel | undefined =>
  typeof name === 'string' && Object.hasOwn(FAKE_MODELS, name) ? FAKE_MODELS[name] : undefined;
