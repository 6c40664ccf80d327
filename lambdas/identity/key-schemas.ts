/** Field rules shared by every endpoint that creates or changes a key. */
export const KEY_NAME = { type: 'string', minLength: 1, maxLength: 100 } as const;
export const RATE_LIMIT = { type: 'integer', minimum: 1, maximum: 10000 } as const;
export const KEY_TYPE = { type: 'string', enum: ['secret', 'publishable'] } as const;
/** Browser origins: scheme, host and optional port; no path, no wildcard. */
export const ALLOWED_ORIGINS = {
  type: 'array',
  minItems: 1,
  maxItems: 20,
  uniqueItems: true,
  items: { type: 'string', pattern: '^https?://[A-Za-z0-9.-]+(:[0-9]{1,5})?$', maxLength: 200 },
} as const;
