import fc from 'fast-check';
import { FashionError } from '../../../lambdas/fashion/fashion-errors.js';
import { checkFashionHosts, MAX_DATA_URI_CHARS } from '../../../lambdas/fashion/fashion-images.js';
import { FASHION_MODEL_NAMES, FASHION_MODELS } from '../../../lambdas/fashion/fashion-models.js';
import { parseFashionRequest, parsePredictionId } from '../../../lambdas/fashion/fashion-request.js';
import type { HostLookup } from '../../../lambdas/schema/public-url.js';

/** Every rule of docs/interface.md §4.10 refused with a domain error naming the field; valid bodies pass unchanged. */
const IMG = 'https://images.example.com/a.jpg';
const DATA = `data:image/png;base64,${'iVBORw0KGgo'.padEnd(64, 'A')}`;

/** A minimal valid body per model: its required inputs. */
const MINIMAL: Readonly<Record<string, Record<string, unknown>>> = {
  'tryon-v1.6': { model_image: IMG, garment_image: IMG },
  'product-to-model': { product_image: IMG },
  'face-to-model': { face_image: IMG },
  'model-create': { prompt: 'a model in a studio' },
  'model-variation': { model_image: IMG },
  'model-swap': { model_image: IMG },
  reframe: { image: IMG },
  'background-change': { image: IMG, prompt: 'a beach' },
  'background-remove': { image: IMG },
  'image-to-video': { image: IMG },
};

const body = (model: string, inputs: Record<string, unknown> = {}) => ({
  model_name: model,
  inputs: { ...MINIMAL[model], ...inputs },
});

function refusal(input: unknown): { field?: string; message: string } {
  try {
    parseFashionRequest(input);
  } catch (error) {
    expect(error).toBeInstanceOf(FashionError);
    const e = error as FashionError;
    expect(e.kind).toBe('invalid_request');
    expect(e.message.startsWith(`${e.details.field}: `)).toBe(true);
    return { field: e.details.field, message: e.message };
  }
  throw new Error(`accepted: ${JSON.stringify(input).slice(0, 200)}`);
}

test('the table covers exactly the ten models of docs/interface.md §4.10', () => {
  expect([...FASHION_MODEL_NAMES].sort()).toEqual(Object.keys(MINIMAL).sort());
});

test.each(Object.keys(MINIMAL))('%s: its required inputs alone pass, unchanged', (model) => {
  expect(parseFashionRequest(body(model))).toEqual({ model: FASHION_MODELS[model], inputs: MINIMAL[model] });
});

test.each(Object.entries(MINIMAL).flatMap(([model, inputs]) => Object.keys(inputs).map((field) => [model, field])))(
  '%s without %s: 400 naming inputs.%s',
  (model, field) => {
    const inputs = { ...MINIMAL[model] };
    delete inputs[field];
    expect(refusal({ model_name: model, inputs }).field).toBe(`inputs.${field}`);
  },
);

test('model_name: missing, unknown, or not a string', () => {
  expect(refusal({ inputs: {} })).toEqual({ field: 'model_name', message: 'model_name: is required' });
  expect(refusal({ model_name: 'tryon-v1.5', inputs: {} }).message).toMatch(/must be one of tryon-v1\.6, /);
  expect(refusal({ model_name: 7, inputs: {} }).field).toBe('model_name');
  expect(refusal({ model_name: 'edit', inputs: {} }).field).toBe('model_name');
});

test('inputs: missing or not an object; the body must be an object without unknown fields', () => {
  expect(refusal({ model_name: 'reframe' }).field).toBe('inputs');
  expect(refusal({ model_name: 'reframe', inputs: [IMG] }).field).toBe('inputs');
  expect(refusal({ model_name: 'reframe', inputs: 'x' }).field).toBe('inputs');
  expect(refusal([]).field).toBe('body');
  expect(refusal(null).field).toBe('body');
  expect(refusal({ ...body('reframe'), callback_url: IMG }).field).toBe('callback_url');
});

test('webhook_url: a public https URL (docs/interface.md §6.4), kept on the request', () => {
  const hook = 'https://hooks.example.com/fashion';
  expect(parseFashionRequest({ ...body('reframe'), webhook_url: hook }).webhookUrl).toBe(hook);
  for (const url of ['http://hooks.example.com/a', 'https://10.0.0.1/a', 'https://localhost/a', 7]) {
    expect(refusal({ ...body('reframe'), webhook_url: url })).toEqual({
      field: 'webhook_url',
      message: expect.stringMatching(/^webhook_url: must be a public https URL/),
    });
  }
});

