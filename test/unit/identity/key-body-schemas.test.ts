import { DomainError } from '../../../lambdas/errors/domain-error.js';
import { HttpError, httpErrorOf } from '../../../lambdas/http/errors.js';
import { validate } from '../../../lambdas/http/validation.js';
import {
  ADMIN_CREATE_KEY_BODY,
  CREATE_KEY_BODY,
  keyChangesOf,
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
  expect(validate(createKey, { name: null, rateLimit: null, type: null, allowedOrigins: null })).toBeTruthy();
  expect(validate(updateKey, { name: null, rateLimit: null, enabled: null })).toBeTruthy();
  expect(
    validate(adminCreateKey, { accountId: 'a', type: 'secret', name: null, rateLimit: null, allowedOrigins: null }),
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
  expect(refused.message).toMatch(/name, rateLimit or enabled/);
});
