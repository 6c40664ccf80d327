import type { JSONSchemaType } from 'ajv';
import { IdentityError } from './identity-errors.js';
import type { ApiKeyChanges, KeyType } from '../store/api-keys.js';
import { BUDGET_PERIODS, type BudgetPeriod, type StoredBudget } from '../store/budget-counters.js';

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

/** The largest budget a key may have, in USD: far above any real spend, well inside safe integers as micro-USD. */
export const MAX_BUDGET_USD = 1_000_000_000;
const MICRO_USD_PER_USD = 1_000_000;

/** A spending limit in USD for a UTC calendar day, a UTC calendar month, or the key's whole life. */
export interface BudgetBody {
  readonly limitUsd: number;
  readonly period: BudgetPeriod;
}

/** The longest a key may keep its requests' content, in days. */
export const MAX_CONTENT_RETENTION_DAYS = 90;

/** A key's opt-in to keeping its requests' prompts and answers, and for how long. */
export interface ContentLogBody {
  readonly retentionDays: number;
}

export const CONTENT_LOG = {
  type: 'object',
  description:
    'Extension: keep this key’s chat requests’ prompts and answers in the request log for `retentionDays` ' +
    '(docs/interface.md §4.8.1); none are kept otherwise',
  properties: {
    retentionDays: { type: 'integer', minimum: 1, maximum: MAX_CONTENT_RETENTION_DAYS, description: 'Days kept' },
  },
  required: ['retentionDays'],
  additionalProperties: false,
} as const satisfies JSONSchemaType<ContentLogBody>;

export const BUDGET = {
  type: 'object',
  description: 'Extension: a spending limit, checked before each upstream call (docs/interface.md §2.5)',
  properties: {
    limitUsd: {
      type: 'number',
      exclusiveMinimum: 0,
      maximum: MAX_BUDGET_USD,
      description: 'USD, kept in whole micro-USD (at least 0.000001)',
    },
    period: {
      type: 'string',
      enum: BUDGET_PERIODS,
      description: 'A UTC calendar `day` or `month`, or `total` (the key’s whole life)',
    },
  },
  required: ['limitUsd', 'period'],
  additionalProperties: false,
} as const satisfies JSONSchemaType<BudgetBody>;

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
  /** Extension: a spending limit; none when not given (or null). */
  readonly budget?: BudgetBody | null;
  /** Extension: keep the key's requests' content; not kept when not given (or null). */
  readonly contentLog?: ContentLogBody | null;
}

export interface UpdateKeyBody {
  readonly name?: string | null;
  readonly rateLimit?: number | null;
  readonly enabled?: boolean | null;
  /** Unlike the other fields, null here is a change: it removes the key's budget. */
  readonly budget?: BudgetBody | null;
  /** Null here is a change too: the key's requests' content is no longer kept. */
  readonly contentLog?: ContentLogBody | null;
}

export interface AdminCreateKeyBody {
  readonly accountId: string;
  readonly type: KeyType;
  readonly name?: string | null;
  readonly rateLimit?: number | null;
  readonly allowedOrigins?: string[] | null;
  readonly budget?: BudgetBody | null;
  readonly contentLog?: ContentLogBody | null;
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
    budget: { ...BUDGET, nullable: true },
    contentLog: { ...CONTENT_LOG, nullable: true },
  },
  additionalProperties: false,
} as const satisfies JSONSchemaType<CreateKeyBody>;

export const UPDATE_KEY_BODY = {
  type: 'object',
  properties: {
    name: { ...KEY_NAME, nullable: true },
    rateLimit: { ...RATE_LIMIT, nullable: true },
    enabled: { type: 'boolean', nullable: true },
    budget: { ...BUDGET, nullable: true },
    contentLog: { ...CONTENT_LOG, nullable: true },
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
    budget: { ...BUDGET, nullable: true },
    contentLog: { ...CONTENT_LOG, nullable: true },
  },
  required: ['accountId', 'type'],
  additionalProperties: false,
} as const satisfies JSONSchemaType<AdminCreateKeyBody>;

/**
 * A budget as the key keeps it: integer micro-USD. A limit that rounds to no micro-USD at all
 * would refuse every call, so it is refused here instead, naming the field.
 */
export function storedBudget(body: BudgetBody): StoredBudget {
  const limitMicroUsd = Math.round(body.limitUsd * MICRO_USD_PER_USD);
  if (limitMicroUsd <= 0)
    throw new IdentityError(
      'invalid_request',
      'budget.limitUsd: must be at least 0.000001 (one micro-USD; budgets are kept in whole micro-USD)',
      { field: 'budget.limitUsd' },
    );
  return { limitMicroUsd, period: body.period };
}

/**
 * What a PATCH changes: the fields it gives, null ones left as they are (a stored null would
 * disable the key or void its rate limit), except `budget`, whose null removes the budget. A
 * body of nulls alone (the budget's aside) changes nothing, which the route refuses as it
 * refuses `{}`.
 */
export function keyChangesOf(body: UpdateKeyBody): ApiKeyChanges {
  const changes = {
    ...(body.name != null ? { name: body.name } : {}),
    ...(body.rateLimit != null ? { rateLimit: body.rateLimit } : {}),
    ...(body.enabled != null ? { enabled: body.enabled } : {}),
    ...(body.budget !== undefined ? { budget: body.budget && storedBudget(body.budget) } : {}),
    ...(body.contentLog !== undefined
      ? { contentLog: body.contentLog && { retentionDays: body.contentLog.retentionDays } }
      : {}),
  };
  if (Object.keys(changes).length === 0)
    throw new IdentityError(
      'invalid_request',
      'body: must change at least one of name, rateLimit, enabled, budget or contentLog (a null name, rateLimit or enabled changes nothing)',
      { field: 'body' },
    );
  return changes;
}
