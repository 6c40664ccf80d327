import type { JSONSchemaType } from 'ajv';
import { IdentityError } from './identity-errors.js';
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

/**
 * The bodies as the schemas below admit them. ajv's typed schemas require `nullable` on every
 * optional field, and ajv then lets null through there: the types say so, and everything that
 * reads a body takes null to mean the field was not given (as the OpenAPI document promises).
 */
export interface CreateKeyBody {
  readonly name?: string | null;
  readonly rateLimit?: number | null;
  /** Extension: dashboards may also mint publishable keys for their own sites. */
  readonly type?: KeyType | null;
  readonly allowedOrigins?: string[] | null;
}

export interface UpdateKeyBody {
  readonly name?: string | null;
  readonly rateLimit?: number | null;
  readonly enabled?: boolean | null;
}

export interface AdminCreateKeyBody {
  readonly accountId: string;
  readonly type: KeyType;
  readonly name?: string | null;
  readonly rateLimit?: number | null;
  readonly allowedOrigins?: string[] | null;
}

/**
 * Request bodies of the key routes, compiled by their handlers and documented in the OpenAPI
 * document (lambdas/openapi/route-docs.ts) as these very objects. Each `satisfies` its body
 * type, so the compiler refuses a schema and a type that drift apart, while the objects keep
 * their literal types for the document.
 */
export const CREATE_KEY_BODY = {
  type: 'object',
  properties: {
    name: { ...KEY_NAME, nullable: true },
    rateLimit: { ...RATE_LIMIT, nullable: true },
    // `nullable` alone does not get null past `enum`; the document already listed it.
    type: { ...KEY_TYPE, enum: [...KEY_TYPE.enum, null], nullable: true },
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
} as const satisfies JSONSchemaType<UpdateKeyBody>;

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

/**
 * What a PATCH changes: the fields it gives, null ones left as they are (a stored null would
 * disable the key or void its rate limit). A body of nulls alone changes nothing, which the
 * route refuses as it refuses `{}`.
 */
export function keyChangesOf(body: UpdateKeyBody): ApiKeyChanges {
  const changes = {
    ...(body.name != null ? { name: body.name } : {}),
    ...(body.rateLimit != null ? { rateLimit: body.rateLimit } : {}),
    ...(body.enabled != null ? { enabled: body.enabled } : {}),
  };
  if (Object.keys(changes).length === 0)
    throw new IdentityError(
      'invalid_request',
      'body: must change at least one of name, rateLimit or enabled (null changes nothing)',
      { field: 'body' },
    );
  return changes;
}
