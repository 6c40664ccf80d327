import type { JSONSchemaType } from 'ajv';
import { KEYED_PROVIDER_IDS, type ProviderId } from '../catalog/model-catalog.js';

export interface CreateProviderKeyBody {
  readonly provider: ProviderId;
  readonly slug: string;
  readonly apiKey: string;
  /** Null, which ajv lets through a `nullable` field, means none. */
  readonly displayName?: string | null;
}

/**
 * The body that stores a caller's own provider key (docs/interface.md §2.6), compiled by its handler
 * and documented as it is; it `satisfies` its body type so the two cannot drift apart.
 */
export const CREATE_PROVIDER_KEY_BODY = {
  type: 'object',
  properties: {
    // Keyless providers (Bedrock: the function role) are not listed: storing a key for one is a 400 naming `provider`.
    provider: { type: 'string', enum: [...KEYED_PROVIDER_IDS] },
    slug: { type: 'string', pattern: '^[a-z0-9-]{2,50}$' },
    apiKey: { type: 'string', minLength: 8, maxLength: 4096, pattern: '^\\S+$' },
    displayName: { type: 'string', minLength: 1, maxLength: 100, nullable: true },
  },
  required: ['provider', 'slug', 'apiKey'],
  additionalProperties: false,
} as const satisfies JSONSchemaType<CreateProviderKeyBody>;
