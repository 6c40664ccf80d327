import { DomainError } from '../../../lambdas/errors/domain-error.js';
import { HttpError, httpErrorOf } from '../../../lambdas/http/errors.js';
import { validate } from '../../../lambdas/http/validation.js';
import {
  ADMIN_CREATE_KEY_BODY,
  CREATE_KEY_BODY,
  keyChangesOf,
  MAX_BUDGET_USD,
  storedBudget,
  UPDATE_KEY_BODY,
  type AdminCreateKeyBody,
  type CreateKeyBody,
  type UpdateKeyBody,
} from '../../../lambdas/identity/key-schemas.js';
import {
  CREATE_PROVIDER_KEY_BODY,
  type CreateProviderKeyBody,
} from '../../../lambdas/identity/provider-key-schemas.js';
import { compile } from '../../../lambdas/schema/compile.js';

/**
 * ajv's JSONSchemaType makes the compiler ask a rule for every field of a body type, but lets a
 * schema carry a rule for a field the type does not have. These assignments refuse that too:
 * they compile only while each schema's properties are exactly its type's fields.
 */
type SameKeys<A, B> = [Exclude<A, B>, Exclude<B, A>] extends [never, never] ? true : false;
type FieldsOf<S> = S extends { readonly properties: infer P } ? keyof P : never;
const fieldsAgree: readonly true[] = [
  true satisfies SameKeys<FieldsOf<typeof CREATE_KEY_BODY>, keyof CreateKeyBody>,
  true satisfies SameKeys<FieldsOf<typeof UPDATE_KEY_BODY>, keyof UpdateKeyBody>,
  true satisfies SameKeys<FieldsOf<typeof ADMIN_CREATE_KEY_BODY>, keyof AdminCreateKeyBody>,
  true satisfies SameKeys<FieldsOf<typeof CREATE_PROVIDER_KEY_BODY>, keyof CreateProviderKeyBody>,
];

const createKey = compile<CreateKeyBody>(CREATE_KEY_BODY);
const updateKey = compile<UpdateKeyBody>(UPDATE_KEY_BODY);
const adminCreateKey = compile<AdminCreateKeyBody>(ADMIN_CREATE_KEY_BODY);
const createProviderKey = compile<CreateProviderKeyBody>(CREATE_PROVIDER_KEY_BODY);

function badRequestOf(run: () => unknown): HttpError {
  try {
    run();
  } catch (error) {
    // As the response writer answers it: validation's own 400s, or the identity domain's.
    if (error instanceof HttpError) return error;
    if (error instanceof DomainError) return httpErrorOf(error);
    throw error;
  }
  throw new Error('expected a 400');
}

test('every body schema lists exactly the fields of its type', () => {
  expect(fieldsAgree).toEqual([true, true, true, true]);
});

test('null passes every optional field, as the body types and the OpenAPI document say', () => {
  expect(
    validate(createKey, { name: null, rateLimit: null, type: null, allowedOrigins: null, budget: null }),
  ).toBeTruthy();
  expect(validate(updateKey, { name: null, rateLimit: null, enabled: null })).toBeTruthy();
  expect(
    validate(adminCreateKey, {
      accountId: 'a',
      type: 'secret',
      name: null,
      rateLimit: null,
      allowedOrigins: null,
      budget: null,
    }),
  ).toBeTruthy();
  expect(
    validate(createProviderKey, { provider: 'openai', slug: 'mine', apiKey: 'sk-12345678', displayName: null }),
  ).toBeTruthy();
});

test('null is refused where a field is required', () => {
  expect(badRequestOf(() => validate(adminCreateKey, { accountId: 'a', type: null })).param).toBe('type');
});

test('a PATCH changes the fields it gives and leaves null ones as they are', () => {
  expect(keyChangesOf({ name: 'renamed', rateLimit: null, enabled: false })).toEqual({
    name: 'renamed',
    enabled: false,
  });
  expect(keyChangesOf({ rateLimit: 7 })).toEqual({ rateLimit: 7 });
});