test('an input the model does not take is refused, naming it', () => {
  expect(refusal(body('tryon-v1.6', { num_sample: 2 })).field).toBe('inputs.num_sample');
  expect(refusal(body('background-remove', { seed: 1 })).field).toBe('inputs.seed');
  expect(refusal(body('face-to-model', { num_images: 2 })).field).toBe('inputs.num_images');
});

/** Every enum of 4.10: [model, field, a valid value]; an unknown value is refused naming the field. */
const ENUMS: readonly [string, string, string][] = [
  ['tryon-v1.6', 'category', 'one-pieces'],
  ['tryon-v1.6', 'mode', 'quality'],
  ['tryon-v1.6', 'garment_photo_type', 'flat-lay'],
  ['tryon-v1.6', 'moderation_level', 'permissive'],
  ['tryon-v1.6', 'output_format', 'jpeg'],
  ['product-to-model', 'aspect_ratio', '16:9'],
  ['product-to-model', 'resolution', '4k'],
  ['product-to-model', 'output_format', 'png'],
  ['face-to-model', 'aspect_ratio', '2:3'],
  ['face-to-model', 'output_format', 'jpeg'],
  ['model-create', 'reference_type', 'silhouette'],
  ['model-create', 'aspect_ratio', '5:4'],
  ['model-create', 'output_format', 'png'],
  ['model-variation', 'variation_strength', 'strong'],
  ['model-variation', 'output_format', 'jpeg'],
  ['model-swap', 'output_format', 'jpeg'],
  ['reframe', 'mode', 'direction'],
  ['reframe', 'target_aspect_ratio', '9:16'],
  ['reframe', 'target_direction', 'down'],
  ['reframe', 'output_format', 'png'],
  ['background-change', 'output_format', 'jpeg'],
  ['image-to-video', 'resolution', '720p'],
];

test.each(ENUMS)('%s %s: %s passes; an unknown value is refused', (model, field, valid) => {
  expect(parseFashionRequest(body(model, { [field]: valid })).inputs[field]).toBe(valid);
  const refused = refusal(body(model, { [field]: 'webp' }));
  expect(refused.field).toBe(`inputs.${field}`);
  expect(refused.message).toContain(valid);
  expect(refusal(body(model, { [field]: 3 })).field).toBe(`inputs.${field}`);
});

test("face-to-model's aspect ratios are its five, not product-to-model's nine", () => {
  expect(refusal(body('face-to-model', { aspect_ratio: '16:9' })).field).toBe('inputs.aspect_ratio');
});

test.each([
  ['tryon-v1.6', 'num_samples'],
  ['product-to-model', 'num_images'],
  ['model-create', 'num_images'],
  ['model-swap', 'num_images'],
  ['reframe', 'num_images'],
])('%s %s: 1 to 4', (model, field) => {
  for (const ok of [1, 4]) expect(parseFashionRequest(body(model, { [field]: ok })).inputs[field]).toBe(ok);
  for (const bad of [0, 5, 2.5, '2', -1]) {
    expect(refusal(body(model, { [field]: bad }))).toEqual({
      field: `inputs.${field}`,
      message: `inputs.${field}: must be an integer from 1 to 4`,
    });
  }
});

test.each(FASHION_MODEL_NAMES.filter((m) => FASHION_MODELS[m]!.inputs['seed']))('%s seed: 0 to 2^32-1', (model) => {
  for (const ok of [0, 2 ** 32 - 1]) expect(parseFashionRequest(body(model, { seed: ok })).inputs['seed']).toBe(ok);
  for (const bad of [-1, 2 ** 32, 1.5, '42']) expect(refusal(body(model, { seed: bad })).field).toBe('inputs.seed');
});

test('image-to-video duration: 5 or 10', () => {
  expect(parseFashionRequest(body('image-to-video', { duration: 10 })).inputs['duration']).toBe(10);
  for (const bad of [7, 0, '5', 5.5]) {
    expect(refusal(body('image-to-video', { duration: bad }))).toEqual({
      field: 'inputs.duration',
      message: 'inputs.duration: must be one of 5, 10',
    });
  }
});

