/** The model catalog: providers, families, prices and lookups. Data; imports nothing outside this folder. */

export {
  PROVIDER_IDS,
  PROVIDERS,
  KEYED_PROVIDER_IDS,
  isProviderId,
  baseUrlEnvVar,
  apiKeyEnvVar,
  type ProviderId,
  type ProviderInfo,
  type ProviderKind,
  type ProviderCredential,
  type WireFormat,
} from './providers.js';
export { FAMILIES, type ModelFamily, type ModelRoute } from './families.js';
export {
  PRICES,
  priceOf,
  costMicroUsd,
  tokenParts,
  type ModelPrice,
  type TokenUsage,
  type TokenParts,
  type Cost,
} from './prices.js';
export { UNIT_PRICES, unitPriceOf, unitCostMicroUsd, type UnitPrice, type UsageUnit } from './unit-prices.js';
export {
  EMBEDDING_MODELS,
  resolveEmbeddingModel,
  type EmbeddingModel,
  type EmbeddingRoute,
} from './embedding-models.js';
export { resolveFamily, listFamilies, fightCapableAliases } from './lookup.js';
export {
  SEARCH_PROVIDER_IDS,
  SEARCH_PROVIDERS,
  DEFAULT_SEARCH_PROVIDER,
  type SearchProviderId,
  type SearchProviderInfo,
  type SearchPrice,
  type SearchWireFormat,
} from './search-providers.js';
export {
  MEDIA_PROVIDER_IDS,
  MEDIA_PROVIDERS,
  type MediaProviderId,
  type MediaProviderInfo,
} from './media-providers.js';