test('a PATCH of nulls alone changes nothing and is a 400 naming the body', () => {
  const refused = badRequestOf(() => keyChangesOf(validate(updateKey, { name: null, enabled: null })));
  expect(refused.status).toBe(400);
  expect(refused.param).toBe('body');
  expect(refused.message).toMatch(/name, rateLimit, enabled, budget or contentLog/);
});

const BUDGET_BODIES = [
  ['create', (budget: unknown) => validate(createKey, { budget })],
  ['update', (budget: unknown) => keyChangesOf(validate(updateKey, { budget }))],
  ['admin create', (budget: unknown) => validate(adminCreateKey, { accountId: 'a', type: 'secret', budget })],
] as const;

test.each(BUDGET_BODIES)('%s takes a budget of each period, up to the largest limit', (_route, check) => {
  for (const period of ['day', 'month', 'total'])
    for (const limitUsd of [0.000001, 12.5, MAX_BUDGET_USD]) expect(() => check({ limitUsd, period })).not.toThrow();
});

test.each(
  BUDGET_BODIES.flatMap(([route, check]) =>
    (
      [
        [{ limitUsd: 0, period: 'day' }, 'budget.limitUsd', /must be > 0/],
        [{ limitUsd: -1, period: 'day' }, 'budget.limitUsd', /must be > 0/],
        [{ limitUsd: MAX_BUDGET_USD + 1, period: 'day' }, 'budget.limitUsd', /must be <= 1000000000/],
        [{ limitUsd: '5', period: 'day' }, 'budget.limitUsd', /must be number/],
        [{ period: 'day' }, 'budget.limitUsd', /is required/],
        [{ limitUsd: 5, period: 'week' }, 'budget.period', /must be one of day, month, total/],
        [{ limitUsd: 5, period: null }, 'budget.period', /must be/],
        [{ limitUsd: 5 }, 'budget.period', /is required/],
        [{ limitUsd: 5, period: 'day', currency: 'EUR' }, 'budget.currency', /is not a known field/],
        [5, 'budget', /must be object/],
        [[], 'budget', /must be object/],
      ] as const
    ).map(([budget, field, message]) => [route, JSON.stringify(budget), field, message, check, budget] as const),
  ),
)('%s refuses budget %s with a 400 naming %s', (_route, _shown, field, message, check, budget) => {
  const refused = badRequestOf(() => check(budget));
  expect([refused.status, refused.param]).toEqual([400, field]);
  expect(refused.message).toMatch(new RegExp(`^${field.replace('.', '\\.')}: `));
  expect(refused.message).toMatch(message);
});

test('a limit is kept in whole micro-USD; one that rounds to none is a 400 naming budget.limitUsd', () => {
  expect(storedBudget({ limitUsd: 12.3456789, period: 'month' })).toEqual({
    limitMicroUsd: 12_345_679,
    period: 'month',
  });
  expect(storedBudget({ limitUsd: 0.0000006, period: 'day' })).toEqual({ limitMicroUsd: 1, period: 'day' });
  expect(storedBudget({ limitUsd: MAX_BUDGET_USD, period: 'total' })).toEqual({
    limitMicroUsd: 1e15,
    period: 'total',
  });
  const refused = badRequestOf(() =>
    storedBudget(validate(createKey, { budget: { limitUsd: 0.0000004, period: 'day' } }).budget!),
  );
  expect([refused.status, refused.param]).toEqual([400, 'budget.limitUsd']);
  expect(refused.message).toMatch(/^budget\.limitUsd: must be at least 0\.000001/);
});

test('a PATCH budget of null is a change: it removes the budget, beside other fields or alone', () => {
  expect(keyChangesOf(validate(updateKey, { budget: null }))).toEqual({ budget: null });
  expect(keyChangesOf(validate(updateKey, { name: null, budget: null }))).toEqual({ budget: null });
  expect(keyChangesOf(validate(updateKey, { enabled: true, budget: { limitUsd: 2, period: 'day' } }))).toEqual({
    enabled: true,
    budget: { limitMicroUsd: 2_000_000, period: 'day' },
  });
});
