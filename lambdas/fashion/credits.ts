import type { FashionRequest } from './fashion-request.js';

/**
 * The credits of one prediction (docs/interface.md §4.10): the model's base cost, or its face-reference cost
 * when that input is present, times the outputs asked for (`num_samples` / `num_images`,
 * default 1). A failed prediction costs nothing. When the upstream reports what it charged
 * (`x-fashn-credits-used`), that figure wins over the estimate: it is what the platform pays.
 */
export function expectedCredits(request: FashionRequest): number {
  const { model, inputs } = request;
  const face = model.faceReference !== undefined && inputs[model.faceReference.input] !== undefined;
  const perOutput = face ? model.faceReference!.credits : model.baseCredits;
  const outputs = model.multiplier === undefined ? 1 : inputs[model.multiplier];
  return perOutput * (typeof outputs === 'number' ? outputs : 1);
}

export interface CreditsCharged {
  readonly credits: number;
  /** True when the figure is the gateway's estimate because the upstream reported none. */
  readonly estimated: boolean;
}

/** `expected`: what the request implies (expectedCredits), kept from its submission. */
export function creditsCharged(
  expected: number,
  outcome: { readonly status: 'completed' | 'failed'; readonly creditsUsed?: number },
): CreditsCharged {
  if (outcome.status === 'failed') return { credits: 0, estimated: false };
  if (outcome.creditsUsed !== undefined) return { credits: outcome.creditsUsed, estimated: false };
  return { credits: expected, estimated: true };
}