test.each([
  ['tryon-v1.6', 'segmentation_free'],
  ['tryon-v1.6', 'return_base64'],
  ['model-create', 'disable_prompt_enhancement'],
  ['model-swap', 'background_change'],
  ['background-remove', 'return_base64'],
])('%s %s: a boolean', (model, field) => {
  expect(parseFashionRequest(body(model, { [field]: false })).inputs[field]).toBe(false);
  expect(refusal(body(model, { [field]: 'true' })).field).toBe(`inputs.${field}`);
});

test('text inputs: strings of at most 2,000 characters', () => {
  expect(refusal(body('model-create', { prompt: 'x'.repeat(2_001) })).field).toBe('inputs.prompt');
  expect(refusal(body('model-create', { prompt: '' })).field).toBe('inputs.prompt');
  expect(refusal(body('image-to-video', { negative_prompt: 5 })).field).toBe('inputs.negative_prompt');
});

/** Every image input of every model. */
const IMAGE_FIELDS = FASHION_MODEL_NAMES.flatMap((model) =>
  Object.entries(FASHION_MODELS[model]!.inputs)
    .filter(([, spec]) => spec.type === 'image')
    .map(([field]) => [model, field] as const),
);

test.each(IMAGE_FIELDS)('%s %s: a public http(s) URL or a prefixed data URI', (model, field) => {
  for (const good of [IMG, 'http://images.example.com/a.jpg', 'https://93.184.216.34/a.jpg', DATA])
    expect(parseFashionRequest(body(model, { [field]: good })).inputs[field]).toBe(good);
  for (const bad of [
    'ftp://images.example.com/a.jpg',
    'https://localhost/a.jpg',
    'https://127.0.0.1/a.jpg',
    'https://10.0.0.8/a.jpg',
    'https://192.168.1.2/a.jpg',
    'https://169.254.169.254/latest/meta-data',
    'https://[::1]/a.jpg',
    'https://[fd00::1]/a.jpg',
    'https://[::ffff:127.0.0.1]/a.jpg',
    'https://localhost./a.jpg',
    'https://[::127.0.0.1]/a.jpg',
    'https://[64:ff9b::a9fe:a9fe]/a.jpg',
    'https://[2002:7f00:1::]/a.jpg',
    'https://127.0.0.1.nip.io/a.jpg',
    'http://2130706433/a.jpg',
    'https://intranet/a.jpg',
    'https://files.corp.internal/a.jpg',
    'https://user:pw@images.example.com/a.jpg',
    `https://images.example.com/${'a'.repeat(2_100)}`,
    'not a url',
    'data:text/plain;base64,aGVsbG8=',
    'data:image/png,rawbytes',
    'data:image/png;base64,not base64!',
    `data:image/png;base64,${'A'.repeat(MAX_DATA_URI_CHARS)}`,
    '',
    42,
  ]) {
    expect(refusal(body(model, { [field]: bad })).field).toBe(`inputs.${field}`);
  }
});

test('base64 without its data: prefix passes through, for the upstream to fail as ImageLoadError', () => {
  const bare = 'iVBORw0KGgo'.padEnd(120, 'A');
  expect(parseFashionRequest(body('reframe', { image: bare })).inputs['image']).toBe(bare);
});

test('lora_url: a public http(s) URL of a .safetensors file', () => {
  for (const lora of ['https://weights.example.com/style.safetensors', 'http://weights.example.com/a.safetensors'])
    expect(parseFashionRequest(body('model-variation', { lora_url: lora })).inputs['lora_url']).toBe(lora);
  for (const bad of [
    'https://weights.example.com/style.bin',
    'http://169.254.169.254/latest/a.safetensors',
    'https://[::1]/a.safetensors',
    'https://weights.internal/a.safetensors',
    DATA,
  ]) {
    expect(refusal(body('model-create', { lora_url: bad })).field).toBe('inputs.lora_url');
  }
});

test('a refused URL says the rule and why', () => {
  expect(refusal(body('reframe', { image: 'https://169.254.169.254/a.jpg' })).message).toBe(
    'inputs.image: must be a public http(s) URL or a data:image/<type>;base64, URI ' +
      '(the host 169.254.169.254 is a cloud metadata address)',
  );
});

