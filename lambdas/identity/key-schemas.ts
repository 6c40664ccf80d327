import type { JSONSchemaType } from 'ajv';
import type { ApiKeyChanges, KeyType } from '../store/api-keys.js';

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

export interface CreateKeyBody {
  readonly name?: string;
  readonly rateLimit?: number;
  /** Extension: dashboards may also mint publishable keys for their own sites. */
  readonly type?: KeyType;
  readonly allowedOrigins?: string[];
}

export interface AdminCreateKeyBody {
  readonly accountId: string;
  readonly type: KeyType;
  readonly name?: string;
  readonly rateLimit?: number;
  readonly allowedOrigins?: string[];
}

/**
 * Request bodies of the key routes, compiled by their handlers and documented in the OpenAPI
 * document (lambdas/openapi/route-docs.ts) as these very objects. `nullable` marks what ajv's
 * typed schemas call optional. Each `satisfies` its body type, so the compiler refuses a schema
 * and a type that drift apart while the objects keep their literal types for the document.
 */
export const CREATE_KEY_BODY = {
  type: 'object',
  properties: {
    name: { ...KEY_NAME, nullable: true },
    rateLimit: { ...RATE_LIMIT, nullable: true },
    type: { ...KEY_TYPE, nullable: true },
    allowedOrigins: { ...ALLOWED_ORIGINS, nullable: true },
  },
  additionalProperties: false,
} as const satisfies JSONSchemaType<CreateKeyBody>;

export const UPDATE_KEY_BODY = {
  type: 'object',
  properties: {
    name: { ...KEY_NAME, nullable: true },
    rateLimit: { ...RATE_LIMIT, nullable: true },
    enabled: { type: 'boolean', nullable: true },
  },
  minProperties: 1,
  additionalProperties: false,
} as const satisfies JSONSchemaType<ApiKeyChanges>;

export const ADMIN_CREATE_KEY_BODY = {
  type: 'object',
  properties: {
    accountId: { type: 'string', minLength: 1, maxLength: 100 },
    type: KEY_TYPE,
    name: { ...KEY_NAME, nullable: true },
    rateLimit: { ...RATE_LIMIT, nullable: true },
    allowedOrigins: { ...ALLOWED_ORIGINS, nullable: true },
  },
  required: ['accountId', 'type'],
  additionalProperties: false,
} as const satisfies JSONSchemaType<AdminCreateKeyBody>;
