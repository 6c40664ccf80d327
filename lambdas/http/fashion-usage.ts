import { MEDIA_PROVIDERS } from '../catalog/media-providers.js';
import { creditsCharged } from '../providers/fashion/credits.js';
import type { FashionRequest } from '../providers/fashion/fashion-request.js';
import type { PredictionStatus } from '../providers/fashion/fashn-wire.js';
import type { MeteredWork } from '../gateway/metering.js';

/** Every credit is priced alike (catalog/unit-prices.ts), whatever the model. */
export const FASHION_PRICED_MODEL = 'fashn/credit';

/**
 * The ledger entry of a prediction that ended: its credits (0 when failed; the upstream's
 * `x-fashn-credits-used` when sent, else the table's estimate, marked as such).
 */
export function fashionUsage(request: FashionRequest, ended: PredictionStatus): MeteredWork {
  const terminal = ended.status === 'failed' ? 'failed' : 'completed';
  const charged = creditsCharged(request, {
    status: terminal,
    ...(ended.creditsUsed === undefined ? {} : { creditsUsed: ended.creditsUsed }),
  });
  return {
    model: FASHION_PRICED_MODEL,
    provider: MEDIA_PROVIDERS.fashn.id,
    unit: 'credits',
    quantity: charged.credits,
    status: 200,
    outcome: terminal === 'completed' ? 'ok' : `failed:${ended.error?.name ?? 'PipelineError'}`,
    estimated: charged.estimated,
  };
}
