import { Ajv, type ErrorObject, type JSONSchemaType, type ValidateFunction } from 'ajv';

/**
 * JSON-schema compilers, shared by the HTTP layer (bodies) and the cores (their own request
 * types). Compiling knows no HTTP: lambdas/http/validation.ts turns failures into 400s.
 * Schemas are compiled once per function at init.
 */
const ajv = new Ajv({ allErrors: false, useDefaults: true, coerceTypes: false, strict: true });
/**
 * For schemas that need conditionals, which strict mode forbids. `discriminator` (OpenAPI's
 * keyword) picks the one `oneOf` branch a tag names (a chat message by `role`, a fashion body by
 * `model_name`): only that branch is checked and only its failures are reported, as an if/then per
 * tag would, while the branches stay plain schemas that client generators can type.
 */
const conditionalAjv = new Ajv({
  allErrors: false,
  discriminator: true,
  strictNumbers: true,
  useDefaults: true,
  coerceTypes: false,
  strict: false,
  verbose: true,
});

export type Schema<T> = JSONSchemaType<T>;
export type Validator<T> = ValidateFunction<T>;

export function compile<T>(schema: Schema<T>): Validator<T> {
  return ajv.compile(schema);
}

export function compileConditional<T>(schema: object): Validator<T> {
  return conditionalAjv.compile<T>(schema);
}

/**
 * What checking a value needs of a validator: its test, the schema it documents, and the
 * failures of its last run. A compiled validator is one; so is `eitherForm`'s.
 */
export interface ValueCheck<T> {
  (value: unknown): value is T;
  readonly schema: unknown;
  readonly errors?: readonly ErrorObject[] | null;
}

/**
 * A value that comes in two forms, told apart by `isSecond` and each checked by its own
 * validator, so a refusal speaks of the form the caller used (under a plain `oneOf` ajv would
 * report both forms' failures). `schema` documents both (a `oneOf` whose branches exclude
 * each other as `isSecond` does), for the OpenAPI document.
 */
export function eitherForm<A, B>(forms: {
  readonly first: Validator<A>;
  readonly second: Validator<B>;
  readonly isSecond: (value: unknown) => boolean;
  readonly schema: object;
}): ValueCheck<A | B> {
  function check(value: unknown): value is A | B {
    const chosen = forms.isSecond(value) ? forms.second : forms.first;
    const valid = chosen(value);
    check.errors = chosen.errors;
    return valid;
  }
  check.errors = null as readonly ErrorObject[] | null | undefined;
  check.schema = forms.schema;
  return check;
}
