import { Ajv, type JSONSchemaType, type ValidateFunction } from 'ajv';

/**
 * JSON-schema compilers, shared by the HTTP layer (bodies) and the cores (their own request
 * types). Compiling knows no HTTP: lambdas/http/validation.ts turns failures into 400s.
 * Schemas are compiled once per function at init.
 */
const ajv = new Ajv({ allErrors: false, useDefaults: true, coerceTypes: false, strict: true });
/** For schemas that need conditionals (if/then per message role), which strict mode forbids. */
const conditionalAjv = new Ajv({
  allErrors: false,
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
