import { Ajv, type JSONSchemaType, type ValidateFunction } from 'ajv';

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
