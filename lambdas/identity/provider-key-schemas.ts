import { PROVIDER_IDS } from '../catalog/model-catalog.js';

/**
 * The body that stores a caller's own provider key (docs/interface.md §2.6), compiled by its handler
 * and documented as it is.
 */
export const CREATE_PROVIDER_KEY_BODY = {
  type: 'object',
  properties: {
    provider: { type: 'string', enum: [...PROVIDER_IDS] },
    slug: { type: 'string', pattern: '^[a-z0-9-]{2,50}$' },
    apiKey: { type: 'string', minLength: 8, maxLength: 4096, pattern: '^\\S+$' },
    displayName: { type: 'string', minLength: 1, maxLength: 100, nullable: true },
  },
  required: ['provider', 'slug', 'apiKey'],
  additionalProperties: false,
} as const;
