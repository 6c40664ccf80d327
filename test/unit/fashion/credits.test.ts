import { creditsCharged, expectedCredits } from '../../../lambdas/fashion/credits.js';
import { parseFashionRequest } from '../../../lambdas/fashion/fashion-request.js';

/**
 * The credits of docs/interface.md §4.10: base cost, 5 with a face reference, × num_samples /
 * num_images, 0 when failed.
 */
const IMG = 'https://images.example.com/a.jpg';
const request = (model_name: string, inputs: Record<string, unknown>) => parseFashionRequest({ model_name, inputs });

test.each([
  ['tryon-v1.6', { model_image: IMG, garment_image: IMG }, 3],
  ['tryon-v1.6', { model_image: IMG, garment_image: IMG, num_samples: 4 }, 12],
  ['product-to-model', { product_image: IMG }, 3],
  ['product-to-model', { product_image: IMG, face_reference: IMG }, 5],
  ['product-to-model', { product_image: IMG, face_reference: IMG, num_images: 3 }, 15],
  ['product-to-model', { product_image: IMG, model_image: IMG, num_images: 2 }, 6],
  ['face-to-model', { face_image: IMG }, 3],
  ['model-create', { prompt: 'p' }, 3],
  ['model-create', { prompt: 'p', face_reference: IMG }, 5],
  ['model-variation', { model_image: IMG }, 3],
  ['model-swap', { model_image: IMG, face_reference: IMG, num_images: 2 }, 10],
  ['model-swap', { model_image: IMG }, 3],
  ['reframe', { image: IMG, num_images: 4 }, 8],
  ['background-change', { image: IMG, prompt: 'p' }, 2],
  ['background-remove', { image: IMG }, 2],
  ['image-to-video', { image: IMG, duration: 10 }, 5],
])('%s %j: %d credits', (model, inputs, credits) => {
  expect(expectedCredits(request(model, inputs))).toBe(credits);
});

test("a failed prediction costs 0, whatever was asked; the upstream's figure wins over the estimate", () => {
  const tryon = expectedCredits(request('tryon-v1.6', { model_image: IMG, garment_image: IMG, num_samples: 2 }));
  expect(creditsCharged(tryon, { status: 'failed', creditsUsed: 6 })).toEqual({ credits: 0, estimated: false });
  expect(creditsCharged(tryon, { status: 'completed', creditsUsed: 4 })).toEqual({ credits: 4, estimated: false });
  expect(creditsCharged(tryon, { status: 'completed' })).toEqual({ credits: 6, estimated: true });
});
