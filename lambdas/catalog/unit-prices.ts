/**
 * List prices of work that is not tokens: speech by character, music by song, video by
 * second, fashion by credit. Data plus one pure cost function, like prices.ts. Keys are the
 * priced work's model id as metered (`<provider>/<upstream model>`, with a variant suffix
 * where the upstream prices it separately, e.g. a video resolution). Figures are the
 * providers' published pay-as-you-go prices at the time of writing.
 */

/** What a non-token ledger entry counts. */
export const USAGE_UNITS = ['search', 'characters', 'songs', 'seconds', 'credits'] as const;

export type UsageUnit = (typeof USAGE_UNITS)[number];

export interface UnitPrice {
  readonly unit: UsageUnit;
  /** Integer micro-USD per `per` units (speech: per 1,000 characters, so the figure stays whole). */
  readonly microUsd: number;
  readonly per: number;
}

const price = (unit: UsageUnit, microUsd: number, per = 1): UnitPrice => Object.freeze({ unit, microUsd, per });

export const UNIT_PRICES: Readonly<Record<string, UnitPrice>> = Object.freeze({
  // MiniMax speech: $100 (HD) and $60 (turbo) per million characters.
  'minimax/speech-2.6-hd': price('characters', 100_000, 1_000),
  'minimax/speech-2.6-turbo': price('characters', 60_000, 1_000),
  // MiniMax music: per generated song (up to about five minutes).
  'minimax/music-2.5': price('songs', 150_000),
  'minimax/music-2.5+': price('songs', 150_000),
  // MiniMax video, per second of output: a 6 s 768P clip is $0.28, 1080P $0.49; Fast is cheaper.
  'minimax/MiniMax-Hailuo-2.3/768P': price('seconds', 46_667),
  'minimax/MiniMax-Hailuo-2.3/1080P': price('seconds', 81_667),
  'minimax/MiniMax-Hailuo-2.3-Fast/768P': price('seconds', 31_667),
  'minimax/MiniMax-Hailuo-2.3-Fast/1080P': price('seconds', 55_000),
  // FASHN: $0.075 per credit on the pay-as-you-go plan.
  'fashn/credit': price('credits', 75_000),
});

export function unitPriceOf(model: string): UnitPrice | undefined {
  return Object.hasOwn(UNIT_PRICES, model) ? UNIT_PRICES[model] : undefined;
}

/**
 * The cost of `quantity` units of `model`'s work, integer micro-USD rounded half up; unpriced
 * (0) when the catalog has no price for it or prices it in another unit.
 */
export function unitCostMicroUsd(
  model: string,
  unit: UsageUnit,
  quantity: number,
): { microUsd: number; priced: boolean } {
  const found = unitPriceOf(model);
  if (!found || found.unit !== unit) return { microUsd: 0, priced: false };
  const units = Number.isFinite(quantity) && quantity > 0 ? quantity : 0;
  return { microUsd: Math.round((units * found.microUsd) / found.per), priced: true };
}