describe('resolving the URL inputs’ host names (checkFashionHosts)', () => {
  const lookup = (table: Record<string, readonly string[]>) => {
    const asked: string[] = [];
    const resolve: HostLookup = async (name) => {
      asked.push(name);
      if (!table[name]) throw new Error(`getaddrinfo ENOTFOUND ${name}`);
      return table[name];
    };
    return { resolve, asked };
  };
  const check = async (input: unknown, resolve: HostLookup) => {
    try {
      await checkFashionHosts(parseFashionRequest(input), { lookup: resolve });
    } catch (error) {
      expect(error).toBeInstanceOf(FashionError);
      return (error as FashionError).message;
    }
    return undefined;
  };

  test('an input whose name resolves to a private address is refused, naming it', async () => {
    const { resolve } = lookup({ 'images.example.com': ['93.184.216.34'], 'evil.example.com': ['10.0.0.1'] });
    const input = body('tryon-v1.6', { garment_image: 'https://evil.example.com/g.jpg' });
    expect(await check(input, resolve)).toBe(
      'inputs.garment_image: must be a public http(s) URL ' +
        '(the host evil.example.com resolves to 10.0.0.1, which is a private address)',
    );
  });

  test('the LoRA URL is resolved too', async () => {
    const { resolve } = lookup({ 'weights.example.com': ['::1'] });
    const input = body('model-create', { lora_url: 'https://weights.example.com/a.safetensors' });
    expect(await check(input, resolve)).toMatch(/^inputs\.lora_url: .*resolves to ::1, which is a loopback address/);
  });

  test('public, unresolvable, address and data: inputs pass; only names are looked up, once each', async () => {
    const { resolve, asked } = lookup({ 'images.example.com': ['93.184.216.34'] });
    const input = body('tryon-v1.6', {
      model_image: IMG,
      garment_image: 'https://nowhere.example.com/g.jpg',
    });
    expect(await check(input, resolve)).toBeUndefined();
    expect(await check(body('reframe', { image: DATA }), resolve)).toBeUndefined();
    expect(await check(body('reframe', { image: 'https://93.184.216.34/a.jpg' }), resolve)).toBeUndefined();
    expect(asked.sort()).toEqual(['images.example.com', 'nowhere.example.com']);
  });
});

test('a null optional input counts as absent; a null required one as missing', () => {
  expect(parseFashionRequest(body('reframe', { seed: null })).inputs).toEqual({ image: IMG });
  expect(refusal(body('reframe', { image: null })).field).toBe('inputs.image');
});

test('an unknown field name is cut short in the message', () => {
  const { field } = refusal(body('reframe', { ['k'.repeat(10_000)]: 1 }));
  expect(field!.length).toBeLessThan(80);
});

test('prediction ids: letters, digits, - and _', () => {
  expect(parsePredictionId('7b1f2c3d-4e5f-4a6b-9c8d-simpred0001-u1')).toBe('7b1f2c3d-4e5f-4a6b-9c8d-simpred0001-u1');
  for (const bad of ['', '../run', 'a/b', 'a'.repeat(200), 5, '%2e%2e']) {
    expect(() => parsePredictionId(bad)).toThrow(expect.objectContaining({ kind: 'invalid_request' }));
  }
});

test('over arbitrary JSON, parseFashionRequest throws nothing but the validation error', () => {
  const image = fc.oneof(
    fc.constant(IMG),
    fc.constant(DATA),
    fc.webUrl(),
    fc.string(),
    fc.base64String({ minLength: 60 }),
  );
  const inputs = fc.dictionary(
    fc.oneof(
      fc.constantFrom(...new Set(IMAGE_FIELDS.map(([, f]) => f)), 'prompt', 'seed', 'num_samples', 'duration'),
      fc.string(),
    ),
    fc.oneof(image, fc.jsonValue()),
  );
  const bodies = fc.oneof(
    fc.jsonValue(),
    fc.record({ model_name: fc.oneof(fc.constantFrom(...FASHION_MODEL_NAMES), fc.string()), inputs }),
    fc.record({ model_name: fc.constantFrom(...FASHION_MODEL_NAMES), inputs: fc.jsonValue() }, { requiredKeys: [] }),
  );
  fc.assert(
    fc.property(bodies, (candidate) => {
      try {
        const parsed = parseFashionRequest(candidate);
        expect(FASHION_MODEL_NAMES).toContain(parsed.model.name);
      } catch (error) {
        expect(error).toBeInstanceOf(FashionError);
        expect((error as FashionError).kind).toBe('invalid_request');
      }
    }),
    { numRuns: 2_000 },
  );
});
